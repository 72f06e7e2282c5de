package ptx

import (
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/status"
)

// Float arithmetic. f32 and f64 use PTX's instructions with explicit
// round-to-nearest-even modifiers (which also keep ptxas from contracting
// a multiply and an add into an FMA); f16 and bf16 lanes (raw bits in .b16
// registers) are widened exactly to f32, computed there and rounded back
// to nearest even per op, as the interpreter defines their arithmetic.
// NaN results of f16 and bf16 ops are the interpreter's quiet NaN of the
// operand's sign (sign|0x7E00, sign|0x7FC0).

// ftype returns the PTX float type s computes in.
func ftype(s kir.Scalar) string {
	if s == kir.F64 {
		return "f64"
	}
	return "f32"
}

// fcls returns the register class s computes in.
func fcls(s kir.Scalar) regClass {
	if s == kir.F64 {
		return cls64
	}
	return cls32
}

// narrowFloat reports f16 and bf16.
func narrowFloat(s kir.Scalar) bool { return s == kir.F16 || s == kir.BF16 }

// widen returns a lane of s in its compute type (f16 and bf16 to f32,
// exactly).
func (e *emitter) widen(s kir.Scalar, x string) string {
	switch s {
	case kir.F16:
		r := e.reg(cls32)
		e.ins("cvt.f32.f16 %s, %s", r, x)
		return r
	case kir.BF16:
		r := e.reg(cls32)
		e.ins("mov.b32 %s, {%s, %s}", r, e.zero16Reg(), x)
		return r
	}
	return x
}

// narrow rounds an f32 compute value to s (f16 or bf16) to nearest even;
// other types are returned as they are.
func (e *emitter) narrow(s kir.Scalar, x string) string {
	if !narrowFloat(s) {
		return x
	}
	h := e.reg(cls16)
	canon := "0x7E00"
	switch {
	case s == kir.F16:
		e.ins("cvt.rn.f16.f32 %s, %s", h, x)
	case e.cc >= 80:
		canon = "0x7FC0"
		e.ins("cvt.rn.bf16.f32 %s, %s", h, x)
	default:
		canon = "0x7FC0"
		lsb := e.reg(cls32)
		e.ins("shr.u32 %s, %s, 16", lsb, x)
		e.ins("and.b32 %s, %s, 1", lsb, lsb)
		t := e.op3(cls32, "add.s32", x, "0x7FFF")
		t = e.op3(cls32, "add.s32", t, lsb)
		t = e.op3(cls32, "shr.u32", t, "16")
		e.ins("cvt.u16.u32 %s, %s", h, t)
	}
	return e.fixNaN(x, h, canon)
}

// signBit returns the sign mask of s's register.
func signBit(s kir.Scalar) string {
	switch s {
	case kir.F16, kir.BF16:
		return "0x8000"
	case kir.F64:
		return "0x8000000000000000"
	}
	return "0x80000000"
}

// nanBits is the interpreter's NaN for min/max results (math.NaN()
// rounded to the type).
func nanBits(s kir.Scalar) string {
	if s == kir.F64 {
		return "0x7FF8000000000001"
	}
	return "0x7FC00000"
}

// floatBinary applies a float binary op to lanes of s.
func (e *emitter) floatBinary(k kir.Kind, s kir.Scalar, a, b string) string {
	x, y := e.widen(s, a), e.widen(s, b)
	c, t := fcls(s), ftype(s)
	w := "b" + bitsOf(s)
	if s != kir.F64 {
		w = "b32"
	}
	var r string
	switch k {
	case kir.Add, kir.Sub, kir.Mul:
		name := map[kir.Kind]string{kir.Add: "add", kir.Sub: "sub", kir.Mul: "mul"}[k]
		r = e.op3(c, name+".rn."+t, x, y)
	case kir.DivF:
		r = e.op3(c, "div.rn."+t, x, y)
	case kir.MinF, kir.MaxF, kir.MinNumF, kir.MaxNumF:
		r = e.minMax(k, s, x, y)
	case kir.CopySign:
		sb := signBit(s)
		if narrowFloat(s) {
			sb = "0x80000000"
		}
		mag := e.op3(c, "and."+w, x, "0x7FFFFFFF")
		if s == kir.F64 {
			mag = e.op3(c, "and."+w, x, "0x7FFFFFFFFFFFFFFF")
		}
		sign := e.op3(c, "and."+w, y, sb)
		r = e.op3(c, "or."+w, mag, sign)
	default:
		e.failf(status.Unimplemented, "op %d: %s is not implemented by the PTX target", e.opNo, k)
	}
	return e.narrow(s, r)
}

