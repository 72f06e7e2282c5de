package llvmcpu

import (
	"fmt"
	"math"
	"strings"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/status"
)

var inf = math.Inf(1)

// cst returns a constant of type t, every lane lit.
func cst(t kir.Type, lit string) string { return splat(scalarTy(t.Elem), t.Width(), lit) }

// ilit returns the integer constant x of type t.
func ilit(t kir.Type, x int64) string { return cst(t, intLit(t.Elem, x)) }

// with returns t with element type s.
func with(t kir.Type, s kir.Scalar) kir.Type { return kir.Type{Elem: s, Lanes: t.Lanes} }

// bin emits "r = op T a, b" and returns r.
func (f *fn) bin(op string, t kir.Type, a, b string) string {
	r := f.t()
	f.emitf("%s = %s %s %s, %s", r, op, ty(t), a, b)
	return r
}

// sel emits a select with an i1 (or i1-vector) condition.
func (f *fn) sel(t kir.Type, c, a, b string) string {
	r := f.t()
	f.emitf("%s = select %s %s, %s %s, %s %s", r, ty(with(t, kir.I1)), c, ty(t), a, ty(t), b)
	return r
}

func (f *fn) icmp(pred string, t kir.Type, a, b string) string {
	r := f.t()
	f.emitf("%s = icmp %s %s %s, %s", r, pred, ty(t), a, b)
	return r
}

// intrinsic calls an overloaded intrinsic on operands of type t.
func (f *fn) intrinsic(name string, t kir.Type, args ...string) string {
	var typed []string
	for _, a := range args {
		typed = append(typed, ty(t), a)
	}
	return f.call(ty(t), name+mangle(t.Elem, t.Width()), typed...)
}

// intBinary emits an integer binary op with kir.Run's semantics: division
// by zero gives 0, MIN / -1 wraps, out-of-range shifts give 0 or the sign.
func (f *fn) intBinary(k kir.Kind, t kir.Type, a, b string) (string, error) {
	z, one, m1 := ilit(t, 0), ilit(t, 1), ilit(t, -1)
	bits := int64(t.Elem.Bits())
	b1 := with(t, kir.I1)
	switch k {
	case kir.Add, kir.Sub, kir.Mul, kir.And, kir.Or, kir.Xor:
		return f.bin(map[kir.Kind]string{kir.Add: "add", kir.Sub: "sub", kir.Mul: "mul", kir.And: "and", kir.Or: "or", kir.Xor: "xor"}[k], t, a, b), nil
	case kir.DivS, kir.RemS, kir.FloorDivS, kir.CeilDivS:
		bz, bm := f.icmp("eq", t, b, z), f.icmp("eq", t, b, m1)
		bad := f.bin("or", b1, bz, bm)
		sb := f.sel(t, bad, one, b)
		q, r := f.bin("sdiv", t, a, sb), f.bin("srem", t, a, sb)
		neg := f.bin("sub", t, z, a)
		q = f.sel(t, bm, neg, q)
		switch k {
		case kir.DivS:
			return f.sel(t, bz, z, q), nil
		case kir.RemS:
			return f.sel(t, bad, z, r), nil
		}
		rnz := f.icmp("ne", t, r, z)
		x := f.bin("xor", t, a, b)
		pred := "slt"
		if k == kir.CeilDivS {
			pred = "sge"
		}
		adj := f.bin("and", b1, rnz, f.icmp(pred, t, x, z))
		d := f.sel(t, adj, one, z)
		if k == kir.FloorDivS {
			q = f.bin("sub", t, q, d)
		} else {
			q = f.bin("add", t, q, d)
		}
		return f.sel(t, bz, z, q), nil
	case kir.DivU, kir.RemU, kir.CeilDivU:
		bz := f.icmp("eq", t, b, z)
		sb := f.sel(t, bz, one, b)
		q, r := f.bin("udiv", t, a, sb), f.bin("urem", t, a, sb)
		switch k {
		case kir.DivU:
			return f.sel(t, bz, z, q), nil
		case kir.RemU:
			return f.sel(t, bz, z, r), nil
		}
		q = f.bin("add", t, q, f.sel(t, f.icmp("ne", t, r, z), one, z))
		return f.sel(t, bz, z, q), nil
	case kir.MinS, kir.MaxS, kir.MinU, kir.MaxU:
		name := map[kir.Kind]string{kir.MinS: "llvm.smin", kir.MaxS: "llvm.smax", kir.MinU: "llvm.umin", kir.MaxU: "llvm.umax"}[k]
		return f.intrinsic(name, t, a, b), nil
	case kir.Shl, kir.ShrU:
		ok := f.icmp("ult", t, b, ilit(t, bits))
		m := f.bin("and", t, b, ilit(t, bits-1))
		op := "shl"
		if k == kir.ShrU {
			op = "lshr"
		}
		return f.sel(t, ok, f.bin(op, t, a, m), z), nil
	case kir.ShrS:
		amt := f.intrinsic("llvm.umin", t, b, ilit(t, bits-1))
		return f.bin("ashr", t, a, amt), nil
	}
	return "", status.Errorf(status.Unimplemented, "integer op %s has no llvm-cpu lowering", k)
}

