package ptxsim

import (
	"math"
	"math/big"
	"math/rand"
	"testing"
)

const (
	one32   = 0x3f800000
	tiny32  = 0x30800000 // 2^-30
	minN32  = 0x00800000 // smallest normal
	sub32   = 0x00000001 // smallest subnormal
	one64   = 0x3ff0000000000000
	tiny64  = 0x3c30000000000000 // 2^-60
	nanIn32 = 0x7fc00001
)

var floatCases = []opCase{
	{name: "add_f32", op: "add.f32 D, A, B", td: "f32", ta: "f32", tb: "f32",
		in: ab(f32b(1.5), f32b(2.25), nanIn32, one32, infF32, ninfF32, maxF32, maxF32), want: ws(f32b(3.75), nan32, nan32, infF32)},
	{name: "add_rz_f32", op: "add.rz.f32 D, A, B", td: "f32", ta: "f32", tb: "f32",
		in: ab(one32, tiny32, maxF32, maxF32, f32b(-1), f32b(-1)*0+0xb0800000), want: ws(one32, maxF32, 0xbf800000)},
	{name: "add_rp_f32", op: "add.rp.f32 D, A, B", td: "f32", ta: "f32", tb: "f32",
		in: ab(one32, tiny32, 0xbf800000, 0xb0800000, one32, 0xbf800000), want: ws(0x3f800001, 0xbf800000, 0)},
	{name: "add_rm_f32", op: "add.rm.f32 D, A, B", td: "f32", ta: "f32", tb: "f32",
		in: ab(0xbf800000, 0xb0800000, one32, 0xbf800000, 0, 0, negZ32, negZ32, maxF32, maxF32), want: ws(0xbf800001, negZ32, 0, negZ32, maxF32)},
	{name: "sub_rn_f32", op: "sub.rn.f32 D, A, B", td: "f32", ta: "f32", tb: "f32",
		in: ab(one32, one32, infF32, infF32), want: ws(0, nan32)},
	{name: "mul_f32", op: "mul.rn.f32 D, A, B", td: "f32", ta: "f32", tb: "f32",
		in: ab(minN32, f32b(0.5), f32b(3), negZ32), want: ws(0x00400000, negZ32)},
	{name: "mul_ftz_f32", op: "mul.ftz.f32 D, A, B", td: "f32", ta: "f32", tb: "f32",
		in: ab(minN32, f32b(0.5), sub32, f32b(1e30), 0x80800000, f32b(0.5)), want: ws(0, 0, negZ32)},
	{name: "mul_rz_f32", op: "mul.rz.f32 D, A, B", td: "f32", ta: "f32", tb: "f32",
		in: ab(0x3f800001, 0x3f800001, 0xbf800001, 0x3f800001), want: ws(0x3f800002, 0xbf800002)},
	{name: "mul_rp_f32", op: "mul.rp.f32 D, A, B", td: "f32", ta: "f32", tb: "f32",
		in: ab(0x3f800001, 0x3f800001, sub32, f32b(0.5)), want: ws(0x3f800003, sub32)},
	{name: "add_sat_f32", op: "add.sat.f32 D, A, B", td: "f32", ta: "f32", tb: "f32",
		in: ab(f32b(0.5), f32b(0.75), nanIn32, 0, f32b(-2), 0, f32b(0.25), 0), want: ws(one32, 0, 0, f32b(0.25))},
	{name: "add_f64", op: "add.f64 D, A, B", td: "f64", ta: "f64", tb: "f64",
		in: ab(f64b(1.5), f64b(2.25), f64b(math.Inf(1)), f64b(math.Inf(-1))), want: ws(f64b(3.75), nan64)},
	{name: "add_rz_f64", op: "add.rz.f64 D, A, B", td: "f64", ta: "f64", tb: "f64", in: ab(one64, tiny64), want: ws(one64)},
	{name: "add_rp_f64", op: "add.rp.f64 D, A, B", td: "f64", ta: "f64", tb: "f64", in: ab(one64, tiny64), want: ws(one64 + 1)},
	{name: "mul_rm_f64", op: "mul.rm.f64 D, A, B", td: "f64", ta: "f64", tb: "f64", in: ab(one64+1, f64b(-1)+1), want: ws(f64b(-1) + 3)},
	{name: "fma_rn_f32", op: "fma.rn.f32 D, A, B, C", td: "f32", ta: "f32", tb: "f32", tc: "f32",
		// (1+2^-23)^2 - 1 = 2^-22 + 2^-46 exactly representable with fma, lost without.
		in: abc(0x3f800001, 0x3f800001, 0xbf800000, f32b(2), f32b(3), f32b(4)), want: ws(f32b(math.Ldexp(1, -22)+math.Ldexp(1, -46)), f32b(10))},
	{name: "fma_rn_f32_tie", op: "fma.rn.f32 D, A, B, C", td: "f32", ta: "f32", tb: "f32", tc: "f32",
		// a*b = 1 + 2^-24 + 2^-48: rounding the f64 sum 1+2^-24 would tie to 1; exact rounds up.
		in: abc(f32b(1+math.Ldexp(1, -24)), f32b(1+math.Ldexp(1, -24)), 0), want: ws(f32b(1) + 0)},
	{name: "mad_rn_f64", op: "mad.rn.f64 D, A, B, C", td: "f64", ta: "f64", tb: "f64", tc: "f64",
		in: abc(one64+1, one64+1, f64b(-1)), want: ws(f64b(math.Ldexp(1, -51) + math.Ldexp(1, -104)))},
	{name: "fma_rz_f32", op: "fma.rz.f32 D, A, B, C", td: "f32", ta: "f32", tb: "f32", tc: "f32",
		in: abc(f32b(3), 0x3eaaaaaa, 0, f32b(3), 0x3eaaaaab, 0), want: ws(0x3f7fffff, one32)},
	{name: "div_rn_f32", op: "div.rn.f32 D, A, B", td: "f32", ta: "f32", tb: "f32",
		in: ab(one32, f32b(3), one32, 0, 0, 0, negZ32, one32), want: ws(0x3eaaaaab, infF32, nan32, negZ32)},
	{name: "div_rz_f32", op: "div.rz.f32 D, A, B", td: "f32", ta: "f32", tb: "f32", in: ab(one32, f32b(3), one32, 0), want: ws(0x3eaaaaaa, infF32)},
	{name: "div_full_f32", op: "div.full.f32 D, A, B", td: "f32", ta: "f32", tb: "f32", in: ab(f32b(6), f32b(3)), want: ws(f32b(2))},
	{name: "div_approx_f32", op: "div.approx.f32 D, A, B", td: "f32", ta: "f32", tb: "f32", in: ab(f32b(6), f32b(4)), want: ws(f32b(1.5))},
	{name: "div_rn_f64", op: "div.rn.f64 D, A, B", td: "f64", ta: "f64", tb: "f64", in: ab(one64, f64b(3)), want: ws(f64b(1.0 / 3))},
	{name: "div_rp_f64", op: "div.rp.f64 D, A, B", td: "f64", ta: "f64", tb: "f64", in: ab(one64, f64b(3)), want: ws(f64b(1.0/3) + 1)},
	{name: "sqrt_f32", op: "sqrt.rn.f32 D, A", td: "f32", ta: "f32", in: a1(f32b(2), f32b(-1), negZ32, infF32), want: ws(0x3fb504f3, nan32, negZ32, infF32)},
	{name: "sqrt_rp_f32", op: "sqrt.rp.f32 D, A", td: "f32", ta: "f32", in: a1(f32b(2), f32b(4)), want: ws(0x3fb504f4, f32b(2))},
	{name: "sqrt_f64", op: "sqrt.rn.f64 D, A", td: "f64", ta: "f64", in: a1(f64b(2)), want: ws(f64b(math.Sqrt2))},
	{name: "rcp_f32", op: "rcp.rn.f32 D, A", td: "f32", ta: "f32", in: a1(f32b(3), 0, negZ32), want: ws(0x3eaaaaab, infF32, ninfF32)},
	{name: "rcp_rz_f64", op: "rcp.rz.f64 D, A", td: "f64", ta: "f64", in: a1(f64b(3)), want: ws(f64b(1.0 / 3))},
	{name: "rcp_approx_ftz_f64", op: "rcp.approx.ftz.f64 D, A", td: "f64", ta: "f64", in: a1(f64b(4), 1, f64b(1e308)), want: ws(f64b(0.25), f64b(math.Inf(1)), 0)},
	{name: "rsqrt_f32", op: "rsqrt.approx.f32 D, A", td: "f32", ta: "f32", in: a1(f32b(4), 0), want: ws(f32b(0.5), infF32)},
	{name: "ex2_lg2", op: "ex2.approx.f32 %fb, A; lg2.approx.f32 %fc, %fb; add.f32 D, %fb, %fc", td: "f32", ta: "f32", in: a1(f32b(3)), want: ws(f32b(11))},
	{name: "min_f32", op: "min.f32 D, A, B", td: "f32", ta: "f32", tb: "f32",
		in: ab(nanIn32, one32, one32, nanIn32, nanIn32, nanIn32, negZ32, 0, 0, negZ32, f32b(-3), f32b(2)), want: ws(one32, one32, nan32, negZ32, negZ32, f32b(-3))},
	{name: "max_f32", op: "max.f32 D, A, B", td: "f32", ta: "f32", tb: "f32",
		in: ab(nanIn32, one32, negZ32, 0, 0, negZ32, f32b(-3), f32b(2)), want: ws(one32, 0, 0, f32b(2))},
	{name: "min_nan_f32", op: "min.NaN.f32 D, A, B", td: "f32", ta: "f32", tb: "f32",
		in: ab(nanIn32, one32, one32, nanIn32, f32b(2), one32), want: ws(nan32, nan32, one32)},
	{name: "max_f64", op: "max.f64 D, A, B", td: "f64", ta: "f64", tb: "f64",
		in: ab(nanF64, one64, f64b(-1), f64b(2)), want: ws(one64, f64b(2))},
	{name: "min_ftz_f32", op: "min.ftz.f32 D, A, B", td: "f32", ta: "f32", tb: "f32", in: ab(sub32, one32), want: ws(0)},
	{name: "neg_abs_f32", op: "neg.f32 %fb, A; abs.f32 D, %fb", td: "f32", ta: "f32", in: a1(0, f32b(-2), infF32), want: ws(0, f32b(2), infF32)},
	{name: "neg_f64", op: "neg.f64 D, A", td: "f64", ta: "f64", in: a1(0, one64), want: ws(1<<63, f64b(-1))},
	{name: "copysign_f32", op: "copysign.f32 D, A, B", td: "f32", ta: "f32", tb: "f32",
		in: ab(f32b(-1), f32b(2), one32, f32b(-3), negZ32, infF32), want: ws(f32b(-2), f32b(3), ninfF32)},
	{name: "copysign_f64", op: "copysign.f64 D, A, B", td: "f64", ta: "f64", tb: "f64", in: ab(f64b(-1), f64b(2)), want: ws(f64b(-2))},
	{name: "testp_f32", op: "testp.notanumber.f32 %p1, A; testp.infinite.f32 %p2, A; testp.subnormal.f32 %p3, A; selp.u32 %t1, 1, 0, %p1; selp.u32 %t2, 2, 0, %p2; selp.u32 %t3, 4, 0, %p3; or.b32 %t1, %t1, %t2; or.b32 %t1, %t1, %t3; testp.normal.f32 %p1, A; testp.finite.f32 %p2, A; testp.number.f32 %p3, A; selp.u32 %t2, 8, 0, %p1; selp.u32 %t3, 16, 0, %p2; or.b32 %t1, %t1, %t2; or.b32 %t1, %t1, %t3; selp.u32 %t2, 32, 0, %p3; or.b32 D, %t1, %t2",
		td: "u32", ta: "f32", in: a1(nanIn32, infF32, sub32, one32, 0), want: ws(1, 2|32, 4|16|32, 8|16|32, 16|32)},
	{name: "testp_f64", op: "testp.notanumber.f64 %p1, A; selp.u32 D, 1, 0, %p1", td: "u32", ta: "f64", in: a1(nanF64, one64), want: ws(1, 0)},
	{name: "setp_f32", op: "setp.lt.f32 %p1, A, B; setp.ltu.f32 %p2, A, B; setp.ne.f32 %p3, A, B; selp.u32 %t1, 1, 0, %p1; selp.u32 %t2, 2, 0, %p2; selp.u32 %t3, 4, 0, %p3; or.b32 %t1, %t1, %t2; or.b32 %t1, %t1, %t3; setp.neu.f32 %p1, A, B; setp.nan.f32 %p2, A, B; setp.num.f32 %p3, A, B; selp.u32 %t2, 8, 0, %p1; selp.u32 %t3, 16, 0, %p2; or.b32 %t1, %t1, %t2; or.b32 %t1, %t1, %t3; selp.u32 %t2, 32, 0, %p3; or.b32 D, %t1, %t2",
		td: "u32", ta: "f32", tb: "f32", in: ab(nanIn32, one32, nanIn32, nanIn32, 0, one32, one32, one32, negZ32, 0),
		want: ws(2|8|16, 2|8|16, 1|2|4|8|32, 32, 32)},
	{name: "setp_equ_f64", op: "setp.equ.f64 %p1, A, B; setp.ge.f64 %p2, A, B; selp.u32 %t1, 1, 0, %p1; selp.u32 %t2, 2, 0, %p2; or.b32 D, %t1, %t2",
		td: "u32", ta: "f64", tb: "f64", in: ab(nanF64, one64, one64, one64, f64b(2), one64), want: ws(1, 3, 2)},
	{name: "setp_ftz", op: "setp.eq.ftz.f32 %p1, A, B; selp.u32 D, 1, 0, %p1", td: "u32", ta: "f32", tb: "f32", in: ab(sub32, 0, sub32, negZ32), want: ws(1, 1)},
	{name: "imm_float", op: "add.f32 D, A, 0f3F800000; add.f32 D, D, 0.5; add.f32 D, D, 0fC0000000", td: "f32", ta: "f32", in: a1(f32b(4)), want: ws(f32b(3.5))},
	{name: "imm_double", op: "add.f64 D, A, 0d3FF0000000000000; mul.f64 D, D, 0.25", td: "f64", ta: "f64", in: a1(f64b(3)), want: ws(f64b(1))},
}

