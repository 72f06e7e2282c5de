package ptxsim

import (
	"math"
	"math/big"
	"math/rand"
	"testing"
)

var cvtCases = []opCase{
	{name: "cvt_rzi_s32_f32", op: "cvt.rzi.s32.f32 D, A", td: "s32", ta: "f32",
		in: a1(nanIn32, f32b(3e9), f32b(-3e9), f32b(-1.5), infF32, ninfF32, f32b(2147483520)), want: ws(0, maxI32, minI32, i64(-1), maxI32, minI32, 2147483520)},
	{name: "cvt_rni_s32_f32", op: "cvt.rni.s32.f32 D, A", td: "s32", ta: "f32", in: a1(f32b(2.5), f32b(3.5), f32b(-2.5)), want: ws(2, 4, i64(-2))},
	{name: "cvt_rmi_s32_f32", op: "cvt.rmi.s32.f32 D, A", td: "s32", ta: "f32", in: a1(f32b(-1.5), f32b(1.5)), want: ws(i64(-2), 1)},
	{name: "cvt_rpi_s32_f32", op: "cvt.rpi.s32.f32 D, A", td: "s32", ta: "f32", in: a1(f32b(1.1), f32b(-1.9)), want: ws(2, i64(-1))},
	{name: "cvt_rzi_u32_f32", op: "cvt.rzi.u32.f32 D, A", td: "u32", ta: "f32", in: a1(f32b(-1), f32b(5e9), nanIn32, f32b(-0.5)), want: ws(0, 0xffffffff, 0, 0)},
	{name: "cvt_rzi_s64_f64", op: "cvt.rzi.s64.f64 D, A", td: "s64", ta: "f64",
		in: a1(f64b(1e19), f64b(-1e19), f64b(-7.9), nanF64), want: ws(1<<63-1, minI64, i64(-7), 0)},
	{name: "cvt_rzi_u64_f32", op: "cvt.rzi.u64.f32 D, A", td: "u64", ta: "f32", in: a1(f32b(1e20), f32b(1e19)), want: ws(allOne, 9999999980506447872)},
	{name: "cvt_rzi_u8_f32", op: "cvt.rzi.u8.f32 D, A", td: "u16", ta: "f32", in: a1(f32b(300), f32b(-3), f32b(7.9)), want: ws(255, 0, 7)},
	{name: "cvt_rzi_s8_f32", op: "cvt.rzi.s8.f32 D, A", td: "s16", ta: "f32", in: a1(f32b(-200), f32b(200), f32b(-5)), want: ws(0xff80, 0x7f, 0xfffb)},
	{name: "cvt_rzi_s16_f64", op: "cvt.rzi.s16.f64 D, A", td: "s16", ta: "f64", in: a1(f64b(1e6), f64b(-40000)), want: ws(0x7fff, 0x8000)},
	{name: "cvt_rn_f32_s32", op: "cvt.rn.f32.s32 D, A", td: "f32", ta: "s32", in: a1(16777217, i64(-16777219), 0xffffffff), want: ws(f32b(16777216), f32b(-16777220), f32b(-1))},
	{name: "cvt_rz_f32_u32", op: "cvt.rz.f32.u32 D, A", td: "f32", ta: "u32", in: a1(0xffffffff, 16777217), want: ws(0x4f7fffff, f32b(16777216))},
	{name: "cvt_rn_f32_u32", op: "cvt.rn.f32.u32 D, A", td: "f32", ta: "u32", in: a1(0xffffffff), want: ws(0x4f800000)},
	{name: "cvt_rp_f32_s32", op: "cvt.rp.f32.s32 D, A", td: "f32", ta: "s32", in: a1(16777217, i64(-16777217)), want: ws(0x4b800001, f32b(-16777216))},
	{name: "cvt_rm_f32_s64", op: "cvt.rm.f32.s64 D, A", td: "f32", ta: "s64", in: a1(i64(-16777217), 1<<63-1), want: ws(f32b(-16777218), 0x5effffff)},
	{name: "cvt_rn_f32_u64", op: "cvt.rn.f32.u64 D, A", td: "f32", ta: "u64", in: a1(allOne, 1<<24+1), want: ws(0x5f800000, f32b(16777216))},
	{name: "cvt_rn_f64_s64", op: "cvt.rn.f64.s64 D, A", td: "f64", ta: "s64", in: a1(1<<63-1, minI64, 1<<53+1), want: ws(f64b(math.Ldexp(1, 63)), f64b(-math.Ldexp(1, 63)), f64b(math.Ldexp(1, 53)))},
	{name: "cvt_rz_f64_u64", op: "cvt.rz.f64.u64 D, A", td: "f64", ta: "u64", in: a1(allOne), want: ws(0x43efffffffffffff)},
	{name: "cvt_rn_f16_f32", op: "cvt.rn.f16.f32 D, A", td: "b16", ta: "f32",
		in: a1(one32, f32b(65520), f32b(65519), nanIn32, f32b(math.Ldexp(1, -24)), f32b(math.Ldexp(1, -25)), f32b(1.5*math.Ldexp(1, -25)),
			f32b(1+math.Ldexp(1, -11)), f32b(1+3*math.Ldexp(1, -11)), f32b(-2), ninfF32, negZ32, f32b(math.Ldexp(1, -14))),
		want: ws(0x3c00, 0x7c00, 0x7bff, 0x7fff, 0x0001, 0, 0x0001, 0x3c00, 0x3c02, 0xc000, 0xfc00, 0x8000, 0x0400)},
	{name: "cvt_rz_f16_f32", op: "cvt.rz.f16.f32 D, A", td: "b16", ta: "f32", in: a1(f32b(1e6), f32b(-1e6), infF32), want: ws(0x7bff, 0xfbff, 0x7c00)},
	{name: "cvt_rm_f16_f32", op: "cvt.rm.f16.f32 D, A", td: "b16", ta: "f32", in: a1(f32b(1e6), f32b(-1e6), f32b(-math.Ldexp(1, -30))), want: ws(0x7bff, 0xfc00, 0x8001)},
	{name: "cvt_rp_f16_f32", op: "cvt.rp.f16.f32 D, A", td: "b16", ta: "f32", in: a1(f32b(1+math.Ldexp(1, -20)), f32b(math.Ldexp(1, -30))), want: ws(0x3c01, 0x0001)},
	{name: "cvt_f32_f16", op: "cvt.f32.f16 D, A", td: "f32", ta: "b16", in: a1(0x3c00, 0x7c00, 0x0001, 0xfbff, 0x7e00, 0x8000), want: ws(one32, infF32, 0x33800000, f32b(-65504), nan32, negZ32)},
	{name: "cvt_f64_f16", op: "cvt.f64.f16 D, A", td: "f64", ta: "b16", in: a1(0x3555), want: ws(f64b(0.333251953125))},
	{name: "cvt_rn_f16_f64", op: "cvt.rn.f16.f64 D, A", td: "b16", ta: "f64", in: a1(f64b(1.0/3), f64b(1+math.Ldexp(1, -11)+math.Ldexp(1, -40))), want: ws(0x3555, 0x3c01)},
	{name: "cvt_rn_bf16_f32", op: "cvt.rn.bf16.f32 D, A", td: "b16", ta: "f32", in: a1(0x3f808000, 0x3f818000, 0x3f808001, nanIn32, 0x7f7fffff), want: ws(0x3f80, 0x3f82, 0x3f81, 0x7fff, 0x7f80)},
	{name: "cvt_rz_bf16_f32", op: "cvt.rz.bf16.f32 D, A", td: "b16", ta: "f32", in: a1(0x3f81ffff, 0x7f7fffff), want: ws(0x3f81, 0x7f7f)},
	{name: "cvt_f32_bf16", op: "cvt.f32.bf16 D, A", td: "f32", ta: "b16", in: a1(0x3f80, 0xc040), want: ws(one32, f32b(-3))},
	{name: "cvt_rn_f32_f64", op: "cvt.rn.f32.f64 D, A", td: "f32", ta: "f64", in: a1(f64b(1e300), f64b(-1e300), f64b(1e-45), f64b(1.0/3)), want: ws(infF32, ninfF32, 1, 0x3eaaaaab)},
	{name: "cvt_rz_f32_f64", op: "cvt.rz.f32.f64 D, A", td: "f32", ta: "f64", in: a1(f64b(1e300), f64b(1.0/3)), want: ws(maxF32, 0x3eaaaaaa)},
	{name: "cvt_ftz_f32_f64", op: "cvt.rn.ftz.f32.f64 D, A", td: "f32", ta: "f64", in: a1(f64b(1e-40), f64b(-1e-40)), want: ws(0, negZ32)},
	{name: "cvt_f64_f32", op: "cvt.f64.f32 D, A", td: "f64", ta: "f32", in: a1(sub32, infF32), want: ws(f64b(math.Ldexp(1, -149)), f64b(math.Inf(1)))},
	{name: "cvt_ftz_f32_f32", op: "cvt.ftz.f32.f32 D, A", td: "f32", ta: "f32", in: a1(sub32, 0x80000005, one32), want: ws(0, negZ32, one32)},
	{name: "cvt_sat_f32_f32", op: "cvt.sat.f32.f32 D, A", td: "f32", ta: "f32", in: a1(f32b(2), f32b(-1), nanIn32, f32b(0.5)), want: ws(one32, 0, 0, f32b(0.5))},
	{name: "cvt_rni_f32_f32", op: "cvt.rni.f32.f32 D, A", td: "f32", ta: "f32", in: a1(f32b(2.5), f32b(-3.5), f32b(1e30)), want: ws(f32b(2), f32b(-4), f32b(1e30))},
	{name: "cvt_rzi_f64_f64", op: "cvt.rzi.f64.f64 D, A", td: "f64", ta: "f64", in: a1(f64b(-2.7)), want: ws(f64b(-2))},
	{name: "cvt_s32_s8", op: "cvt.s32.s8 D, A", td: "s32", ta: "b16", in: a1(0x80, 0x7f, 0xff00), want: ws(0xffffff80, 0x7f, 0)},
	{name: "cvt_u32_s8", op: "cvt.u32.s8 D, A", td: "u32", ta: "b16", in: a1(0x80), want: ws(0xffffff80)},
	{name: "cvt_u32_u8", op: "cvt.u32.u8 D, A", td: "u32", ta: "b16", in: a1(0x1ff), want: ws(0xff)},
	{name: "cvt_sat_u8_s32", op: "cvt.sat.u8.s32 D, A", td: "u32", ta: "s32", in: a1(i64(-5), 300, 200), want: ws(0, 255, 200)},
	{name: "cvt_sat_s8_s32", op: "cvt.sat.s8.s32 D, A", td: "s32", ta: "s32", in: a1(200, i64(-200), i64(-5)), want: ws(127, 0xffffff80, 0xfffffffb)},
	{name: "cvt_sat_s32_u32", op: "cvt.sat.s32.u32 D, A", td: "s32", ta: "u32", in: a1(0xffffffff, 5), want: ws(maxI32, 5)},
	{name: "cvt_sat_u32_s64", op: "cvt.sat.u32.s64 D, A", td: "u32", ta: "s64", in: a1(allOne, 1<<40, 7), want: ws(0, 0xffffffff, 7)},
	{name: "cvt_sat_s16_u64", op: "cvt.sat.s16.u64 D, A", td: "s16", ta: "u64", in: a1(allOne, 7), want: ws(0x7fff, 7)},
	{name: "cvt_u16_u32", op: "cvt.u16.u32 D, A", td: "u16", ta: "u32", in: a1(0x12345), want: ws(0x2345)},
	{name: "cvt_s64_s32", op: "cvt.s64.s32 D, A", td: "s64", ta: "s32", in: a1(0xffffffff, 5), want: ws(allOne, 5)},
	{name: "cvt_u64_u32", op: "cvt.u64.u32 D, A", td: "u64", ta: "u32", in: a1(0xffffffff), want: ws(0xffffffff)},
	{name: "cvt_s32_s64", op: "cvt.s32.s64 D, A", td: "s32", ta: "s64", in: a1(0x1_8000_0001), want: ws(0x80000001)},
	{name: "ld_sext", op: "ld.global.s8 %t1, [%addr0]; ld.global.u8 %t2, [%addr0]; ld.global.s16 %t3, [%addr0]; xor.b32 %t1, %t1, %t2; xor.b32 D, %t1, %t3",
		td: "u32", ta: "u32", in: a1(0x8080), want: ws(0xffffff80 ^ 0x80 ^ 0xffff8080)},
	{name: "ld_vec", op: "ld.global.v2.u32 {%t1, %t2}, [%addr0]; sub.u32 D, %t1, %t2; st.global.v2.u32 [%addr1], {%t2, %t1}",
		td: "u32", ta: "u32", in: a1(0x0000000300000010), want: ws(0xd)},
}

