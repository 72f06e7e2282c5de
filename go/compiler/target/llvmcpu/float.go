package llvmcpu

import (
	"fmt"
	"math"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/status"
)

// floatBinary emits a float binary op; f16 and bf16 compute in f32.
func (f *fn) floatBinary(k kir.Kind, t kir.Type, a, b string) (string, error) {
	switch k {
	case kir.CopySign:
		ti := with(t, kir.Scalar(intOfWidth(t.Elem.Bits())))
		ai, bi := f.t(), f.t()
		f.emitf("%s = bitcast %s %s to %s", ai, ty(t), a, ty(ti))
		f.emitf("%s = bitcast %s %s to %s", bi, ty(t), b, ty(ti))
		sign := int64(-1) << (t.Elem.Bits() - 1)
		m := f.bin("and", ti, ai, ilit(ti, ^sign))
		s := f.bin("and", ti, bi, ilit(ti, sign))
		o := f.bin("or", ti, m, s)
		r := f.t()
		f.emitf("%s = bitcast %s %s to %s", r, ty(ti), o, ty(t))
		return r, nil
	case kir.PowF, kir.Atan2:
		name := map[kir.Kind]string{kir.PowF: "pow", kir.Atan2: "atan2"}[k]
		return f.fromDouble(t, f.libm(name, t.Width(), f.toDouble(t, a), f.toDouble(t, b))), nil
	}
	wt := with(t, wideElem(t.Elem))
	x, y := f.toF32(t, a), f.toF32(t, b)
	var r string
	switch k {
	case kir.Add, kir.Sub, kir.Mul, kir.DivF, kir.RemF:
		op := map[kir.Kind]string{kir.Add: "fadd", kir.Sub: "fsub", kir.Mul: "fmul", kir.DivF: "fdiv", kir.RemF: "frem"}[k]
		r = f.bin(op, wt, x, y)
	case kir.MinF, kir.MaxF:
		r = f.minMax(t, wt, x, y, k == kir.MaxF)
	case kir.MinNumF, kir.MaxNumF:
		m := f.minMax(t, wt, x, y, k == kir.MaxNumF)
		xn, yn := f.t(), f.t()
		f.emitf("%s = fcmp uno %s %s, %s", xn, ty(wt), x, x)
		f.emitf("%s = fcmp uno %s %s, %s", yn, ty(wt), y, y)
		r = f.sel(wt, xn, y, f.sel(wt, yn, x, m))
	default:
		return "", status.Errorf(status.Unimplemented, "float op %s has no llvm-cpu lowering", k)
	}
	return f.fromWide(t, r), nil
}

// minMax emits minimumf/maximumf (NaN-propagating, -0 < +0) on wide
// values. f32 and f64 use LLVM's intrinsics; f16 and bf16 compute in f32
// with compares and selects, because LLVM narrows the intrinsic on
// extended operands to a half-precision one that x86 lowers without its
// NaN semantics.
func (f *fn) minMax(t, wt kir.Type, x, y string, isMax bool) string {
	if wt.Elem == t.Elem {
		name := "llvm.minimum"
		if isMax {
			name = "llvm.maximum"
		}
		return f.intrinsic(name, wt, x, y)
	}
	pred, tie := "olt", "or"
	if isMax {
		pred, tie = "ogt", "and"
	}
	c, eq, uno := f.fcmp(pred, wt, x, y), f.fcmp("oeq", wt, x, y), f.fcmp("uno", wt, x, y)
	r := f.sel(wt, c, x, y)
	ti := with(wt, kir.I32)
	xi, yi, tf := f.t(), f.t(), f.t()
	f.emitf("%s = bitcast %s %s to %s", xi, ty(wt), x, ty(ti))
	f.emitf("%s = bitcast %s %s to %s", yi, ty(wt), y, ty(ti))
	f.emitf("%s = bitcast %s %s to %s", tf, ty(ti), f.bin(tie, ti, xi, yi), ty(wt))
	r = f.sel(wt, eq, tf, r)
	return f.sel(wt, uno, cst(wt, floatLit(kir.F32, math.NaN())), r)
}

func intOfWidth(bits int) kir.Scalar {
	switch bits {
	case 16:
		return kir.I16
	case 32:
		return kir.I32
	}
	return kir.I64
}

// libmDouble names the libm function of each transcendental op (computed
// in f64, as kir.Run computes them).
var libmDouble = map[kir.Kind]string{
	kir.Cbrt: "cbrt", kir.Exp: "exp", kir.Exp2: "exp2", kir.Expm1: "expm1", kir.Log: "log",
	kir.Log2: "log2", kir.Log10: "log10", kir.Log1p: "log1p", kir.Sin: "sin", kir.Cos: "cos",
	kir.Tan: "tan", kir.Sinh: "sinh", kir.Cosh: "cosh", kir.Tanh: "tanh", kir.Asin: "asin",
	kir.Acos: "acos", kir.Atan: "atan", kir.Asinh: "asinh", kir.Acosh: "acosh", kir.Atanh: "atanh",
	kir.Erf: "erf", kir.Erfc: "erfc",
}