func TestFloatOps(t *testing.T) {
	for _, c := range floatCases {
		t.Run(c.name, func(t *testing.T) { runOpCase(t, c) })
	}
}

// bigRound is an independent oracle: the exact result of op rounded to
// prec bits with mode (valid for results in the normal range).
func bigRound(sub uint8, prec uint, mode big.RoundingMode, a, b, c float64) float64 {
	x := func(v float64) *big.Float { return new(big.Float).SetPrec(2400).SetFloat64(v) }
	z := new(big.Float).SetPrec(2400)
	switch sub {
	case fAdd:
		z.Add(x(a), x(b))
	case fSub:
		z.Sub(x(a), x(b))
	case fMul:
		z.Mul(x(a), x(b))
	case fFma:
		z.Add(z.Mul(x(a), x(b)), x(c))
	case fDiv:
		z.Quo(x(a), x(b))
	case fSqrt:
		z.Sqrt(x(a))
	}
	z.SetMode(mode).SetPrec(prec)
	f, _ := z.Float64()
	return f
}

// TestDirectedRoundingRandom checks farith against big.Float for every
// operation and rounding mode on random operands whose results are normal.
func TestDirectedRoundingRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	modes := map[uint8]big.RoundingMode{rndRN: big.ToNearestEven, rndRZ: big.ToZero, rndRM: big.ToNegativeInf, rndRP: big.ToPositiveInf}
	rf := func(is32 bool) float64 {
		e := rng.Intn(40) - 20
		v := math.Ldexp(rng.Float64()+0.5, e)
		if rng.Intn(2) == 0 {
			v = -v
		}
		if is32 {
			return float64(float32(v))
		}
		return v
	}
	for i := 0; i < 20000; i++ {
		is32 := i%2 == 0
		sub := []uint8{fAdd, fSub, fMul, fFma, fDiv, fSqrt}[i/2%6]
		a, b, c := rf(is32), rf(is32), rf(is32)
		if sub == fSqrt {
			a = math.Abs(a)
		}
		if sub == fFma && i%4 == 0 {
			c = -a * b * (1 + math.Ldexp(1, -20)) // cancellation
			if is32 {
				c = float64(float32(c))
			}
		}
		for rnd, mode := range modes {
			prec := uint(53)
			if is32 {
				prec = 24
			}
			want := bigRound(sub, prec, mode, a, b, c)
			got := farith(sub, is32, rnd, a, b, c)
			if got != want && !(got == 0 && want == 0) {
				t.Fatalf("op %d is32=%v rnd %d (%g, %g, %g) = %g, want %g", sub, is32, rnd, a, b, c, got, want)
			}
		}
	}
}

