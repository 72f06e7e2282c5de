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
		if x, ok := foldInt(op.Kind, a, b); ok {
			f.consts[op.Results[0]] = x
		}
	}
}

// foldInt is integer op kind (Add, Sub, Mul, MinS or MaxS; wrapping, as
// LLVM's add, sub and mul) on known operands, false for other kinds: the
// compile-time arithmetic of strided spans (foldConst) and of the static
// grid (mayNeedColBlocks).
func foldInt(kind kir.Kind, a, b int64) (int64, bool) {
	switch kind {
	case kir.Add:
		return a + b, true
	case kir.Sub:
		return a - b, true
	case kir.Mul:
		return a * b, true
	case kir.MinS:
		return min(a, b), true
	case kir.MaxS:
		return max(a, b), true
	}
	return 0, false
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

// loadSpan loads the n lanes at off, off+s, … as loads of the (n-1)·s+1
// elements they span (all inside the buffer: the caller's bounds check
// covers off and the last lane) and picks every s-th lane. The span is
// read as n-element pieces, the last one ending at the span's last
// element (overlapping the one before), never as one load of the span's
// odd length: LLVM split such a load (63 floats for a stride-2 vector of
// 32) into a dozen partial loads and inserts, a 3×3/2 max pool's whole
// inner loop.
func (f *fn) loadSpan(base string, elem kir.Scalar, off string, s, n int) string {
	span := (n-1)*s + 1
	k := (span + n - 1) / n
	last := span - n // where the last piece starts
	vt := vecOf(memTy(elem), n)
	p := f.t()
	f.emitf("%s = getelementptr inbounds %s, ptr %s, i64 %s", p, memTy(elem), base, off)
	var cat string
	for i := 0; i < k; i++ {
		start := i * n
		if i == k-1 {
			start = last
		}
		q, x := f.t(), f.t()
		f.emitf("%s = getelementptr inbounds %s, ptr %s, i64 %d", q, memTy(elem), p, start)
		f.emitf("%s = load %s, ptr %s, align %d", x, vt, q, elem.ByteSize())
		if i == 0 {
			cat = x
			continue
		}
		// Append x to the i·n elements gathered so far (widened to
		// their length first: the lanes past x's are poison).
		w := x
		if i > 1 {
			w = f.t()
			wide := upTo(i * n)
			for j := n; j < len(wide); j++ {
				wide[j] = -1
			}
			f.emitf("%s = shufflevector %s %s, %s poison, %s", w, vt, x, vt, i32Vec(wide))
		}
		c, ct := f.t(), vecOf(memTy(elem), i*n)
		f.emitf("%s = shufflevector %s %s, %s %s, %s", c, ct, cat, ct, w, i32Vec(upTo((i+1)*n)))
		cat = c
	}
	pick := make([]int, n)
	for j := range pick {
		if e := j * s; e < last {
			pick[j] = e
		} else {
			pick[j] = (k-1)*n + e - last
		}
	}
	r, ct := f.t(), vecOf(memTy(elem), k*n)
	f.emitf("%s = shufflevector %s %s, %s poison, %s", r, ct, cat, ct, i32Vec(pick))
	return r
}

// upTo returns 0, 1, …, n-1 (a shufflevector's lanes in order).
func upTo(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
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