// floatUnary emits a float unary op.
func (f *fn) floatUnary(k kir.Kind, t kir.Type, a string) (string, error) {
	switch k {
	case kir.NegF, kir.AbsF:
		ti := with(t, intOfWidth(t.Elem.Bits()))
		ai := f.t()
		f.emitf("%s = bitcast %s %s to %s", ai, ty(t), a, ty(ti))
		sign := int64(-1) << (t.Elem.Bits() - 1)
		var o string
		if k == kir.NegF {
			o = f.bin("xor", ti, ai, ilit(ti, sign))
		} else {
			o = f.bin("and", ti, ai, ilit(ti, ^sign))
		}
		r := f.t()
		f.emitf("%s = bitcast %s %s to %s", r, ty(ti), o, ty(t))
		return r, nil
	case kir.Sqrt, kir.Floor, kir.Ceil, kir.Round, kir.RoundEven, kir.Trunc:
		name := map[kir.Kind]string{kir.Sqrt: "llvm.sqrt", kir.Floor: "llvm.floor", kir.Ceil: "llvm.ceil", kir.Round: "llvm.round", kir.RoundEven: "llvm.roundeven", kir.Trunc: "llvm.trunc"}[k]
		wt := with(t, wideElem(t.Elem))
		return f.fromWide(t, f.intrinsic(name, wt, f.toF32(t, a))), nil
	case kir.Rsqrt:
		td := with(t, kir.F64)
		s := f.intrinsic("llvm.sqrt", td, f.toDouble(t, a))
		return f.fromDouble(t, f.bin("fdiv", td, cst(td, floatLit(kir.F64, 1)), s)), nil
	}
	name, ok := libmDouble[k]
	if !ok {
		return "", status.Errorf(status.Unimplemented, "float op %s has no llvm-cpu lowering", k)
	}
	return f.fromDouble(t, f.libm(name, t.Width(), f.toDouble(t, a))), nil
}

// libm calls the f64 libm function name lane by lane on f64 operands of n
// lanes: vectors go through the stack in a loop, keeping the IR small.
func (f *fn) libm(name string, n int, args ...string) string {
	var types []string
	for range args {
		types = append(types, "double")
	}
	f.mo.declare(name, fmt.Sprintf("declare double @%s(%s) nounwind willreturn memory(none)", name, joinComma(types)))
	callOne := func(xs []string) string {
		var list []string
		for _, x := range xs {
			list = append(list, "double "+x)
		}
		r := f.t()
		f.emitf("%s = call double @%s(%s)", r, name, joinComma(list))
		return r
	}
	if n <= 1 {
		return callOne(args)
	}
	f.scratchFor(n)
	vt := vecOf("double", n)
	buf := func(k int) string {
		p := f.t()
		f.emitf("%s = getelementptr inbounds double, ptr %%scratch, i64 %d", p, k*n)
		return p
	}
	var ins []string
	for k, a := range args {
		p := buf(k)
		f.emitf("store %s %s, ptr %s, align 8", vt, a, p)
		ins = append(ins, p)
	}
	out := buf(2)
	pre, loop, done := f.cur, f.newLabel("lanes"), f.newLabel("lanes.end")
	i, next := f.t(), f.t()
	f.emitf("br label %%%s", loop)
	f.startBlock(loop)
	f.emitf("%s = phi i64 [ 0, %%%s ], [ %s, %%%s ]", i, pre, next, loop)
	var lanes []string
	for _, p := range ins {
		q, x := f.t(), f.t()
		f.emitf("%s = getelementptr inbounds double, ptr %s, i64 %s", q, p, i)
		f.emitf("%s = load double, ptr %s, align 8", x, q)
		lanes = append(lanes, x)
	}
	r := callOne(lanes)
	q := f.t()
	f.emitf("%s = getelementptr inbounds double, ptr %s, i64 %s", q, out, i)
	f.emitf("store double %s, ptr %s, align 8", r, q)
	f.emitf("%s = add i64 %s, 1", next, i)
	more := f.t()
	f.emitf("%s = icmp ult i64 %s, %d", more, next, n)
	f.emitf("br i1 %s, label %%%s, label %%%s", more, loop, done)
	f.startBlock(done)
	res := f.t()
	f.emitf("%s = load %s, ptr %s, align 8", res, vt, out)
	return res
}

func joinComma(xs []string) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += ", "
		}
		s += x
	}
	return s
}

// fma emits a fused multiply-add; f16 and bf16 take the f32 fma rounded.
func (f *fn) fma(t kir.Type, a, b, c string) string {
	wt := with(t, wideElem(t.Elem))
	r := f.intrinsic("llvm.fma", wt, f.toF32(t, a), f.toF32(t, b), f.toF32(t, c))
	return f.fromWide(t, r)
}
