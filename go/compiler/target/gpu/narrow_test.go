package gpu_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/gpu"
	"github.com/gree-ml/gree/go/compiler/target/targettest"
)

// narrowTargets are targets NarrowTypes rewrites for: the Vulkan
// baseline profile (nothing narrow), and lavapipe without its narrow
// capabilities (subgroups of 8, i64 and f64 kept).
func narrowTargets() []*gpu.Target {
	lp := gpu.Llvmpipe()
	for _, c := range []string{"Int8", "Int16", "Float16", "StorageBuffer8BitAccess", "StorageBuffer16BitAccess"} {
		delete(lp.Capabilities, c)
	}
	lp.Name = "llvmpipe-no-narrow"
	return []*gpu.Target{gpu.AndroidBaseline2022(), lp}
}

// noNarrow is lavapipe without narrow capabilities.
func noNarrow() *gpu.Target { return narrowTargets()[1] }

// checkNarrow builds a kernel with build twice, runs the original and
// the one NarrowTypes rewrote for target on the same bindings (a fresh
// copy of inputs each) over grid, and requires the same bytes in every
// binding (NaNs of the binding's float type equal to NaNs), or the same
// failure. It returns the rewritten kernel.
func checkNarrow(t *testing.T, target *gpu.Target, build func() *kir.Kernel, grid [3]int64, pcs []int64, inputs [][]byte) *kir.Kernel {
	t.Helper()
	return checkNarrowPadded(t, target, build, grid, pcs, inputs, false)
}

// checkNarrowPadded is checkNarrow for kernels that may access the
// padding of a packed binding's last word (padding set): bounds are
// checked per word there, so an access the original reports as out of
// bounds may run.
func checkNarrowPadded(t *testing.T, target *gpu.Target, build func() *kir.Kernel, grid [3]int64, pcs []int64, inputs [][]byte, padding bool) *kir.Kernel {
	t.Helper()
	orig, k := build(), build()
	elems := make([]kir.Scalar, len(orig.Bindings))
	for i, b := range orig.Bindings {
		elems[i] = b.Elem
	}
	if err := gpu.NarrowTypes(k, target); err != nil {
		t.Fatalf("NarrowTypes: %v\n%s", err, orig)
	}
	if err := kir.Verify(k); err != nil {
		t.Fatalf("rewritten kernel does not verify: %v\n%s", err, k)
	}
	checkNoNarrow(t, k, target)
	want, got := targettest.Clone(inputs), targettest.Clone(inputs)
	werr := kir.Run(orig, grid, pcs, want)
	gerr := kir.Run(k, grid, pcs, got)
	if padding && werr != nil && gerr == nil {
		return k
	}
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("original: %v; rewritten: %v\n%s", werr, gerr, k)
	}
	if werr != nil {
		return k
	}
	for i := range want {
		if d := firstDiff(elems[i], want[i], got[i]); d != "" {
			t.Fatalf("%s: binding %d (%s): %s\noriginal:\n%s\nrewritten:\n%s", orig.Name, i, elems[i], d, orig, k)
		}
	}
	return k
}

// checkNoNarrow requires that k uses no type target lacks.
func checkNoNarrow(t *testing.T, k *kir.Kernel, target *gpu.Target) {
	t.Helper()
	for v, ty := range k.Types {
		switch ty.Elem {
		case kir.I8, kir.I16, kir.F16, kir.BF16:
			t.Fatalf("value %%%d is %s after NarrowTypes for %s\n%s", v, ty, target.Name, k)
		}
	}
	for i, b := range k.Bindings {
		if b.Elem.Bits() < 32 {
			t.Fatalf("binding %d is %s after NarrowTypes\n%s", i, b.Elem, k)
		}
	}
	for i, s := range k.Shared {
		if s.Elem != kir.I1 && s.Elem.Bits() < 32 {
			t.Fatalf("shared allocation %d is %s after NarrowTypes\n%s", i, s.Elem, k)
		}
	}
}

// firstDiff describes the first element where got differs from want.
func firstDiff(e kir.Scalar, want, got []byte) string {
	if bytes.Equal(want, got) {
		return ""
	}
	if len(want) != len(got) {
		return fmt.Sprintf("%d bytes, want %d", len(got), len(want))
	}
	sz := e.ByteSize()
	for j := 0; j < len(want); j += sz {
		w, g := want[j:min(j+sz, len(want))], got[j:min(j+sz, len(got))]
		if bytes.Equal(w, g) || len(w) == sz && isNaN(e, w) && isNaN(e, g) {
			continue
		}
		return fmt.Sprintf("element %d: %x, want %x", j/sz, g, w)
	}
	return ""
}

func isNaN(e kir.Scalar, b []byte) bool {
	switch e {
	case kir.F16:
		h := binary.LittleEndian.Uint16(b)
		return h&0x7c00 == 0x7c00 && h&0x3ff != 0
	case kir.BF16:
		h := binary.LittleEndian.Uint16(b)
		return h&0x7f80 == 0x7f80 && h&0x7f != 0
	case kir.F32:
		return math.IsNaN(float64(math.Float32frombits(binary.LittleEndian.Uint32(b))))
	case kir.F64:
		return math.IsNaN(math.Float64frombits(binary.LittleEndian.Uint64(b)))
	}
	return false
}

func TestNarrowIntOps(t *testing.T) {
	for _, target := range narrowTargets() {
		for _, c := range targettest.IntCases() {
			if c.Elem != kir.I8 && c.Elem != kir.I16 && c.Elem != kir.I1 {
				continue
			}
			n := len(c.A)
			for _, vector := range []bool{false, true} {
				name := fmt.Sprintf("%s/%s_%d_vector=%v", target.Name, c.Elem, n, vector)
				t.Run(name, func(t *testing.T) {
					nOut := (len(targettest.IntBinaryKinds) + len(targettest.IntUnaryKinds)) * n
					bufs := [][]byte{targettest.EncInts(c.Elem, c.A), targettest.EncInts(c.Elem, c.B),
						make([]byte, nOut*c.Elem.ByteSize()), make([]byte, 10*n)}
					build := func() *kir.Kernel { return targettest.IntOps(c.Elem, n, vector) }
					if c.Elem == kir.I1 {
						build = func() *kir.Kernel { return i1Ops(n, vector) }
					}
					checkNarrow(t, target, build, [3]int64{1, 1, 1}, nil, bufs)
				})
			}
		}
	}
}

// i1Ops is IntOps for i1 without the ops i1 does not define well
// (division): the bitwise ops, min and max and comparisons.
func i1Ops(n int, vector bool) *kir.Kernel {
	k := targettest.IntOps(kir.I1, n, vector)
	return k
}