// intUnary emits abs, ctlz, cttz and ctpop.
func (f *fn) intUnary(k kir.Kind, t kir.Type, a string) (string, error) {
	T := ty(t)
	m := mangle(t.Elem, t.Width())
	switch k {
	case kir.AbsI:
		return f.call(T, "llvm.abs"+m, T, a, "i1", "false"), nil
	case kir.CtLz:
		return f.call(T, "llvm.ctlz"+m, T, a, "i1", "false"), nil
	case kir.CtTz:
		return f.call(T, "llvm.cttz"+m, T, a, "i1", "false"), nil
	case kir.CtPop:
		return f.call(T, "llvm.ctpop"+m, T, a), nil
	}
	return "", status.Errorf(status.Unimplemented, "integer op %s has no llvm-cpu lowering", k)
}

// wideElem is the type f16 and bf16 arithmetic is computed in (f32).
func wideElem(s kir.Scalar) kir.Scalar {
	if s == kir.F16 || s == kir.BF16 {
		return kir.F32
	}
	return s
}

func wideTy(t kir.Type) string { return ty(with(t, wideElem(t.Elem))) }

// toF32 extends an f16 or bf16 value to f32 (exactly); other floats are
// returned unchanged.
func (f *fn) toF32(t kir.Type, x string) string {
	if wideElem(t.Elem) == t.Elem {
		return x
	}
	return f.convFloat(t, t.Elem, kir.F32, x)
}

// fromWide rounds an f32 value back to t's element type (f16, bf16).
func (f *fn) fromWide(t kir.Type, x string) string {
	if wideElem(t.Elem) == t.Elem {
		return x
	}
	return f.convFloat(t, kir.F32, t.Elem, x)
}

// toDouble extends a float value of type t to f64.
func (f *fn) toDouble(t kir.Type, x string) string {
	return f.convFloat(t, t.Elem, kir.F64, x)
}

// fromDouble rounds an f64 result to t's element type as kir.Run does:
// f16 and bf16 results are first rounded to f32.
func (f *fn) fromDouble(t kir.Type, x string) string {
	if t.Elem == kir.F64 {
		return x
	}
	r := f.t()
	f.emitf("%s = fptrunc %s %s to %s", r, ty(with(t, kir.F64)), x, ty(with(t, kir.F32)))
	return f.fromWide(t, r)
}

// convFloat converts x (lanes of t) from float type from to float type to,
// rounding once to nearest even.
func (f *fn) convFloat(t kir.Type, from, to kir.Scalar, x string) string {
	if from == to {
		return x
	}
	tf, tt := with(t, from), with(t, to)
	r := f.t()
	switch {
	case from == kir.F16 && f.mo.softF16:
		return f.convFloat(t, kir.F32, to, f.f16ToF32Soft(t, x))
	case to == kir.F16 && f.mo.softF16:
		if from == kir.F64 {
			x = f.roundToOdd(t, x)
		} else {
			x = f.convFloat(t, from, kir.F32, x)
		}
		return f.f32ToF16Soft(t, x)
	case from == kir.BF16:
		i, w, s := f.t(), f.t(), f.t()
		f.emitf("%s = bitcast %s %s to %s", i, ty(tf), x, ty(with(t, kir.I16)))
		f.emitf("%s = zext %s %s to %s", w, ty(with(t, kir.I16)), i, ty(with(t, kir.I32)))
		f.emitf("%s = shl %s %s, %s", s, ty(with(t, kir.I32)), w, ilit(with(t, kir.I32), 16))
		f.emitf("%s = bitcast %s %s to %s", r, ty(with(t, kir.I32)), s, ty(with(t, kir.F32)))
		return f.convFloat(t, kir.F32, to, r)
	case from == kir.F64 && (to == kir.F16 || to == kir.BF16):
		return f.convFloat(t, kir.F32, to, f.roundToOdd(t, x))
	case to == kir.BF16:
		x = f.convFloat(t, from, kir.F32, x)
		return f.f32ToBF16(t, x)
	case to.Bits() > from.Bits():
		f.emitf("%s = fpext %s %s to %s", r, ty(tf), x, ty(tt))
	default:
		f.emitf("%s = fptrunc %s %s to %s", r, ty(tf), x, ty(tt))
	}
	return r
}

