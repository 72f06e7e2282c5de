package spirv_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/gpu"
	"github.com/gree-ml/gree/go/compiler/target/spirv"
	"github.com/gree-ml/gree/go/compiler/target/targettest"
	schema "github.com/gree-ml/gree/go/schemas/spirv"
)

// TestRunAtomics runs atomics of the threads of several workgroups on
// shared words, and one out of bounds (reported, nothing written).
func TestRunAtomics(t *testing.T) {
	k := targettest.AtomicBits()
	emit(t, k)
	const wgs = 5
	buf := make([]byte, 16*wgs)
	for i := 8 * wgs; i < len(buf); i++ {
		buf[i] = 0x5a
	}
	want, got := runBoth(t, k, [3]int64{wgs, 1, 1}, nil, [][]byte{buf})
	compare(t, k, want, got, exact)
	want, got = runBoth(t, k, [3]int64{wgs, 1, 1}, nil, [][]byte{buf[:16*wgs-4]})
	if want.err == nil || got.code == 0 {
		t.Fatalf("out of bounds: interpreter %v, module status %#x", want.err, got.code)
	}
}

// noNarrow is lavapipe without 8- and 16-bit types (i64, f64 and
// subgroup operations kept).
func noNarrow() *gpu.Target {
	t := gpu.Llvmpipe()
	for _, c := range []string{"Int8", "Int16", "Float16", "StorageBuffer8BitAccess", "StorageBuffer16BitAccess"} {
		delete(t.Capabilities, c)
	}
	return t
}

// runNarrow legalizes a kernel build makes with gpu.NarrowTypes for
// lavapipe without narrow types, emits it with only that target's
// capabilities, runs it on the device on the inputs (each padded to whole
// words, as the Vulkan driver binds them) and the original kernel on the
// interpreter, and compares the bindings: integers exactly, floats within
// tol ULPs of their type.
func runNarrow(t *testing.T, build func() *kir.Kernel, grid [3]int64, pcs []int64, inputs [][]byte, tol float64) {
	t.Helper()
	r := device(t)
	target := noNarrow()
	orig, k := build(), build()
	if err := gpu.NarrowTypes(k, target); err != nil {
		t.Fatalf("NarrowTypes: %v\n%s", err, orig)
	}
	caps := map[string]bool{}
	for c, ok := range target.Capabilities {
		caps[c] = ok
	}
	e, err := spirv.Emit(k, spirv.Options{Capabilities: caps, SubgroupSize: target.SubgroupSize})
	if err != nil {
		t.Fatalf("%v\n%s", err, k)
	}
	validate(t, k.Name, e.SPIRV, "vulkan1.1")
	var want, got outcome
	want.bufs = targettest.Clone(inputs)
	want.err = kir.Run(orig, grid, pcs, want.bufs)
	padded := make([][]byte, len(inputs))
	for i, in := range inputs {
		padded[i] = make([]byte, (len(in)+3)&^3)
		copy(padded[i], in)
	}
	got.code, err = r.run(e, grid, pcs, padded)
	if err != nil {
		t.Fatalf("%s: %v", k.Name, err)
	}
	got.bufs = make([][]byte, len(inputs))
	for i, in := range inputs {
		got.bufs[i] = padded[i][:len(in)]
	}
	if (want.err != nil) != (got.code != 0) {
		t.Fatalf("%s: interpreter error %v, module status %#x (%s)", k.Name, want.err, got.code, schema.Describe(got.code))
	}
	compare(t, orig, want, got, func(int, int) float64 { return tol })
}

func TestRunNarrowIntOps(t *testing.T) {
	for _, c := range targettest.IntCases() {
		if c.Elem != kir.I8 && c.Elem != kir.I16 && c.Elem != kir.I1 {
			continue
		}
		n := len(c.A)
		for _, vector := range []bool{n <= 12, true} {
			nOut := (len(targettest.IntBinaryKinds) + len(targettest.IntUnaryKinds)) * n
			bufs := [][]byte{targettest.EncInts(c.Elem, c.A), targettest.EncInts(c.Elem, c.B),
				make([]byte, nOut*c.Elem.ByteSize()), make([]byte, 10*n)}
			runNarrow(t, func() *kir.Kernel { return targettest.IntOps(c.Elem, n, vector) }, [3]int64{1, 1, 1}, nil, bufs, 0)
		}
	}
}

// TestRunNarrowFloats runs FloatChain on f16 and bf16 held in f32, each
// op rounded to the narrow type by integer operations: exactly the
// interpreter's results (the f32 ops FloatChain uses are exact on the
// device, as TestRunFloatOps requires of them).
func TestRunNarrowFloats(t *testing.T) {
	for _, s := range []kir.Scalar{kir.F16, kir.BF16} {
		const n = 61
		xs, ys := floatInputs(n, 1, specialX), floatInputs(n, 2, specialY)
		in := [][]byte{targettest.EncFloats(s, xs), targettest.EncFloats(s, ys), make([]byte, 2*n)}
		build := func() *kir.Kernel { return targettest.Elementwise("chain", s, s, 4, 16, targettest.FloatChain) }
		runNarrow(t, build, [3]int64{(n + 15) / 16, 1, 1}, []int64{n}, in, 0)
	}
}

// narrowCopy loads w lanes of e from binding 0 at push constant 0 and
// stores them to binding 1 at push constant 1, or, with threads > 1,
// has each thread g copy w lanes at g·w (neighbouring threads storing
// into the same words).
func narrowCopy(e kir.Scalar, w, threads int) *kir.Kernel {
	k, b := kir.NewKernel(fmt.Sprintf("copy_%s_%d_%d", e, w, threads))
	k.Bindings = []kir.Binding{{Elem: e, Access: kir.Read}, {Elem: e, Access: kir.ReadWrite}}
	k.NumPushConstants = 2
	k.WorkgroupSize = [3]int{threads, 1, 1}
	t := kir.V(e, w)
	if w == 1 {
		t = kir.S(e)
	}
	src, dst := b.Query(kir.PushConstant, 0), b.Query(kir.PushConstant, 1)
	if threads > 1 {
		g := b.Bin(kir.Add, b.Bin(kir.Mul, b.Query(kir.WorkgroupID, 0), b.Idx(int64(threads))), b.Query(kir.ThreadID, 0))
		src = b.Bin(kir.Mul, g, b.Idx(int64(w)))
		dst = src
	}
	b.Store(1, dst, b.Load(0, t, src))
	return k
}

// TestRunNarrowMemory copies packed elements between buffers that end
// in partial words, at aligned and unaligned offsets, and from many
// threads into neighbouring elements of shared words.
func TestRunNarrowMemory(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	bytes := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	for _, e := range []kir.Scalar{kir.I1, kir.I8, kir.I16, kir.F16, kir.BF16} {
		for _, w := range []int{1, 3, 4} {
			const n = 11
			for _, off := range [][2]int64{{0, 4}, {1, 6}, {n - int64(w), 0}, {4, n - int64(w)}} {
				runNarrow(t, func() *kir.Kernel { return narrowCopy(e, w, 1) }, [3]int64{1, 1, 1}, off[:], [][]byte{bytes(n * e.ByteSize()), bytes(n * e.ByteSize())}, 0)
			}
			const threads, wgs = 64, 3
			m := threads * wgs * w * e.ByteSize()
			runNarrow(t, func() *kir.Kernel { return narrowCopy(e, w, threads) }, [3]int64{wgs, 1, 1}, []int64{0, 0}, [][]byte{bytes(m), bytes(m)}, 0)
		}
	}
}
