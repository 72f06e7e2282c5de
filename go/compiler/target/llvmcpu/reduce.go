package llvmcpu

import (
	"fmt"
	"math"
	"strings"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/status"
)

// reduce combines the lanes of x (type t) in lane order.
func (f *fn) reduce(r kir.ReduceKind, t kir.Type, x string) (string, error) {
	if !t.IsVector() {
		return x, nil
	}
	st := kir.S(t.Elem)
	m := mangle(t.Elem, t.Width())
	if t.Elem.IsInt() {
		name := map[kir.ReduceKind]string{kir.ReduceAdd: "add", kir.ReduceMul: "mul", kir.ReduceMinS: "smin", kir.ReduceMaxS: "smax", kir.ReduceMinU: "umin", kir.ReduceMaxU: "umax", kir.ReduceAnd: "and", kir.ReduceOr: "or", kir.ReduceXor: "xor"}[r]
		if name == "" {
			return "", status.Errorf(status.Unimplemented, "reduction %d on integers", r)
		}
		return f.call(ty(st), "llvm.vector.reduce."+name+m, ty(t), x), nil
	}
	if t.Elem == kir.F32 || t.Elem == kir.F64 {
		switch r {
		case kir.ReduceAdd:
			return f.call(ty(st), "llvm.vector.reduce.fadd"+m, ty(st), floatLit(t.Elem, math.Copysign(0, -1)), ty(t), x), nil
		case kir.ReduceMul:
			return f.call(ty(st), "llvm.vector.reduce.fmul"+m, ty(st), floatLit(t.Elem, 1), ty(t), x), nil
		case kir.ReduceMinF:
			return f.call(ty(st), "llvm.vector.reduce.fminimum"+m, ty(t), x), nil
		case kir.ReduceMaxF:
			return f.call(ty(st), "llvm.vector.reduce.fmaximum"+m, ty(t), x), nil
		}
		return "", status.Errorf(status.Unimplemented, "reduction %d on floats", r)
	}
	// f16, bf16: lane by lane in f32, rounding every step.
	k := map[kir.ReduceKind]kir.Kind{kir.ReduceAdd: kir.Add, kir.ReduceMul: kir.Mul, kir.ReduceMinF: kir.MinF, kir.ReduceMaxF: kir.MaxF}[r]
	if k == 0 {
		return "", status.Errorf(status.Unimplemented, "reduction %d on %s", r, t.Elem)
	}
	// The lanes go through the stack; a loop combines them.
	n := t.Width()
	f.scratchFor((n + 1) / 2) // n 16-bit lanes fit in n/4 f64 slots
	f.emitf("store %s %s, ptr %%scratch, align 8", ty(t), x)
	first := f.t()
	f.emitf("%s = extractelement %s %s, i64 0", first, ty(t), x)
	pre, loop, done := f.cur, f.newLabel("red"), f.newLabel("red.end")
	i, acc, next := f.t(), f.t(), f.t()
	f.emitf("br label %%%s", loop)
	f.startBlock(loop)
	var accNext string
	marker := fmt.Sprintf("  ;@@REDPHI%s@@\n", loop)
	f.b.WriteString(marker)
	p, e := f.t(), f.t()
	f.emitf("%s = getelementptr inbounds %s, ptr %%scratch, i64 %s", p, scalarTy(t.Elem), i)
	f.emitf("%s = load %s, ptr %s, align 2", e, scalarTy(t.Elem), p)
	v, err := f.floatBinary(k, st, acc, e)
	if err != nil {
		return "", err
	}
	accNext = v
	f.emitf("%s = add i64 %s, 1", next, i)
	more := f.t()
	f.emitf("%s = icmp ult i64 %s, %d", more, next, n)
	end := f.cur
	f.emitf("br i1 %s, label %%%s, label %%%s", more, loop, done)
	phis := fmt.Sprintf("  %s = phi i64 [ 1, %%%s ], [ %s, %%%s ]\n  %s = phi %s [ %s, %%%s ], [ %s, %%%s ]\n",
		i, pre, next, end, acc, scalarTy(t.Elem), first, pre, accNext, end)
	text := strings.Replace(f.b.String(), marker, phis, 1)
	f.b.Reset()
	f.b.WriteString(text)
	f.startBlock(done)
	return accNext, nil
}