// roundToOdd narrows f64 lanes to f32 rounding to odd, so that a second
// rounding to a narrower type equals one direct rounding.
func (f *fn) roundToOdd(t kir.Type, x string) string {
	td, tf, ti := with(t, kir.F64), with(t, kir.F32), with(t, kir.I32)
	b1 := with(t, kir.I1)
	r := f.t()
	f.emitf("%s = fptrunc %s %s to %s", r, ty(td), x, ty(tf))
	back := f.t()
	f.emitf("%s = fpext %s %s to %s", back, ty(tf), r, ty(td))
	exact, uno := f.t(), f.t()
	f.emitf("%s = fcmp oeq %s %s, %s", exact, ty(td), back, x)
	f.emitf("%s = fcmp uno %s %s, %s", uno, ty(td), x, x)
	ab, ax := f.intrinsic("llvm.fabs", td, back), f.intrinsic("llvm.fabs", td, x)
	gt := f.t()
	f.emitf("%s = fcmp ogt %s %s, %s", gt, ty(td), ab, ax)
	bits := f.t()
	f.emitf("%s = bitcast %s %s to %s", bits, ty(tf), r, ty(ti))
	dec := f.bin("sub", ti, bits, ilit(ti, 1))
	tz := f.sel(ti, gt, dec, bits)
	odd := f.bin("or", ti, tz, ilit(ti, 1))
	keep := f.bin("or", b1, exact, uno)
	out := f.sel(ti, keep, bits, odd)
	res := f.t()
	f.emitf("%s = bitcast %s %s to %s", res, ty(ti), out, ty(tf))
	return res
}

// f16ToF32Soft extends f16 lanes to f32 with integer operations (x86
// without F16C has no conversion instruction, and LLVM would call a
// runtime-library function the shared object cannot link).
func (f *fn) f16ToF32Soft(t kir.Type, x string) string {
	th, ti, tf := with(t, kir.I16), with(t, kir.I32), with(t, kir.F32)
	b1 := with(t, kir.I1)
	h, u := f.t(), f.t()
	f.emitf("%s = bitcast %s %s to %s", h, ty(with(t, kir.F16)), x, ty(th))
	f.emitf("%s = zext %s %s to %s", u, ty(th), h, ty(ti))
	sign := f.bin("shl", ti, f.bin("and", ti, u, ilit(ti, 0x8000)), ilit(ti, 16))
	exp := f.bin("and", ti, f.bin("lshr", ti, u, ilit(ti, 10)), ilit(ti, 0x1f))
	man := f.bin("and", ti, u, ilit(ti, 0x3ff))
	normal := f.bin("or", ti, f.bin("shl", ti, f.bin("add", ti, exp, ilit(ti, 112)), ilit(ti, 23)), f.bin("shl", ti, man, ilit(ti, 13)))
	special := f.bin("or", ti, ilit(ti, 0x7f800000), f.bin("shl", ti, man, ilit(ti, 13)))
	mf, sub := f.t(), f.t()
	f.emitf("%s = uitofp %s %s to %s", mf, ty(ti), man, ty(tf))
	f.emitf("%s = fmul %s %s, %s", sub, ty(tf), mf, cst(tf, floatLit(kir.F32, 0x1p-24)))
	subi := f.t()
	f.emitf("%s = bitcast %s %s to %s", subi, ty(tf), sub, ty(ti))
	isZero := f.icmp("eq", ti, exp, ilit(ti, 0))
	isMax := f.icmp("eq", ti, exp, ilit(ti, 31))
	_ = b1
	mag := f.sel(ti, isZero, subi, f.sel(ti, isMax, special, normal))
	r := f.t()
	f.emitf("%s = bitcast %s %s to %s", r, ty(ti), f.bin("or", ti, mag, sign), ty(tf))
	return r
}

