package ir

import (
	"math"
	"testing"
)

func TestFloatBits(t *testing.T) {
	cases := []struct {
		kind FloatKind
		v    float64
		bits uint64
	}{
		{KindF16, 1, 0x3C00},
		{KindF16, -2, 0xC000},
		{KindF16, 65504, 0x7BFF},
		{KindF16, math.Ldexp(1, -24), 0x0001}, // smallest subnormal
		{KindF16, math.Inf(1), 0x7C00},
		{KindBF16, 1, 0x3F80},
		{KindBF16, -0.5, 0xBF00},
		{KindF32, 1, 0x3F800000},
		{KindF64, 1, 0x3FF0000000000000},
		{KindTF32, 1, 0x1FC00},
		{KindF8E4M3FN, 448, 0x7E},
		{KindF8E4M3FN, -1, 0xB8},
		{KindF8E4M3FN, math.Ldexp(1, -9), 0x01},
		{KindF8E5M2, 57344, 0x7B},
		{KindF8E5M2, math.Inf(-1), 0xFC},
		{KindF8E4M3FNUZ, 1, 0x40},
		{KindF8E5M2FNUZ, 1, 0x40},
		{KindF8E4M3B11FNUZ, 1, 0x58},
		{KindF8E4M3, 1, 0x38},
		{KindF8E3M4, 1, 0x30},
		{KindF8E8M0FNU, 1, 0x7F},
		{KindF8E8M0FNU, 0.25, 0x7D},
		{KindF4E2M1FN, 6, 0x7},
		{KindF4E2M1FN, -0.5, 0x9},
		{KindF6E2M3FN, 7.5, 0x1F},
		{KindF6E3M2FN, 28, 0x1F},
	}
	for _, c := range cases {
		got, ok := FloatToBits(c.kind, c.v)
		if !ok || got != c.bits {
			t.Errorf("%s(%g): bits %#x %v, want %#x", c.kind, c.v, got, ok, c.bits)
		}
		back, ok := FloatFromBits(c.kind, c.bits)
		if !ok || back != c.v {
			t.Errorf("%s(%#x): value %g %v, want %g", c.kind, c.bits, back, ok, c.v)
		}
	}
}

func TestFloatNaN(t *testing.T) {
	for k, want := range map[FloatKind]uint64{
		KindF16: 0x7E00, KindBF16: 0x7FC0, KindF32: 0x7FC00000, KindF8E4M3FN: 0x7F,
		KindF8E4M3FNUZ: 0x80, KindF8E5M2: 0x7E, KindF8E8M0FNU: 0xFF,
	} {
		got, ok := FloatToBits(k, math.NaN())
		if !ok || got != want {
			t.Errorf("%s NaN: %#x %v, want %#x", k, got, ok, want)
		}
		if v, _ := FloatFromBits(k, want); !math.IsNaN(v) {
			t.Errorf("%s: %#x decodes to %g", k, want, v)
		}
	}
	if _, ok := FloatToBits(KindF4E2M1FN, math.NaN()); ok {
		t.Error("f4E2M1FN has no NaN")
	}
	if _, ok := FloatToBits(KindF80, 1); ok {
		t.Error("f80 bits should be unsupported")
	}
}

func TestRoundFloat(t *testing.T) {
	cases := []struct {
		kind   FloatKind
		in, to float64
	}{
		{KindF16, 0.1, 0.0999755859375},
		{KindF16, 1 + math.Ldexp(1, -11), 1},                       // tie to even
		{KindF16, 1 + 3*math.Ldexp(1, -11), 1 + math.Ldexp(1, -9)}, // tie to even, upward
		{KindF16, 65520, math.Inf(1)},
		{KindF16, 65519, 65504},
		{KindF16, math.Ldexp(1, -26), 0},
		{KindBF16, 3.14159, 3.140625},
		{KindF32, 0.1, float64(float32(0.1))},
		{KindF8E4M3FN, 1000, math.NaN()},
		{KindF4E2M1FN, 100, 6},
		{KindF8E4M3FNUZ, math.Copysign(0, -1), 0},
		{KindF8E8M0FNU, 3.5, 4},
	}
	for _, c := range cases {
		got := RoundFloat(c.kind, c.in)
		if got != c.to && !(math.IsNaN(got) && math.IsNaN(c.to)) {
			t.Errorf("%s(%g) = %g, want %g", c.kind, c.in, got, c.to)
		}
	}
	if math.Signbit(RoundFloat(KindF8E4M3FNUZ, math.Copysign(0, -1))) {
		t.Error("FNUZ formats have no negative zero")
	}
}

func TestFloatKindNames(t *testing.T) {
	for k := KindF16; k <= KindF4E2M1FN; k++ {
		back, ok := FloatKindByName(k.String())
		if !ok || back != k {
			t.Errorf("%s does not map back", k)
		}
	}
	if _, ok := FloatKindByName("f7"); ok {
		t.Error("f7 accepted")
	}
}

func TestFormatFloat(t *testing.T) {
	cases := []struct {
		v    float64
		t    Type
		want string
	}{
		{1, F32, "1.000000e+00"},
		{0.1, F64, "1.000000e-01"},
		{float64(float32(0.1)), F32, "1.000000e-01"},
		{1.0 / 3, F64, "3.333333333333333e-01"},
		{math.Inf(-1), F32, "0xFF800000"},
		{math.NaN(), F16, "0x7E00"},
		{math.Copysign(0, -1), F32, "-0.000000e+00"},
	}
	for _, c := range cases {
		if got := FormatFloat(c.v, c.t); got != c.want {
			t.Errorf("FormatFloat(%g, %s) = %s, want %s", c.v, c.t, got, c.want)
		}
	}
}
