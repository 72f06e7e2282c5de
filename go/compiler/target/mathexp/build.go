package mathexp

import (
	"math"
	"math/big"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// The float builder of Expand: fb appends plain kir arithmetic
// (add, mul, compare, select, bitcast, integer shifts…) in one compute
// type, f32 or f64, scalar or a vector of them. Everything is lane-wise,
// so one expansion serves every lane of a vector. The helpers that
// GLSL.std.450 gives the SPIR-V math library (Ldexp, Frexp) are built
// here from the exponent bits, exactly. Constants are made once per
// expansion.

// fb builds float code of type t (f32 or f64 lanes) with b.
type fb struct {
	b      *kir.Builder
	t      kir.Type // the compute type: F32 or F64 lanes
	w      int      // 32 or 64
	consts map[mathConstKey]kir.Value
}

type mathConstKey struct {
	t    kir.Type
	f    bool
	bits uint64
}

func newFB(b *kir.Builder, t kir.Type) fb {
	w := 32
	if t.Elem == kir.F64 {
		w = 64
	}
	return fb{b: b, t: t, w: w, consts: map[mathConstKey]kir.Value{}}
}

// with returns f retargeted at compute type t (sharing the constants).
func (f fb) with(t kir.Type) fb {
	g := newFB(f.b, t)
	g.consts = f.consts
	return g
}

// mb is the width's mantissa bits; bias its exponent bias.
func (f fb) mb() int {
	if f.w == 32 {
		return 23
	}
	return 52
}

func (f fb) bias() int64 {
	if f.w == 32 {
		return 127
	}
	return 1023
}

// terms picks a count (or a bound) by width.
func (f fb) terms(n32, n64 int) int {
	if f.w == 32 {
		return n32
	}
	return n64
}

// it is the integer type of the width's bits; bt the lane-wise i1 type.
func (f fb) it() kir.Type {
	if f.w == 32 {
		return kir.Type{Elem: kir.I32, Lanes: f.t.Lanes}
	}
	return kir.Type{Elem: kir.I64, Lanes: f.t.Lanes}
}
func (f fb) bt() kir.Type { return kir.V(kir.I1, f.t.Width()) }

// c returns the constant x (rounded to the width).
func (f fb) c(x float64) kir.Value {
	if f.w == 32 {
		x = float64(float32(x))
	}
	key := mathConstKey{f.t, true, math.Float64bits(x)}
	if v, ok := f.consts[key]; ok {
		return v
	}
	v := f.b.Float(f.t, x)
	f.consts[key] = v
	return v
}

// ci returns an integer constant of type t.
func (f fb) ci(t kir.Type, x int64) kir.Value {
	key := mathConstKey{t, false, uint64(x)}
	if v, ok := f.consts[key]; ok {
		return v
	}
	v := f.b.Int(t, x)
	f.consts[key] = v
	return v
}

// cu is an integer constant of the width's bits.
func (f fb) cu(x int64) kir.Value { return f.ci(f.it(), x) }

func (f fb) bin(k kir.Kind, a, c kir.Value) kir.Value { return f.b.Bin(k, a, c) }
func (f fb) add(a, c kir.Value) kir.Value             { return f.bin(kir.Add, a, c) }
func (f fb) sub(a, c kir.Value) kir.Value             { return f.bin(kir.Sub, a, c) }
func (f fb) mul(a, c kir.Value) kir.Value             { return f.bin(kir.Mul, a, c) }
func (f fb) div(a, c kir.Value) kir.Value             { return f.bin(kir.DivF, a, c) }
func (f fb) fma(a, c, d kir.Value) kir.Value          { return f.b.Emit(kir.FMA, f.b.K.Type(a), a, c, d) }
func (f fb) un(k kir.Kind, a kir.Value) kir.Value     { return f.b.Emit(k, f.b.K.Type(a), a) }
func (f fb) neg(a kir.Value) kir.Value                { return f.un(kir.NegF, a) }
func (f fb) abs(a kir.Value) kir.Value                { return f.un(kir.AbsF, a) }
func (f fb) sqrt(a kir.Value) kir.Value               { return f.un(kir.Sqrt, a) }
func (f fb) sel(c, a, d kir.Value) kir.Value          { return f.b.Select(c, a, d) }
func (f fb) cmp(p kir.Pred, a, c kir.Value) kir.Value {
	return f.b.Cmp(kir.CmpF, p, a, c)
}
func (f fb) lt(a, c kir.Value) kir.Value  { return f.cmp(kir.FPredOLT, a, c) }
func (f fb) le(a, c kir.Value) kir.Value  { return f.cmp(kir.FPredOLE, a, c) }
func (f fb) gt(a, c kir.Value) kir.Value  { return f.cmp(kir.FPredOGT, a, c) }
func (f fb) ge(a, c kir.Value) kir.Value  { return f.cmp(kir.FPredOGE, a, c) }
func (f fb) eq(a, c kir.Value) kir.Value  { return f.cmp(kir.FPredOEQ, a, c) }
func (f fb) isNaN(a kir.Value) kir.Value  { return f.b.Emit(kir.IsNaN, f.bt(), a) }
func (f fb) isInf(a kir.Value) kir.Value  { return f.b.Emit(kir.IsInf, f.bt(), a) }
func (f fb) or(a, c kir.Value) kir.Value  { return f.bin(kir.Or, a, c) }
func (f fb) and(a, c kir.Value) kir.Value { return f.bin(kir.And, a, c) }
func (f fb) not(a kir.Value) kir.Value    { return f.bin(kir.Xor, a, f.ci(f.b.K.Type(a), -1)) }
func (f fb) icmp(p kir.Pred, a, c kir.Value) kir.Value {
	return f.b.Cmp(kir.CmpI, p, a, c)
}
func (f fb) copySign(a, s kir.Value) kir.Value { return f.bin(kir.CopySign, a, s) }
func (f fb) nan() kir.Value                    { return f.c(math.NaN()) }
func (f fb) inf() kir.Value                    { return f.c(math.Inf(1)) }

// bits and fromBits reinterpret between the float and integer types.
func (f fb) bits(a kir.Value) kir.Value     { return f.b.Emit(kir.Bitcast, f.it(), a) }
func (f fb) fromBits(u kir.Value) kir.Value { return f.b.Emit(kir.Bitcast, f.t, u) }

// toInt converts an integral float (within the integer type) to the
// width's integer type; toFloat converts back.
func (f fb) toInt(x kir.Value) kir.Value   { return f.b.Emit(kir.FPToSI, f.it(), x) }
func (f fb) toFloat(n kir.Value) kir.Value { return f.b.Emit(kir.SIToFP, f.t, n) }

// poly evaluates cs[0] + x·(cs[1] + x·(…)) by Horner's rule.
func (f fb) poly(x kir.Value, cs ...float64) kir.Value {
	r := f.c(cs[len(cs)-1])
	for i := len(cs) - 2; i >= 0; i-- {
		r = f.add(f.mul(r, x), f.c(cs[i]))
	}
	return r
}

// polyFMA is poly by fused multiply-adds (one rounding per step).
func (f fb) polyFMA(x kir.Value, cs ...float64) kir.Value {
	r := f.c(cs[len(cs)-1])
	for i := len(cs) - 2; i >= 0; i-- {
		r = f.fma(r, x, f.c(cs[i]))
	}
	return r
}

// clamp limits x to [lo, hi] (NaN stays NaN).
func (f fb) clamp(x kir.Value, lo, hi float64) kir.Value {
	x = f.sel(f.gt(x, f.c(hi)), f.c(hi), x)
	return f.sel(f.lt(x, f.c(lo)), f.c(lo), x)
}

// pow2 returns 2^n for an integer n (the width's integer type) within the
// normal exponents.
func (f fb) pow2(n kir.Value) kir.Value {
	e := f.bin(kir.Add, n, f.cu(f.bias()))
	return f.fromBits(f.bin(kir.Shl, e, f.cu(int64(f.mb()))))
}

// scale returns p·2^k for an integral float k with |k| ≤ 2100 (f64) or
// 300 (f32), by two multiplications by powers of two in the normal range
// (so that overflow gives ±Inf and underflow rounds once).
func (f fb) scale(p, k kir.Value) kir.Value {
	ki := f.toInt(k)
	k1 := f.bin(kir.ShrS, ki, f.cu(1))
	k2 := f.bin(kir.Sub, ki, k1)
	return f.mul(f.mul(p, f.pow2(k1)), f.pow2(k2))
}

// frexp returns m in [0.5, 1) and the integer e with x = m·2^e, for a
// positive finite nonzero x (subnormals are scaled by 2^64 first).
func (f fb) frexp(x kir.Value) (m, e kir.Value) {
	sub := f.lt(x, f.c(math.Ldexp(1, 1-int(f.bias()))))
	xs := f.sel(sub, f.mul(x, f.c(math.Ldexp(1, 64))), x)
	u := f.bits(xs)
	e = f.bin(kir.Sub, f.bin(kir.ShrU, u, f.cu(int64(f.mb()))), f.cu(f.bias()-1))
	e = f.bin(kir.Sub, e, f.b.Select(sub, f.cu(64), f.cu(0)))
	mant := f.bin(kir.And, u, f.cu(1<<f.mb()-1))
	m = f.fromBits(f.bin(kir.Or, mant, f.cu((f.bias()-1)<<f.mb())))
	return m, e
}

// isInt reports an integral y (false for ±Inf and NaN).
func (f fb) isInt(y kir.Value) kir.Value {
	return f.and(f.eq(f.un(kir.Trunc, y), y), f.not(f.isInf(y)))
}

// splitHi returns x with its low bits cleared (mask keeps the top bits):
// a head whose square is exact.
func (f fb) splitHi(x kir.Value) kir.Value {
	mask := int64(-4096) // 0xfffff000: 12 bits of 24
	if f.w == 64 {
		mask = ^int64(1<<27 - 1)
	}
	return f.fromBits(f.bin(kir.And, f.bits(x), f.cu(mask)))
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
