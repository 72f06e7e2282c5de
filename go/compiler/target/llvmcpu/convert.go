package llvmcpu

import (
	"github.com/gree-ml/gree/go/compiler/kir"
)

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