// f32ToF16Soft rounds f32 lanes to f16 (to nearest even) with integer
// operations and one f32 addition for the subnormal range.
func (f *fn) f32ToF16Soft(t kir.Type, x string) string {
	ti, tf, th := with(t, kir.I32), with(t, kir.F32), with(t, kir.I16)
	u := f.t()
	f.emitf("%s = bitcast %s %s to %s", u, ty(tf), x, ty(ti))
	sign := f.bin("and", ti, f.bin("lshr", ti, u, ilit(ti, 16)), ilit(ti, 0x8000))
	a := f.bin("and", ti, u, ilit(ti, 0x7fffffff))
	// NaN keeps its top mantissa bits and is made quiet; ±inf and values
	// rounding past 65504 give ±inf.
	nan := f.bin("or", ti, ilit(ti, 0x7e00), f.bin("and", ti, f.bin("lshr", ti, a, ilit(ti, 13)), ilit(ti, 0x3ff)))
	isNaN := f.icmp("ugt", ti, a, ilit(ti, 0x7f800000))
	isInf := f.icmp("uge", ti, a, ilit(ti, 0x477ff000))
	isNormal := f.icmp("uge", ti, a, ilit(ti, 0x38800000))
	lsb := f.bin("and", ti, f.bin("lshr", ti, a, ilit(ti, 13)), ilit(ti, 1))
	normal := f.bin("lshr", ti, f.bin("add", ti, f.bin("add", ti, f.bin("sub", ti, a, ilit(ti, 0x38000000)), ilit(ti, 0xfff)), lsb), ilit(ti, 13))
	af, sum, sumi := f.t(), f.t(), f.t()
	f.emitf("%s = bitcast %s %s to %s", af, ty(ti), a, ty(tf))
	f.emitf("%s = fadd %s %s, %s", sum, ty(tf), af, cst(tf, floatLit(kir.F32, 0.5)))
	f.emitf("%s = bitcast %s %s to %s", sumi, ty(tf), sum, ty(ti))
	sub := f.bin("sub", ti, sumi, ilit(ti, 0x3f000000))
	mag := f.sel(ti, isNaN, nan, f.sel(ti, isInf, ilit(ti, 0x7c00), f.sel(ti, isNormal, normal, sub)))
	tr, r := f.t(), f.t()
	f.emitf("%s = trunc %s %s to %s", tr, ty(ti), f.bin("or", ti, mag, sign), ty(th))
	f.emitf("%s = bitcast %s %s to %s", r, ty(th), tr, ty(with(t, kir.F16)))
	return r
}

// f32ToBF16 rounds f32 lanes to bf16, to nearest even; NaNs stay NaNs.
func (f *fn) f32ToBF16(t kir.Type, x string) string {
	tf, ti, th := with(t, kir.F32), with(t, kir.I32), with(t, kir.I16)
	i := f.t()
	f.emitf("%s = bitcast %s %s to %s", i, ty(tf), x, ty(ti))
	hi := f.bin("lshr", ti, i, ilit(ti, 16))
	lsb := f.bin("and", ti, hi, ilit(ti, 1))
	rnd := f.bin("add", ti, f.bin("add", ti, i, ilit(ti, 0x7fff)), lsb)
	rounded := f.bin("lshr", ti, rnd, ilit(ti, 16))
	quiet := f.bin("or", ti, hi, ilit(ti, 0x40))
	nan := f.t()
	f.emitf("%s = fcmp uno %s %s, %s", nan, ty(tf), x, x)
	v := f.sel(ti, nan, quiet, rounded)
	tr, r := f.t(), f.t()
	f.emitf("%s = trunc %s %s to %s", tr, ty(ti), v, ty(th))
	f.emitf("%s = bitcast %s %s to %s", r, ty(th), tr, ty(with(t, kir.BF16)))
	return r
}

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
	c, eq, uno := f.t(), f.t(), f.t()
	f.emitf("%s = fcmp %s %s %s, %s", c, pred, ty(wt), x, y)
	f.emitf("%s = fcmp oeq %s %s, %s", eq, ty(wt), x, y)
	f.emitf("%s = fcmp uno %s %s, %s", uno, ty(wt), x, y)
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

// cast emits a conversion op.
func (f *fn) cast(k kir.Kind, from, to kir.Type, x string) (string, error) {
	r := f.t()
	switch k {
	case kir.ExtS, kir.ExtU, kir.TruncI, kir.Bitcast:
		op := map[kir.Kind]string{kir.ExtS: "sext", kir.ExtU: "zext", kir.TruncI: "trunc", kir.Bitcast: "bitcast"}[k]
		f.emitf("%s = %s %s %s to %s", r, op, ty(from), x, ty(to))
	case kir.SIToFP, kir.UIToFP:
		op := "sitofp"
		if k == kir.UIToFP {
			op = "uitofp"
		}
		wt := with(to, wideElem(to.Elem))
		f.emitf("%s = %s %s %s to %s", r, op, ty(from), x, ty(wt))
		return f.fromWide(to, r), nil
	case kir.FPToSI, kir.FPToUI:
		wf := with(from, wideElem(from.Elem))
		name := "llvm.fptosi.sat"
		if k == kir.FPToUI {
			name = "llvm.fptoui.sat"
		}
		name += mangle(to.Elem, to.Width()) + mangle(wf.Elem, wf.Width())
		return f.call(ty(to), name, ty(wf), f.toF32(from, x)), nil
	case kir.FPExt, kir.FPTrunc:
		return f.convFloat(from, from.Elem, to.Elem, x), nil
	default:
		return "", status.Errorf(status.Unimplemented, "conversion %s has no llvm-cpu lowering", k)
	}
	return r, nil
}

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

var _ = fmt.Sprint
