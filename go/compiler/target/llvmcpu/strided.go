package llvmcpu

import (
	"fmt"
	"strings"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// maxSpanStride is the largest constant stride whose strided access is
// emitted as one contiguous access of the span it covers: a span of
// (n-1)·stride+1 elements costs about stride vector loads, still far
// cheaper than n gathered lanes up to this stride.
const maxSpanStride = 8

// foldConst records op's result in f.consts when it is a scalar integer
// known at compile time: a constant, or the sum, difference or product
// of two known values (wrapping, as LLVM's add, sub and mul do).
func (f *fn) foldConst(op *kir.Op, rt kir.Type) {
	if len(op.Results) != 1 || rt.IsVector() || !rt.Elem.IsInt() {
		return
	}
	switch op.Kind {
	case kir.ConstInt:
		f.consts[op.Results[0]] = op.Imm
	case kir.Add, kir.Sub, kir.Mul:
		a, aok := f.consts[op.Args[0]]
		b, bok := f.consts[op.Args[1]]
		if !aok || !bok {
			return
		}
		switch op.Kind {
		case kir.Add:
			f.consts[op.Results[0]] = a + b
		case kir.Sub:
			f.consts[op.Results[0]] = a - b
		default:
			f.consts[op.Results[0]] = a * b
		}
	}
}

// spanStride returns the constant stride of a strided access of n lanes
// when it is emitted as a contiguous span (2 ≤ stride ≤ maxSpanStride).
func (f *fn) spanStride(stride kir.Value, n int) (int, bool) {
	s, ok := f.consts[stride]
	if !ok || n < 2 || s < 2 || s > maxSpanStride {
		return 0, false
	}
	return int(s), true
}

// laneMask is the shufflevector mask <0, s, 2s, …> of n lanes.
func laneMask(n, s int) string {
	var b strings.Builder
	b.WriteString("<")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "i32 %d", i*s)
	}
	b.WriteString(">")
	return b.String()
}

// loadSpan loads the n lanes at off, off+s, … as one load of the
// (n-1)·s+1 elements they span (all inside the buffer: the caller's
// bounds check covers off and the last lane) and picks every s-th lane.
func (f *fn) loadSpan(base string, elem kir.Scalar, off string, s, n int) string {
	span := (n-1)*s + 1
	st := vecOf(memTy(elem), span)
	p, x, r := f.t(), f.t(), f.t()
	f.emitf("%s = getelementptr inbounds %s, ptr %s, i64 %s", p, memTy(elem), base, off)
	f.emitf("%s = load %s, ptr %s, align %d", x, st, p, elem.ByteSize())
	f.emitf("%s = shufflevector %s %s, %s poison, <%d x i32> %s", r, st, x, st, n, laneMask(n, s))
	return r
}

// storeSpan stores the n lanes of x (memory type mt) at off, off+s, … as
// one masked store over the span they cover: the elements between the
// lanes are not written.
func (f *fn) storeSpan(base string, elem kir.Scalar, off, mt, x string, s, n int) {
	span := (n-1)*s + 1
	st := vecOf(memTy(elem), span)
	var idx, mask strings.Builder
	idx.WriteString("<")
	mask.WriteString("<")
	for j := 0; j < span; j++ {
		if j > 0 {
			idx.WriteString(", ")
			mask.WriteString(", ")
		}
		if j%s == 0 {
			fmt.Fprintf(&idx, "i32 %d", j/s)
			mask.WriteString("i1 true")
		} else {
			idx.WriteString("i32 poison")
			mask.WriteString("i1 false")
		}
	}
	idx.WriteString(">")
	mask.WriteString(">")
	p, w := f.t(), f.t()
	f.emitf("%s = getelementptr inbounds %s, ptr %s, i64 %s", p, memTy(elem), base, off)
	f.emitf("%s = shufflevector %s %s, %s poison, <%d x i32> %s", w, mt, x, mt, span, idx.String())
	name := "llvm.masked.store" + vecMangle(elem, span) + ".p0"
	f.emitf("call void @%s(%s %s, ptr %s, i32 %d, %s %s)", name, st, w, p, elem.ByteSize(), vecOf("i1", span), mask.String())
	f.mo.declare(name, fmt.Sprintf("declare void @%s(%s, ptr, i32, %s)", name, st, vecOf("i1", span)))
}
