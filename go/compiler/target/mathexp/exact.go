package mathexp

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// The exactly rounded library ops.
//
// rsqrt is 1/Sqrt(x) computed in f64 (an f32 operand extended, the f64
// quotient rounded to f32), exactly the interpreter's value: the target
// needs f64 arithmetic for f32 rsqrt (the PTX emitter has it; an
// emitter without f64 must not run this expansion for Rsqrt).
//
// round is half away from zero, exactly: t = trunc(x), and t ± 1 where
// |x − t| ≥ ½ (x − t is exact).
//
// fmod (RemF) is Go's Mod, exactly: the remainder of |x| by |y| with the
// sign of x is always representable, and it is computed on the integer
// mantissas, as the SPIR-V library's fmod does (go/compiler/target/spirv/
// math.go). With |x| = mx·2^ex, |y| = my·2^ey (biased exponents,
// subnormals as exponent 1 without the implicit bit), the remainder is
// (mx·2^(ex−ey) mod my)·2^ey, and mx·2^n mod my is reduced a few bits at
// a time, r ← (r << s) mod my, in a bounded loop: s ≤ 11 bits of a u64
// (f64, mantissas below 2^53) or 8 of a u32 (f32, below 2^24), at most
// ⌈2046/11⌉ or ⌈253/8⌉ steps. Vector lanes share the loop (the longest
// lane's count); a lane whose shift is spent shifts by 0, which keeps r.
// The remainder, below 2^(mb+1), converts to float exactly and is scaled
// by 2^(ey−bias−mb) in two exact steps.

// fmod returns Go's Mod(x, y), exactly.
func (f fb) fmod(x, y kir.Value) kir.Value {
	b := f.b
	mb := int64(f.mb())
	sign := int64(-1) << (f.w - 1)
	if f.w == 32 {
		sign = int64(int32(math.MinInt32))
	}
	inf := int64(math.Float64bits(math.Inf(1)))
	if f.w == 32 {
		inf = int64(math.Float32bits(float32(math.Inf(1))))
	}
	mag := f.cu(^sign)
	ux, uy := f.bits(x), f.bits(y)
	ax, ay := f.bin(kir.And, ux, mag), f.bin(kir.And, uy, mag)
	implicit := f.cu(1 << mb)
	parts := func(a kir.Value) (m, ex kir.Value) {
		ex = f.bin(kir.ShrU, a, f.cu(mb))
		norm := f.icmp(kir.PredNE, ex, f.cu(0))
		m = f.bin(kir.And, a, f.cu(1<<mb-1))
		m = b.Select(norm, f.bin(kir.Or, m, implicit), m)
		return m, b.Select(norm, ex, f.cu(1))
	}
	mx, ex := parts(ax)
	my, ey := parts(ay)
	less := f.icmp(kir.PredULT, ax, ay)
	n := b.Select(less, f.cu(0), f.bin(kir.Sub, ex, ey))
	n = f.bin(kir.MaxS, n, f.cu(0))
	sh := int64(8)
	if f.w == 64 {
		sh = 11
	}
	// the loop's trip count: the longest lane's ⌈n/sh⌉
	maxn := n
	if f.t.IsVector() {
		maxn = b.Reduce(kir.ReduceMaxS, n)
	}
	if f.w == 32 {
		maxn = b.Emit(kir.ExtS, kir.S(kir.I64), maxn)
	}
	steps := b.Bin(kir.CeilDivS, maxn, b.Idx(sh))
	safeY := b.Select(f.icmp(kir.PredEQ, my, f.cu(0)), f.cu(1), my)
	r0 := f.bin(kir.RemU, mx, safeY)
	out := b.For(b.Idx(0), steps, b.Idx(1), []kir.Value{r0, n}, func(ib *kir.Builder, _ kir.Value, c []kir.Value) []kir.Value {
		g := newFB(ib, f.t)
		s := g.bin(kir.MinS, c[1], g.cu(sh))
		r := g.bin(kir.RemU, g.bin(kir.Shl, c[0], s), safeY)
		return []kir.Value{r, g.bin(kir.Sub, c[1], s)}
	})
	// r·2^(ey−bias−mb), exactly
	k := f.toFloat(f.bin(kir.Sub, ey, f.cu(f.bias()+mb)))
	res := f.scale(f.toFloat(out[0]), k)
	res = f.copySign(res, x)
	res = f.sel(less, x, res)
	bad := f.or(f.icmp(kir.PredEQ, ay, f.cu(0)), f.icmp(kir.PredUGE, ax, f.cu(inf)))
	bad = f.or(bad, f.icmp(kir.PredUGT, ay, f.cu(inf)))
	return f.sel(bad, f.nan(), res)
}

// rsqrt is 1/Sqrt(x), computed in f64 as the interpreter does.
func (f fb) rsqrt(x kir.Value) kir.Value {
	if f.w == 32 {
		d := f.with(kir.Type{Elem: kir.F64, Lanes: f.t.Lanes})
		return f.b.Emit(kir.FPTrunc, f.t, d.rsqrt(f.b.Emit(kir.FPExt, d.t, x)))
	}
	return f.div(f.c(1), f.sqrt(x))
}

// round rounds half away from zero (exactly: x − trunc(x) is exact).
func (f fb) round(x kir.Value) kir.Value {
	t := f.un(kir.Trunc, x)
	d := f.abs(f.sub(x, t))
	up := f.add(t, f.copySign(f.c(1), x))
	r := f.sel(f.ge(d, f.c(0.5)), up, t)
	return f.copySign(r, x)
}