// minMax implements minimumf/maximumf (NaN if either is NaN, -0 < +0)
// and minnumf/maxnumf (a NaN operand yields the other) on compute values.
func (e *emitter) minMax(k kir.Kind, s kir.Scalar, x, y string) string {
	c, t := fcls(s), ftype(s)
	w := "b32"
	if s == kir.F64 {
		w = "b64"
	}
	isMax := k == kir.MaxF || k == kir.MaxNumF
	cmp, bits := "lt", "or."+w // min of -0 and +0 is -0: or the bits
	if isMax {
		cmp, bits = "gt", "and."+w
	}
	p := e.reg(clsPred)
	e.ins("setp.%s.%s %s, %s, %s", cmp, t, p, x, y)
	r := e.reg(c)
	e.ins("selp.%s %s, %s, %s, %s", w, r, x, y, p)
	eq := e.reg(clsPred)
	e.ins("setp.eq.%s %s, %s, %s", t, eq, x, y)
	both := e.op3(c, bits, x, y)
	r2 := e.reg(c)
	e.ins("selp.%s %s, %s, %s, %s", w, r2, both, r, eq)
	xn, yn := e.reg(clsPred), e.reg(clsPred)
	e.ins("setp.nan.%s %s, %s, %s", t, xn, x, x)
	e.ins("setp.nan.%s %s, %s, %s", t, yn, y, y)
	nan := e.reg(clsPred)
	if k == kir.MinNumF || k == kir.MaxNumF {
		r3, r4 := e.reg(c), e.reg(c)
		e.ins("selp.%s %s, %s, %s, %s", w, r3, y, r2, xn)
		e.ins("selp.%s %s, %s, %s, %s", w, r4, x, r3, yn)
		r2 = r4
		e.ins("and.pred %s, %s, %s", nan, xn, yn)
	} else {
		e.ins("or.pred %s, %s, %s", nan, xn, yn)
	}
	out := e.reg(c)
	e.ins("selp.%s %s, %s, %s, %s", w, out, nanBits(s), r2, nan)
	return out
}

// floatUnary applies a float unary op to a lane of s.
func (e *emitter) floatUnary(k kir.Kind, s kir.Scalar, a string) string {
	raw := classOf(s)
	w := movType(raw)
	switch k {
	case kir.NegF:
		return e.op3(raw, "xor."+w, a, signBit(s))
	case kir.AbsF:
		r := e.reg(raw)
		e.ins("and.%s %s, %s, %s", w, r, a, notSign(s))
		return r
	}
	x := e.widen(s, a)
	c, t := fcls(s), ftype(s)
	r := e.reg(c)
	switch k {
	case kir.Sqrt:
		e.ins("sqrt.rn.%s %s, %s", t, r, x)
	case kir.Rsqrt:
		// 1/sqrt(x) rounded twice in f64, as the interpreter computes it.
		d := x
		if s != kir.F64 {
			d = e.reg(cls64)
			e.ins("cvt.f64.f32 %s, %s", d, x)
		}
		q := e.reg(cls64)
		e.ins("sqrt.rn.f64 %s, %s", q, d)
		e.ins("rcp.rn.f64 %s, %s", q, q)
		if s == kir.F64 {
			r = q
		} else {
			e.ins("cvt.rn.f32.f64 %s, %s", r, q)
		}
	case kir.Floor:
		e.ins("cvt.rmi.%s.%s %s, %s", t, t, r, x)
	case kir.Ceil:
		e.ins("cvt.rpi.%s.%s %s, %s", t, t, r, x)
	case kir.Trunc:
		e.ins("cvt.rzi.%s.%s %s, %s", t, t, r, x)
	case kir.RoundEven:
		e.ins("cvt.rni.%s.%s %s, %s", t, t, r, x)
	case kir.Round:
		r = e.roundAway(s, x)
	default:
		e.failf(status.Unimplemented, "op %d: %s is not implemented by the PTX target (expand it with mathexp.Expand first)", e.opNo, k)
	}
	return e.narrow(s, r)
}

