package llvmcpu_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// scratchChain is a convolution chain's kernel shape (codegen's
// convChain): each workgroup computes a Contract of its channels into a
// scratch tile, then a DWConv of the scratch into the output. Workgroup x
// takes channels [x·cb, …) of C, over one H×W plane (no strips). With
// viaBinding, the tile lives in binding 5 (C×H×W) instead: the same
// computation through memory.
func scratchChain(C, K, H, W, cb int64, viaBinding bool) (*kir.Kernel, [3]int64) {
	k, b := kir.NewKernel("scratch_chain")
	f := kir.F32
	// A (C×K), B (K×H·W), weights (C×3×3), output (C×H×W), bias (C).
	k.Bindings = []kir.Binding{{Elem: f, Access: kir.Read}, {Elem: f, Access: kir.Read}, {Elem: f, Access: kir.Read}, {Elem: f, Access: kir.Write}, {Elem: f, Access: kir.Read}}
	var sc int
	var tile func(c0 kir.Value) kir.Value
	if viaBinding {
		k.Bindings = append(k.Bindings, kir.Binding{Elem: f, Access: kir.ReadWrite})
		sc, tile = 5, func(c0 kir.Value) kir.Value { return b.Bin(kir.Mul, c0, b.Idx(H*W)) }
	} else {
		k.Shared = []kir.SharedAlloc{{Elem: f, Count: cb * H * W, Scratch: true}}
		sc, tile = k.SharedOrdinal(0), func(kir.Value) kir.Value { return b.Idx(0) }
	}
	grid := [3]int64{(C + cb - 1) / cb, 1, 1}
	k.Grid[0] = kir.GridDim{Static: C, Tile: cb}
	k.Grid[1], k.Grid[2] = kir.GridDim{Static: 1, Tile: 1}, kir.GridDim{Static: 1, Tile: 1}
	i := b.Idx
	c0 := b.Bin(kir.Mul, b.EmitImm(kir.WorkgroupID, kir.S(kir.I64), 0), i(cb))
	cN := b.Bin(kir.MinS, i(cb), b.Bin(kir.Sub, i(C), c0))
	lo, hi := b.Float(kir.S(f), 0), b.Float(kir.S(f), 6)
	b.ContractWith(0, 1, sc, [12]kir.Value{b.Bin(kir.Mul, c0, i(K)), i(K), i(1), i(0), i(H * W), i(1), tile(c0), i(H * W), i(1), cN, i(H * W), i(K)},
		kir.ContractZero, kir.ContractEpilogue{Bias: 4, BiasOff: c0, BiasStride: i(1), Res: -1, Lo: lo, Hi: hi})
	b.DWConv(sc, 2, 3, [kir.DWConvArgs]kir.Value{
		tile(c0), i(H * W), i(W), b.Bin(kir.Mul, c0, i(9)), i(9), i(3), i(1), b.Bin(kir.Mul, c0, i(H*W)), i(H * W), i(W),
		cN, i(H), i(W), i(H), i(W), i(3), i(3), i(1), i(1), i(1), i(1), i(1), i(1), i(1), i(0), i(0),
	}, kir.DWConvEpilogue{Bias: 4, BiasOff: c0, BiasStride: i(1), Lo: lo, Hi: hi})
	return k, grid
}

// TestTileOpsOnScratch: a Contract writes a scratch tile (not zeroed: kir
// fills it with NaNs, llvm-cpu leaves the stack as it is) that a DWConv
// then reads, per workgroup. Native code gives the same bits as the same
// two tile ops through a binding, one call for the grid or one per
// workgroup; kir.Run agrees to rounding (it rounds each product, llvm-cpu
// fuses them into sums), so no element is read before it is written.
func TestTileOpsOnScratch(t *testing.T) {
	m := needLLVM(t)
	for _, c := range []struct{ C, K, H, W, cb int64 }{{20, 5, 9, 11, 8}, {16, 24, 14, 14, 8}, {3, 2, 5, 7, 4}} {
		k, grid := scratchChain(c.C, c.K, c.H, c.W, c.cb, false)
		if err := kir.Verify(k); err != nil {
			t.Fatal(err)
		}
		if s := k.String(); !strings.Contains(s, "scratch (b5)") {
			t.Fatalf("the printed kernel does not show its scratch tile:\n%s", s)
		}
		r := rand.New(rand.NewPCG(uint64(c.C), uint64(c.K)))
		rnd := func(n int64) []byte {
			xs := make([]float64, n)
			for j := range xs {
				xs[j] = r.Float64()*4 - 2
			}
			return enc(kir.F32, xs)
		}
		out := 4 * c.C * c.H * c.W
		inputs := [][]byte{rnd(c.C * c.K), rnd(c.K * c.H * c.W), rnd(c.C * 9), make([]byte, out), rnd(c.C)}
		total := grid[0] * grid[1] * grid[2]
		got := clone(inputs)
		if err := build(t, m, k).Run(0, 0, total, grid, nil, got); err != nil {
			t.Fatal(err)
		}
		per := clone(inputs)
		x := build(t, m, k)
		for i := int64(0); i < total; i++ {
			if err := x.Run(0, i, 1, grid, nil, per); err != nil {
				t.Fatal(err)
			}
		}
		kb, _ := scratchChain(c.C, c.K, c.H, c.W, c.cb, true)
		want := append(clone(inputs), make([]byte, out))
		if err := build(t, m, kb).Run(0, 0, total, grid, nil, want); err != nil {
			t.Fatal(err)
		}
		compare(t, k, "scratch against a binding", want[:5], got, 0)
		compare(t, k, "one call per workgroup", want[:5], per, 0)
		ref := clone(inputs)
		if err := kir.Run(k, grid, nil, ref); err != nil {
			t.Fatal(err)
		}
		nonzero := false
		for j := 0; j < len(got[3]); j += 4 {
			w, g := value(kir.F32, ref[3][j:j+4]), value(kir.F32, got[3][j:j+4])
			if math.IsNaN(w) || math.Abs(w-g) > 1e-4 {
				t.Fatalf("%+v: output %d: kir.Run %v, llvm-cpu %v", c, j/4, w, g)
			}
			nonzero = nonzero || g != 0
		}
		if !nonzero {
			t.Fatalf("%+v: the output is all zeros", c)
		}
	}
}

// TestScratchOrdinalsAreChecked: a tile op may name a shared allocation
// by its ordinal past the bindings, but none past the shared ones, and an
// epilogue's bias must be a binding.
func TestScratchOrdinalsAreChecked(t *testing.T) {
	k, _ := scratchChain(8, 4, 5, 5, 8, false)
	for _, op := range k.Body.Ops {
		if op.Kind == kir.DWConv {
			op.Bindings[0] = 6 // past the one shared allocation (b5)
		}
	}
	if err := kir.Verify(k); err == nil || !strings.Contains(err.Error(), "binding 6 of 5") {
		t.Fatalf("Verify: %v, want an error naming binding 6 of 5", err)
	}
	k, _ = scratchChain(8, 4, 5, 5, 8, false)
	for _, op := range k.Body.Ops {
		if op.Kind == kir.DWConv {
			op.Binding = 5 // the bias on the scratch tile
		}
	}
	if err := kir.Verify(k); err == nil {
		t.Fatal("Verify accepted a DWConv bias on a shared allocation")
	}
}