func TestConversions(t *testing.T) {
	for _, c := range cvtCases {
		t.Run(c.name, func(t *testing.T) { runOpCase(t, c) })
	}
}

// oracleRound rounds the exact value z to format f with mode, using
// big.Float for normal results and integer quanta below the normal range
// (an independent model of roundBits). The result is an f64 value and
// whether it overflowed to infinity.
func oracleRound(z *big.Float, f ffmt, mode big.RoundingMode) float64 {
	emin := 1 - f.bias()
	maxv := math.Ldexp(2-math.Ldexp(1, -int(f.mbits)), f.bias())
	if z.Sign() == 0 {
		r, _ := z.Float64()
		return r
	}
	var r float64
	if z.MantExp(nil)-1 < emin {
		q := int(f.mbits) - emin // scale so that one quantum is 1
		s := new(big.Float).SetMantExp(z, q)
		n, acc := s.Int(nil)
		if acc != big.Exact {
			frac := new(big.Float).Sub(s, new(big.Float).SetInt(n))
			frac.Abs(frac)
			half := frac.Cmp(big.NewFloat(0.5))
			up := false // away from zero
			switch mode {
			case big.ToNearestEven:
				up = half > 0 || half == 0 && n.Bit(0) == 1
			case big.ToNegativeInf:
				up = z.Sign() < 0
			case big.ToPositiveInf:
				up = z.Sign() > 0
			}
			if up {
				if z.Sign() < 0 {
					n.Sub(n, big.NewInt(1))
				} else {
					n.Add(n, big.NewInt(1))
				}
			}
		}
		r = math.Ldexp(float64(n.Int64()), -q)
		if r == 0 && z.Sign() < 0 {
			r = math.Copysign(0, -1)
		}
		return r
	}
	y := new(big.Float).SetMode(mode).SetPrec(f.mbits + 1).Set(z)
	r, _ = y.Float64()
	if math.Abs(r) > maxv {
		toInf := mode == big.ToNearestEven || mode == big.ToPositiveInf && r > 0 || mode == big.ToNegativeInf && r < 0
		if toInf {
			return math.Inf(int(math.Copysign(1, r)))
		}
		return math.Copysign(maxv, r)
	}
	return r
}

