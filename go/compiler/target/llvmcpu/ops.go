package llvmcpu

import (
	"fmt"
	"strings"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/status"
)

// op emits one op without regions.
func (f *fn) op(op *kir.Op) error {
	k := op.Kind
	var rt kir.Type
	if len(op.Results) == 1 {
		rt = f.k.Types[op.Results[0]]
	}
	res := func(s string) { f.set(op.Results[0], s) }
	n := rt.Width()
	f.foldConst(op, rt)
	switch {
	case k == kir.ConstInt:
		res(splat(scalarTy(rt.Elem), n, intLit(rt.Elem, op.Imm)))
	case k == kir.ConstFloat:
		res(splat(scalarTy(rt.Elem), n, floatLit(rt.Elem, op.F)))
	case k == kir.PushConstant:
		p, r := f.t(), f.t()
		f.emitf("%s = getelementptr inbounds i64, ptr %%push, i64 %d", p, op.Imm)
		f.emitf("%s = load i64, ptr %s, align 8", r, p)
		res(r)
	case k == kir.WorkgroupID:
		res([3]string{"%wx", "%wy", "%wz"}[op.Imm])
	case k == kir.WorkgroupCount:
		res(fmt.Sprintf("%%gc%d", op.Imm))
	case k == kir.ThreadID, k == kir.LaneID:
		res("0")
	case k == kir.WorkgroupSize:
		res(fmt.Sprint(f.k.WorkgroupSize[op.Imm]))
	case k == kir.SubgroupSize:
		res("1")
	case k == kir.Add || k == kir.Sub || k == kir.Mul || kir.IsIntBinary(k) || kir.IsFloatBinary(k):
		a, b := f.v(op.Args[0]), f.v(op.Args[1])
		var r string
		var err error
		if rt.Elem.IsInt() {
			r, err = f.intBinary(k, rt, a, b)
		} else {
			r, err = f.floatBinary(k, rt, a, b)
		}
		if err != nil {
			return err
		}
		res(r)
	case kir.IsUnary(k):
		var r string
		var err error
		if rt.Elem.IsInt() {
			r, err = f.intUnary(k, rt, f.v(op.Args[0]))
		} else {
			r, err = f.floatUnary(k, rt, f.v(op.Args[0]))
		}
		if err != nil {
			return err
		}
		res(r)
	case k == kir.IsNaN || k == kir.IsInf || k == kir.IsFinite:
		at := f.k.Types[op.Args[0]]
		x := f.toF32(at, f.v(op.Args[0]))
		xt := wideTy(at)
		r := f.t()
		switch k {
		case kir.IsNaN:
			f.emitf("%s = fcmp uno %s %s, %s", r, xt, x, x)
		default:
			abs := f.call(xt, "llvm.fabs"+mangle(wideElem(at.Elem), at.Width()), xt, x)
			pred := "oeq"
			if k == kir.IsFinite {
				pred = "one"
			}
			f.emitf("%s = fcmp %s %s %s, %s", r, pred, xt, abs, splat(scalarTy(wideElem(at.Elem)), at.Width(), floatLit(wideElem(at.Elem), inf)))
		}
		res(r)
	case k == kir.FMA:
		res(f.fma(rt, f.v(op.Args[0]), f.v(op.Args[1]), f.v(op.Args[2])))
	case k == kir.Select:
		r := f.t()
		f.emitf("%s = select %s, %s, %s", r, f.typed(op.Args[0]), f.typed(op.Args[1]), f.typed(op.Args[2]))
		res(r)
	case k == kir.CmpI:
		r := f.t()
		preds := [...]string{"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"}
		f.emitf("%s = icmp %s %s, %s", r, preds[op.Imm], f.typed(op.Args[0]), f.v(op.Args[1]))
		res(r)
	case k == kir.CmpF:
		preds := [...]string{"false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true"}
		at := f.k.Types[op.Args[0]]
		a, b := f.toF32(at, f.v(op.Args[0])), f.toF32(at, f.v(op.Args[1]))
		r := f.t()
		f.emitf("%s = fcmp %s %s %s, %s", r, preds[op.Imm], wideTy(at), a, b)
		res(r)
	case kir.IsCast(k):
		r, err := f.cast(k, f.k.Types[op.Args[0]], rt, f.v(op.Args[0]))
		if err != nil {
			return err
		}
		res(r)
	case k == kir.Broadcast:
		res(f.broadcast(rt, f.v(op.Args[0])))
	case k == kir.Extract:
		r := f.t()
		f.emitf("%s = extractelement %s, i64 %d", r, f.typed(op.Args[0]), op.Imm)
		res(r)
	case k == kir.Insert:
		r := f.t()
		f.emitf("%s = insertelement %s, %s, i64 %d", r, f.typed(op.Args[0]), f.typed(op.Args[1]), op.Imm)
		res(r)
	case k == kir.LaneIota:
		st := scalarTy(rt.Elem)
		lit := "<"
		for i := 0; i < n; i++ {
			if i > 0 {
				lit += ", "
			}
			lit += st + " " + intLit(rt.Elem, int64(i))
		}
		if n <= 1 {
			res("0")
		} else {
			res(lit + ">")
		}
	case k == kir.Reduce:
		r, err := f.reduce(kir.ReduceKind(op.Imm), f.k.Types[op.Args[0]], f.v(op.Args[0]))
		if err != nil {
			return err
		}
		res(r)
	case k == kir.SubgroupReduce || k == kir.SubgroupShuffle:
		// One thread per workgroup: a subgroup of one.
		res(f.v(op.Args[0]))
	case k == kir.Barrier:
	case k == kir.Load || k == kir.LoadStrided || k == kir.LoadShared:
		res(f.load(op, rt))
	case k == kir.Store || k == kir.StoreStrided || k == kir.StoreShared:
		f.store(op)
	case k == kir.AtomicRMW:
		return status.Errorf(status.Unimplemented, "op %s stores packed narrow elements of a GPU-legalized kernel (package gpu); llvm-cpu kernels are never legalized for GPUs, so it has no llvm-cpu lowering", k)
	case k == kir.FetchAdd || k == kir.SpinUntil:
		f.counter(op)
	case k == kir.Contract:
		f.contract(op)
	case k == kir.DWConv:
		return f.dwconv(op)
	default:
		return status.Errorf(status.Unimplemented, "op %s has no llvm-cpu lowering", k)
	}
	return nil
}

// call emits a call to a function declared on first use and returns its
// result; args alternate types and operands.
func (f *fn) call(rty, name string, args ...string) string {
	var list, types []string
	for i := 0; i+1 < len(args); i += 2 {
		list = append(list, args[i]+" "+args[i+1])
		types = append(types, args[i])
	}
	r := f.t()
	f.emitf("%s = call %s @%s(%s)", r, rty, name, strings.Join(list, ", "))
	f.mo.declare(name, fmt.Sprintf("declare %s @%s(%s)", rty, name, strings.Join(types, ", ")))
	return r
}

// broadcast splats scalar x to vector type t.
func (f *fn) broadcast(t kir.Type, x string) string {
	if !t.IsVector() {
		return x
	}
	st := scalarTy(t.Elem)
	ins, r := f.t(), f.t()
	f.emitf("%s = insertelement <1 x %s> poison, %s %s, i64 0", ins, st, st, x)
	f.emitf("%s = shufflevector <1 x %s> %s, <1 x %s> poison, <%d x i32> zeroinitializer", r, st, ins, st, t.Width())
	return r
}