// subnormal32 rounds an exact value below 2^-126 in magnitude to a float32
// with mode: an integer number of 2^-149 quanta (big.Float's Float32 only
// rounds to nearest).
func subnormal32(z *big.Float, mode big.RoundingMode) float32 {
	if mode == big.ToNearestEven {
		f, _ := z.Float32()
		return f
	}
	s := new(big.Float).SetMantExp(z, 149)
	q, acc := s.Int(nil) // truncated towards zero
	if acc != big.Exact {
		switch {
		case mode == big.ToNegativeInf && z.Sign() < 0:
			q.Sub(q, big.NewInt(1))
		case mode == big.ToPositiveInf && z.Sign() > 0:
			q.Add(q, big.NewInt(1))
		}
	}
	r := float32(math.Ldexp(float64(q.Int64()), -149))
	if q.Sign() == 0 && z.Sign() < 0 {
		r = float32(math.Copysign(0, -1))
	}
	return r
}

// TestDirectedRoundingSubnormal checks f32 results in the subnormal range
// against subnormal32.
func TestDirectedRoundingSubnormal(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	modes := map[uint8]big.RoundingMode{rndRN: big.ToNearestEven, rndRZ: big.ToZero, rndRM: big.ToNegativeInf, rndRP: big.ToPositiveInf}
	x := func(v float64) *big.Float { return new(big.Float).SetPrec(2400).SetFloat64(v) }
	checked := 0
	defer func() {
		if checked < 10000 {
			t.Errorf("only %d subnormal results checked", checked)
		}
	}()
	for i := 0; i < 20000; i++ {
		a := float64(float32(math.Ldexp(rng.Float64()+0.5, -60-rng.Intn(30))))
		b := float64(float32(math.Ldexp(rng.Float64()+0.5, -60-rng.Intn(20))))
		if rng.Intn(2) == 0 {
			b = -b
		}
		sub := []uint8{fMul, fDiv, fFma}[i%3]
		var bb float64
		if sub == fDiv {
			bb = float64(float32(math.Ldexp(rng.Float64()+0.5, 40+rng.Intn(30))))
		} else {
			bb = b
		}
		c := float64(float32(math.Ldexp(rng.Float64()-0.5, -126-rng.Intn(20))))
		for rnd, mode := range modes {
			z := new(big.Float).SetPrec(2400)
			switch sub {
			case fMul:
				z.Mul(x(a), x(bb))
			case fDiv:
				z.Quo(x(a), x(bb))
			case fFma:
				z.Add(z.Mul(x(a), x(bb)), x(c))
			}
			if z.Sign() != 0 && z.MantExp(nil) > -125 {
				continue
			}
			checked++
			w := subnormal32(z, mode)
			got := farith(sub, true, rnd, a, bb, c)
			if float32(got) != w || math.Signbit(got) != math.Signbit(float64(w)) {
				t.Fatalf("op %d rnd %d (%g, %g, %g) = %g (%#x), want %g (%#x)", sub, rnd, a, bb, c, got, math.Float32bits(float32(got)), w, math.Float32bits(w))
			}
		}
	}
}