// notSign returns the mask of every bit but the sign.
func notSign(s kir.Scalar) string {
	switch s {
	case kir.F16, kir.BF16:
		return "0x7FFF"
	case kir.F64:
		return "0x7FFFFFFFFFFFFFFF"
	}
	return "0x7FFFFFFF"
}

// roundAway rounds half away from zero: truncate, then step one away
// from zero when the (exact) remainder's magnitude is at least 1/2 (the
// truncation itself is kept otherwise, so that -0.3 gives -0).
func (e *emitter) roundAway(s kir.Scalar, x string) string {
	c, t := fcls(s), ftype(s)
	w, half, sign, one := "b32", "0f3F000000", "0x80000000", "0x3F800000"
	if s == kir.F64 {
		w, half, sign, one = "b64", "0d3FE0000000000000", "0x8000000000000000", "0x3FF0000000000000"
	}
	tr := e.reg(c)
	e.ins("cvt.rzi.%s.%s %s, %s", t, t, tr, x)
	d := e.op3(c, "sub.rn."+t, x, tr)
	e.ins("abs.%s %s, %s", t, d, d)
	p := e.reg(clsPred)
	e.ins("setp.ge.%s %s, %s, %s", t, p, d, half)
	step := e.op3(c, "and."+w, x, sign)
	step = e.op3(c, "or."+w, step, one)
	up := e.op3(c, "add.rn."+t, tr, step)
	r := e.reg(c)
	e.ins("selp.%s %s, %s, %s, %s", w, r, up, tr, p)
	return r
}

// classify evaluates IsNaN, IsInf or IsFinite on a lane of s.
func (e *emitter) classify(k kir.Kind, s kir.Scalar, a string) string {
	x, t := e.widen(s, a), ftype(s)
	p := e.reg(clsPred)
	switch k {
	case kir.IsNaN:
		e.ins("setp.nan.%s %s, %s, %s", t, p, x, x)
	case kir.IsInf:
		e.ins("testp.infinite.%s %s, %s", t, p, x)
	default:
		e.ins("testp.finite.%s %s, %s", t, p, x)
	}
	return p
}

// fma computes a*b+c rounded once (f16 and bf16: the f32 fma rounded to
// the type).
func (e *emitter) fma(s kir.Scalar, a, b, c string) string {
	x, y, z := e.widen(s, a), e.widen(s, b), e.widen(s, c)
	r := e.reg(fcls(s))
	e.ins("fma.rn.%s %s, %s, %s, %s", ftype(s), r, x, y, z)
	return e.narrow(s, r)
}

// cmpFloat evaluates an arith.cmpf predicate on lanes of s.
func (e *emitter) cmpFloat(p kir.Pred, s kir.Scalar, a, b string) string {
	switch p {
	case kir.FPredFalse:
		return e.imm(clsPred, 0)
	case kir.FPredTrue:
		return e.imm(clsPred, 1)
	}
	names := map[kir.Pred]string{kir.FPredOEQ: "eq", kir.FPredOGT: "gt", kir.FPredOGE: "ge", kir.FPredOLT: "lt",
		kir.FPredOLE: "le", kir.FPredONE: "ne", kir.FPredORD: "num", kir.FPredUEQ: "equ", kir.FPredUGT: "gtu",
		kir.FPredUGE: "geu", kir.FPredULT: "ltu", kir.FPredULE: "leu", kir.FPredUNE: "neu", kir.FPredUNO: "nan"}
	name, ok := names[p]
	if !ok {
		e.failf(status.Internal, "op %d: bad float predicate %d", e.opNo, p)
	}
	x, y := e.widen(s, a), e.widen(s, b)
	r := e.reg(clsPred)
	e.ins("setp.%s.%s %s, %s, %s", name, ftype(s), r, x, y)
	return r
}
