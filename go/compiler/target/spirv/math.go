package spirv

import (
	"fmt"
	"math"
	"math/big"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// Unary float math. The special values (NaN, ±Inf, ±0, out-of-domain
// arguments) follow Go's math package, which defines the interpreter's
// results; the values in between come from this package's own range
// reductions and polynomials in the compute type (f32 for f16, bf16 and
// f32; f64 for f64), built from additions, multiplications, divisions
// and GLSL.std.450's exactly rounded helpers (Floor, Ceil, Trunc,
// RoundEven, FAbs, Ldexp, Frexp, Sqrt), so that every device computes the
// same approximations (GLSL's transcendental functions have loose
// precision requirements in Vulkan and no f64 versions).

// floatUnary applies a unary float op to a register value of s.
func (e *emitter) floatUnary(k kir.Kind, s kir.Scalar, a uint32) uint32 {
	switch k {
	case kir.NegF:
		return e.val(e.reg(s), opFNegate, a)
	case kir.AbsF:
		return e.ext(e.reg(s), glslFAbs, a)
	}
	f := e.flt(wide(s))
	x := e.promote(s, a)
	var r uint32
	switch k {
	case kir.Floor, kir.Ceil, kir.Trunc, kir.RoundEven, kir.Round:
		if k == kir.Round {
			r = f.round(x)
		} else {
			r = f.glsl(map[kir.Kind]uint32{kir.Floor: glslFloor, kir.Ceil: glslCeil, kir.Trunc: glslTrunc, kir.RoundEven: glslRoundEven}[k], x)
		}
		// the result has x's sign, ±0 included (some drivers drop the
		// sign of f64 zeros)
		r = f.copySign(r, x)
	case kir.Sqrt:
		r = f.sqrt(x)
	case kir.Rsqrt:
		r = f.rsqrt(x)
	case kir.Cbrt:
		r = f.cbrt(x)
	default:
		fn, ok := transcendental[k]
		if !ok {
			e.failf(13, "%s is not a float unary op", k)
		}
		r = fn(f, x)
	}
	return e.demote(s, r)
}

// transcendental maps the remaining unary ops to their builders.
var transcendental = map[kir.Kind]func(f fb, x uint32) uint32{
	kir.Exp: fb.exp, kir.Exp2: fb.exp2, kir.Expm1: fb.expm1,
	kir.Log: fb.log, kir.Log2: fb.log2, kir.Log10: fb.log10, kir.Log1p: fb.log1p,
	kir.Sin: fb.sin, kir.Cos: fb.cos, kir.Tan: fb.tan,
	kir.Asin: fb.asin, kir.Acos: fb.acos, kir.Atan: fb.atan,
	kir.Sinh: fb.sinh, kir.Cosh: fb.cosh, kir.Tanh: fb.tanh,
	kir.Asinh: fb.asinh, kir.Acosh: fb.acosh, kir.Atanh: fb.atanh,
	kir.Erf: fb.erf, kir.Erfc: fb.erfc,
}

// call1 calls the one-argument helper function name of this width, built
// by body on first use.
func (f fb) call1(name string, x uint32, body func(x uint32) uint32) uint32 {
	id := f.e.helper(fmt.Sprintf("%s.f%d", name, f.w), f.t, []uint32{f.t}, func(a []uint32) uint32 { return body(a[0]) })
	return f.e.call(f.t, id, x)
}

// call2 is call1 for two arguments.
func (f fb) call2(name string, x, y uint32, body func(x, y uint32) uint32) uint32 {
	id := f.e.helper(fmt.Sprintf("%s.f%d", name, f.w), f.t, []uint32{f.t, f.t}, func(a []uint32) uint32 { return body(a[0], a[1]) })
	return f.e.call(f.t, id, x, y)
}

// poly evaluates cs[0] + x·(cs[1] + x·(…)) by Horner's rule.
func (f fb) poly(x uint32, cs ...float64) uint32 {
	r := f.c(cs[len(cs)-1])
	for i := len(cs) - 2; i >= 0; i-- {
		r = f.add(f.mul(r, x), f.c(cs[i]))
	}
	return r
}

// terms picks the term count for the width.
func (f fb) terms(n32, n64 int) int {
	if f.w == 32 {
		return n32
	}
	return n64
}

// series returns n coefficients c(0), …, c(n-1).
func series(n int, c func(i int) float64) []float64 {
	cs := make([]float64, n)
	for i := range cs {
		cs[i] = c(i)
	}
	return cs
}

// fact returns n! as a float64.
func fact(n int) float64 {
	r := 1.0
	for i := 2; i <= n; i++ {
		r *= float64(i)
	}
	return r
}

// i32 is the 32-bit integer type of exponents.
func (f fb) i32() uint32 { return f.e.u32() }

// toInt converts an integral float (in int32 range) to an i32.
func (f fb) toInt(x uint32) uint32 { return f.e.val(f.i32(), opConvertFToS, x) }

// ldexp returns x·2^n (n an i32 within the width's normal exponents).
func (f fb) ldexp(x, n uint32) uint32 { return f.e.ext(f.t, glslLdexp, x, n) }

// frexp returns m in [0.5, 1) and the i32 e with x = m·2^e (x finite,
// nonzero).
func (f fb) frexp(x uint32) (m, e uint32) {
	st := f.e.m.global(opTypeStruct, f.t, f.i32())
	r := f.e.ext(st, 52 /* FrexpStruct */, x)
	return f.e.val(f.t, opCompositeExtract, r, 0), f.e.val(f.i32(), opCompositeExtract, r, 1)
}

// scale returns p·2^k for an integral float k with |k| ≤ 1100, by two
// multiplications by powers of two in the normal range (so that overflow
// gives ±Inf and underflow rounds).
func (f fb) scale(p, k uint32) uint32 {
	ki := f.toInt(k)
	k1 := f.e.val(f.i32(), opShiftRightArithmetic, ki, f.e.cU32(1))
	k2 := f.e.val(f.i32(), opISub, ki, k1)
	one := f.c(1)
	return f.mul(f.mul(p, f.ldexp(one, k1)), f.ldexp(one, k2))
}

// clamp limits x to [lo, hi] (NaN stays NaN).
func (f fb) clamp(x uint32, lo, hi float64) uint32 {
	x = f.sel(f.gt(x, f.c(hi)), f.c(hi), x)
	return f.sel(f.lt(x, f.c(lo)), f.c(lo), x)
}

// sqrt is Go's Sqrt: NaN below zero, ±0 kept.
func (f fb) sqrt(x uint32) uint32 {
	r := f.glsl(glslSqrt, x)
	r = f.sel(f.lt(x, f.c(0)), f.nan(), r)
	return f.sel(f.eq(x, f.c(0)), x, r)
}

// rsqrt is 1/Sqrt(x): ±Inf at ±0, NaN below zero.
func (f fb) rsqrt(x uint32) uint32 {
	r := f.glsl(glslInvSqrt, x)
	r = f.sel(f.lt(x, f.c(0)), f.nan(), r)
	return f.sel(f.eq(x, f.c(0)), f.div(f.c(1), x), r)
}

// round rounds half away from zero.
func (f fb) round(x uint32) uint32 {
	t := f.glsl(glslTrunc, x)
	d := f.abs(f.sub(x, t))
	up := f.add(t, f.copySign(f.c(1), x))
	return f.sel(f.cmp(opFOrdGreaterThanEqual, d, f.c(0.5)), up, t)
}

// cbrt: x = m·2^(3q+r), cbrt = cbrt(m·2^r)·2^q with Newton's iterations
// from a linear first guess.
func (f fb) cbrt(x uint32) uint32 {
	return f.call1("cbrt", x, func(x uint32) uint32 {
		i32 := f.i32()
		a := f.abs(x)
		m, ex := f.frexp(a)
		q := f.e.val(i32, opISub, f.e.val(i32, opSDiv, f.e.val(i32, opIAdd, ex, f.e.cU32(1200)), f.e.cU32(3)), f.e.cU32(400))
		r := f.e.val(i32, opISub, ex, f.e.val(i32, opIMul, q, f.e.cU32(3)))
		m = f.ldexp(m, r) // [0.5, 4)
		y := f.add(f.c(0.6803), f.mul(f.c(0.2268), m))
		for i := 0; i < f.terms(4, 5); i++ {
			y = f.mul(f.add(f.add(y, y), f.div(m, f.mul(y, y))), f.c(1.0/3))
		}
		y = f.copySign(f.ldexp(y, q), x)
		special := f.or(f.or(f.eq(x, f.c(0)), f.isInf(x)), f.isNaN(x))
		return f.sel(special, x, y)
	})
}

// fmod is Go's Mod (the remainder with the sign of x), exact: the
// magnitudes' integer mantissas are divided by shifting and subtracting.
func (f fb) fmod(x, y uint32) uint32 {
	return f.call2("fmod", x, y, func(x, y uint32) uint32 {
		e, u, bt := f.e, f.uint(), f.e.bool()
		mb := 23
		if f.w == 64 {
			mb = 52
		}
		sign := f.cu(f.signMask())
		inf := f.cu(uint64(math.Float64bits(math.Inf(1))))
		if f.w == 32 {
			inf = f.cu(uint64(math.Float32bits(float32(math.Inf(1)))))
		}
		and := func(a, b uint32) uint32 { return e.val(u, opBitwiseAnd, a, b) }
		ux, uy := f.bits(x), f.bits(y)
		ax, ay := and(ux, f.cu(f.signMask()-1)), and(uy, f.cu(f.signMask()-1))
		implicit := f.cu(1 << mb)
		parts := func(a uint32) (m, ex uint32) {
			ex = e.val(u, opShiftRightLogical, a, f.cu(uint64(mb)))
			norm := e.val(bt, opINotEqual, ex, f.cu(0))
			m = and(a, f.cu(1<<mb-1))
			m = e.val(u, opSelect, norm, e.val(u, opBitwiseOr, m, implicit), m)
			return m, e.val(u, opSelect, norm, ex, f.cu(1))
		}
		mx, ex := parts(ax)
		my, ey := parts(ay)
		// r = mx·2^(ex-ey) mod my
		sub := func(r uint32) uint32 {
			return e.val(u, opSelect, e.val(bt, opUGreaterThanEqual, r, my), e.val(u, opISub, r, my), r)
		}
		less := e.val(bt, opULessThan, ax, ay)
		n := e.val(u, opSelect, less, f.cu(0), e.val(u, opISub, ex, ey))
		out := e.loop([]uint32{u, u}, []uint32{e.val(u, opUMod, mx, my), n}, func(c []uint32) uint32 {
			return e.val(bt, opUGreaterThan, c[1], f.cu(0))
		}, func(c []uint32) []uint32 {
			r := sub(e.val(u, opShiftLeftLogical, c[0], f.cu(1)))
			return []uint32{r, e.val(u, opISub, c[1], f.cu(1))}
		})
		r := out[0]
		// normalize r·2^(ey-bias-mb)
		norm := e.loop([]uint32{u, u}, []uint32{r, ey}, func(c []uint32) uint32 {
			small := e.val(bt, opULessThan, c[0], implicit)
			small = e.val(bt, opLogicalAnd, small, e.val(bt, opINotEqual, c[0], f.cu(0)))
			return e.val(bt, opLogicalAnd, small, e.val(bt, opUGreaterThan, c[1], f.cu(1)))
		}, func(c []uint32) []uint32 {
			return []uint32{e.val(u, opShiftLeftLogical, c[0], f.cu(1)), e.val(u, opISub, c[1], f.cu(1))}
		})
		r, ey = norm[0], norm[1]
		isNormal := e.val(bt, opUGreaterThanEqual, r, implicit)
		bits := e.val(u, opBitwiseOr, e.val(u, opShiftLeftLogical, ey, f.cu(uint64(mb))), and(r, f.cu(1<<mb-1)))
		bits = e.val(u, opSelect, isNormal, bits, r)
		res := f.fromBits(e.val(u, opBitwiseOr, bits, and(ux, sign)))
		res = f.sel(less, x, res)
		bad := e.val(bt, opLogicalOr, e.val(bt, opIEqual, ay, f.cu(0)), e.val(bt, opUGreaterThanEqual, ax, inf))
		bad = e.val(bt, opLogicalOr, bad, e.val(bt, opUGreaterThan, ay, inf))
		return f.sel(bad, f.nan(), res)
	})
}

// Constants to more than double precision.
var (
	bigLn2     = bigConst("0.69314718055994530941723212145817656807550013436025525412068")
	bigPiHalf  = bigConst("1.57079632679489661923132169163975144209858469968755291048747")
	bigLog2E   = bigConst("1.44269504088896340735992468100189213742664595415298593413544")
	bigLog10E  = bigConst("0.43429448190325182765112891891660508229439700580366656611445")
	bigLog102  = bigConst("0.30102999566398119521373889472449302676818988146210854131")
	bigSqrtPiI = bigConst("0.56418958354775628694807945156077258584405062932899885684408") // 1/√π
)

func bigConst(s string) *big.Float {
	v, _, err := big.ParseFloat(s, 10, 256, big.ToNearestEven)
	if err != nil {
		panic(err)
	}
	return v
}

// split returns v's leading bits significant bits (truncated) and the
// rest.
func split(v *big.Float, bits int) (hi float64, rest *big.Float) {
	h := new(big.Float).SetMode(big.ToZero).SetPrec(uint(bits)).Set(v)
	hi, _ = h.Float64()
	return hi, new(big.Float).SetPrec(256).Sub(v, h)
}

func f64(v *big.Float) float64 {
	x, _ := v.Float64()
	return x
}
