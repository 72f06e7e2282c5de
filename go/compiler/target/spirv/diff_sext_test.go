package spirv_test

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/spirv"
	"github.com/gree-ml/gree/go/compiler/target/targettest"
)

// Sign extension from i32 to i64 compared with constants: Mesa's NIR
// (lavapipe 22.3) folds a signed comparison of i2i64(x: i32) with a
// constant to a constant (its rewrite's lower bound −2³¹ is the C
// literal -0x80000000, which is +2³¹), so OpSConvert made `0 < extsi x`
// true and `extsi x < 0` false for every x: TOSA's rescale rounded
// negative inputs the wrong way, a clamped gather index read past its
// clamp, ONNX's LSTM masked with its sequence lengths wrongly. The
// emitter sign-extends i32 → i64 arithmetically instead.

// sextCompareKernel stores, for each lane of x (i32), every signed
// comparison and min/max of extsi x with the constants of cs (either
// side), as i32 0/1 and i64 values.
func sextCompareKernel(lanes int, cs []int64) *kir.Kernel {
	k, b := kir.NewKernel(fmt.Sprintf("sext_compare_%d", lanes))
	k.Bindings = []kir.Binding{{Elem: kir.I32, Access: kir.Read}, {Elem: kir.I32, Access: kir.Write}, {Elem: kir.I64, Access: kir.Write}}
	vt := func(s kir.Scalar) kir.Type { return kir.Type{Elem: s, Lanes: lanes} }
	w := b.Bin(kir.Mul, b.Query(kir.WorkgroupID, 0), b.Idx(int64(lanes)))
	x := b.Load(0, vt(kir.I32), w)
	y := b.Emit(kir.ExtS, vt(kir.I64), x)
	one, zero := b.Int(vt(kir.I32), 1), b.Int(vt(kir.I32), 0)
	n1, n2 := int64(0), int64(0)
	put1 := func(c kir.Value) {
		b.Store(1, b.Bin(kir.Add, w, b.Idx(n1)), b.Select(c, one, zero))
		n1 += int64(len(sextInputs))
	}
	put2 := func(v kir.Value) {
		b.Store(2, b.Bin(kir.Add, w, b.Idx(n2)), v)
		n2 += int64(len(sextInputs))
	}
	put2(y)
	for _, c := range cs {
		cv := b.Int(vt(kir.I64), c)
		for _, p := range []kir.Pred{kir.PredSLT, kir.PredSLE, kir.PredSGT, kir.PredSGE} {
			put1(b.Cmp(kir.CmpI, p, y, cv))
			put1(b.Cmp(kir.CmpI, p, cv, y))
		}
		put2(b.Bin(kir.MaxS, y, cv))
		put2(b.Bin(kir.MinS, cv, y))
	}
	return k
}

// sextInputs are the i32 values the kernel compares.
var sextInputs = []int64{-3, 4, -1, 0, 7, -100, -1 << 31, 1<<31 - 1, 5, -2, 1, -65536}

func TestSignExtensionIsNoSConvert(t *testing.T) {
	k := sextCompareKernel(1, []int64{0})
	e, err := spirv.Emit(k, spirv.Options{Capabilities: allCaps})
	if err != nil {
		t.Fatal(err)
	}
	const opSConvert = 114
	words := e.SPIRV
	for i := 20; i+4 <= len(words); {
		w := binary.LittleEndian.Uint32(words[i:])
		if w&0xffff == opSConvert {
			t.Fatalf("extsi i32 → i64 is an OpSConvert, which lavapipe's comparisons with constants get wrong")
		}
		n := int(w >> 16)
		if n == 0 {
			break
		}
		i += 4 * n
	}
}

func TestRunSignExtendedCompares(t *testing.T) {
	// Workgroup w compares the lanes inputs from w·lanes with every
	// constant, on both sides and with every signed predicate.
	cs := []int64{0, 1, -1, 3, 1 << 31, -1<<31 - 1, 1 << 40}
	for _, lanes := range []int{1, 4} {
		k := sextCompareKernel(lanes, cs)
		groups := len(sextInputs) / lanes
		in := [][]byte{targettest.EncInts(kir.I32, sextInputs), make([]byte, 4*8*len(cs)*len(sextInputs)), make([]byte, 8*(1+2*len(cs))*len(sextInputs))}
		want, got := runBoth(t, k, [3]int64{int64(groups), 1, 1}, nil, in)
		compare(t, k, want, got, exact)
	}
}
