package ptx

import (
	"fmt"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/status"
)

// Conversions with the interpreter's semantics: integer widening and
// truncation on the sign-extended registers; int→float correctly rounded
// to f32 or f64 (f16 and bf16 through f32, as the interpreter); float→int
// truncating and saturating at the destination's range with NaN → 0
// (PTX's cvt.rzi saturates to 32 or 64 bits; narrower results are clamped
// further); float→float rounded once to nearest even (f64 → bf16 by
// rounding to odd in f32 first, which makes the second rounding exact).

// convert converts a lane of from to to.
func (e *emitter) convert(k kir.Kind, from, to kir.Scalar, a string) string {
	switch k {
	case kir.ExtS, kir.ExtU, kir.TruncI:
		return e.intCast(k, from, to, a)
	case kir.SIToFP, kir.UIToFP:
		x := e.lift(from, a)
		src := "s"
		if k == kir.UIToFP {
			src = "u"
			x = e.zx(from, x)
		}
		src += bitsOf(from)
		r := e.reg(fcls(to))
		e.ins("cvt.rn.%s.%s %s, %s", ftype(to), src, r, x)
		return e.narrow(to, r)
	case kir.FPToSI, kir.FPToUI:
		return e.fpToInt(k == kir.FPToSI, from, to, a)
	case kir.FPExt, kir.FPTrunc:
		return e.floatCast(from, to, a)
	case kir.Bitcast:
		return e.bitcast(from, to, a)
	}
	e.failf(status.Internal, "op %d: %s is not a conversion", e.opNo, k)
	return ""
}

// intCast translates ExtS, ExtU and TruncI.
func (e *emitter) intCast(k kir.Kind, from, to kir.Scalar, a string) string {
	x := e.lift(from, a)
	if k == kir.ExtU {
		x = e.zx(from, x)
	}
	switch {
	case wide(to) && !wide(from):
		r := e.reg(cls64)
		sign := "s"
		if k == kir.ExtU {
			sign = "u"
		}
		e.ins("cvt.%s64.%s32 %s, %s", sign, sign, r, x)
		return r
	case wide(from) && !wide(to):
		r := e.reg(cls32)
		e.ins("cvt.u32.u64 %s, %s", r, x)
		x = r
	}
	if to == kir.I1 {
		return e.lower(to, x)
	}
	return e.norm(to, x)
}

// fpToInt converts a float lane to an integer of to, truncating and
// saturating; NaN gives 0.
func (e *emitter) fpToInt(signed bool, from, to kir.Scalar, a string) string {
	x := e.widen(from, a)
	t := ftype(from)
	n := to.Bits()
	sign := "u"
	if signed {
		sign = "s"
	}
	if wide(to) {
		r := e.reg(cls64)
		e.ins("cvt.rzi.%s64.%s %s, %s", sign, t, r, x)
		return r
	}
	r := e.reg(cls32)
	e.ins("cvt.rzi.%s32.%s %s, %s", sign, t, r, x)
	if n < 32 {
		if signed {
			r = e.op3(cls32, "min.s32", r, fmt.Sprint(int64(1)<<(n-1)-1))
			r = e.op3(cls32, "max.s32", r, fmt.Sprint(-(int64(1) << (n - 1))))
		} else {
			r = e.op3(cls32, "min.u32", r, fmt.Sprint(int64(1)<<n-1))
		}
		r = e.norm(to, r)
	}
	return e.lower(to, r)
}

// floatCast translates FPExt and FPTrunc: one rounding to nearest even.
func (e *emitter) floatCast(from, to kir.Scalar, a string) string {
	switch {
	case from == to:
		return a
	case to == kir.F64:
		x := e.widen(from, a)
		r := e.reg(cls64)
		e.ins("cvt.f64.f32 %s, %s", r, x)
		return r
	case from == kir.F64 && to == kir.F32:
		r := e.reg(cls32)
		e.ins("cvt.rn.f32.f64 %s, %s", r, a)
		return r
	case from == kir.F64 && to == kir.F16:
		h := e.reg(cls16)
		e.ins("cvt.rn.f16.f64 %s, %s", h, a)
		// NaN: the interpreter's quiet NaN of the operand's sign.
		f := e.reg(cls32)
		e.ins("cvt.rn.f32.f64 %s, %s", f, a)
		return e.fixNaN(f, h, "0x7E00")
	case from == kir.F64 && to == kir.BF16:
		// Round to odd in f32 (truncate, then set the last bit when
		// inexact), then to nearest even in bf16: one correct rounding.
		f := e.reg(cls32)
		e.ins("cvt.rz.f32.f64 %s, %s", f, a)
		back := e.reg(cls64)
		e.ins("cvt.f64.f32 %s, %s", back, f)
		inexact := e.reg(clsPred)
		e.ins("setp.neu.f64 %s, %s, %s", inexact, back, a)
		odd := e.op3(cls32, "or.b32", f, "1")
		g := e.reg(cls32)
		e.ins("selp.b32 %s, %s, %s, %s", g, odd, f, inexact)
		return e.narrow(to, g)
	}
	// Among f16, bf16 and f32: widen exactly, round once.
	return e.narrow(to, e.widen(from, a))
}

// fixNaN returns h, or the quiet NaN canon with the sign of the f32 value
// f when f is NaN.
func (e *emitter) fixNaN(f, h, canon string) string {
	nan := e.reg(clsPred)
	e.ins("setp.nan.f32 %s, %s, %s", nan, f, f)
	sign := e.op3(cls32, "shr.u32", f, "16")
	sign = e.op3(cls32, "and.b32", sign, "0x8000")
	sign = e.op3(cls32, "or.b32", sign, canon)
	q := e.reg(cls16)
	e.ins("cvt.u16.u32 %s, %s", q, sign)
	r := e.reg(cls16)
	e.ins("selp.b16 %s, %s, %s, %s", r, q, h, nan)
	return r
}

// bitcast reinterprets a lane's bits.
func (e *emitter) bitcast(from, to kir.Scalar, a string) string {
	fc, tc := classOf(from), classOf(to)
	switch {
	case fc == tc:
		return a
	case fc == cls16: // f16/bf16 → i16
		r := e.reg(cls32)
		e.ins("cvt.s32.s16 %s, %s", r, a)
		return r
	case tc == cls16: // i16 → f16/bf16
		r := e.reg(cls16)
		e.ins("cvt.u16.u32 %s, %s", r, a)
		return r
	}
	e.failf(status.InvalidArgument, "op %d: cannot bitcast %s to %s", e.opNo, from, to)
	return ""
}