// TestConversionRoundingRandom compares f64→f16/bf16/f32 and
// integer→float conversions with oracleRound in every rounding mode.
func TestConversionRoundingRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	modes := map[uint8]big.RoundingMode{rndRN: big.ToNearestEven, rndRZ: big.ToZero, rndRM: big.ToNegativeInf, rndRP: big.ToPositiveInf}
	for _, dt := range []ptype{tF16, tBF16, tF32} {
		f := fmtOf(dt)
		for i := 0; i < 6000; i++ {
			e := rng.Intn(2*f.bias()+2*int(f.mbits)+8) - f.bias() - int(f.mbits) - 4
			x := math.Ldexp(rng.Float64()+0.5, e)
			if y := float64(float32(x)); i%3 == 0 && !math.IsInf(y, 0) { // fewer low bits: ties
				x = y
			}
			if i%3 == 1 { // two bits below the precision: exact ties
				x = math.Ldexp(float64(rng.Int63n(1<<(f.mbits+2))|1<<(f.mbits+1)), e-int(f.mbits)-1)
			}
			if rng.Intn(2) == 0 {
				x = -x
			}
			for rnd, mode := range modes {
				want := oracleRound(new(big.Float).SetFloat64(x), f, mode)
				got := toF64(cvtFloat(x, dt, rnd, false), dt)
				if got != want || math.Signbit(got) != math.Signbit(want) {
					t.Fatalf("cvt rnd %d %v of %g (%#x) = %g, want %g", rnd, dt, x, math.Float64bits(x), got, want)
				}
			}
		}
	}
	for _, dt := range []ptype{tF16, tBF16, tF32, tF64} {
		for _, st := range []ptype{tS32, tU32, tS64, tU64} {
			for rnd, mode := range modes {
				fn, err := makeCvt(dt, st, rnd, false, false)
				if err != nil {
					t.Fatal(err)
				}
				for i := 0; i < 500; i++ {
					v := rng.Uint64() >> uint(rng.Intn(64))
					if st.bits() == 32 {
						v &= 0xffffffff
					}
					var z *big.Float
					if st.signed() {
						z = new(big.Float).SetInt64(sext(v, uint8(st.bits())))
					} else {
						z = new(big.Float).SetUint64(v)
					}
					want := oracleRound(z, fmtOf(dt), mode)
					if got := toF64(fn(v), dt); got != want {
						t.Fatalf("cvt rnd %d %v.%v of %#x = %g, want %g", rnd, dt, st, v, got, want)
					}
				}
			}
		}
	}
}
