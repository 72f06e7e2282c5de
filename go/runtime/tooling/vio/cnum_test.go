package vio

import (
	"math"
	"testing"
)

func TestCIntegerParsing(t *testing.T) {
	i32 := []struct {
		s    string
		want int32
		ok   bool
	}{
		{"12", 12, true}, {"-12", -12, true}, {"+7", 7, true}, {" 5", 5, true},
		{"0x1F", 31, true}, {"0X1f", 31, true}, {"017", 15, true}, {"08", 0, true},
		{"0x", 0, true}, {"0xg", 0, true}, {"12abc", 12, true}, {"-0x10", -16, true},
		{"4294967296", 0, true}, {"2147483648", math.MinInt32, true},
		{"", 0, false}, {"abc", 0, false}, {"-", 0, false}, {"123456789012345", -2045911175, true},
		{"1234567890123456", 0, false}, {"99999999999999999999", 0, false},
	}
	for _, c := range i32 {
		got, ok := atoiInt32(c.s)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("atoiInt32(%q) = %d, %v; want %d, %v", c.s, got, ok, c.want, c.ok)
		}
	}
	if v, ok := atoiUint32("-1"); !ok || v != math.MaxUint32 {
		t.Errorf("atoiUint32(-1) = %d, %v", v, ok)
	}
	if v, ok := atoiInt64("-9223372036854775808"); !ok || v != math.MinInt64 {
		t.Errorf("atoiInt64(min) = %d, %v", v, ok)
	}
	if _, ok := atoiInt64("9223372036854775808"); ok {
		t.Errorf("atoiInt64 accepted an overflow")
	}
	if v, ok := atoiUint64("0xFFFFFFFFFFFFFFFF"); !ok || v != math.MaxUint64 {
		t.Errorf("atoiUint64(max) = %d, %v", v, ok)
	}
	if _, ok := atoiUint64("18446744073709551616"); ok {
		t.Errorf("atoiUint64 accepted an overflow")
	}
}

func TestCFloatParsing(t *testing.T) {
	cases := []struct {
		s    string
		bits int
		want float64
		ok   bool
	}{
		{"1.5", 32, 1.5, true}, {" -2 ", 32, -2, true}, {".5", 64, 0.5, true}, {"5.", 64, 5, true},
		{"1e39", 32, math.Inf(1), true}, {"-1e400", 64, math.Inf(-1), true}, {"1e-50", 32, 0, true},
		{"0x1.8p1", 32, 3, true}, {"-0x1p-2", 64, -0.25, true}, {"INF", 32, math.Inf(1), true},
		{"0x10", 32, 0, false}, {"1.5f", 32, 0, false}, {"", 32, 0, false}, {"1_0", 64, 0, false},
		{"--1", 64, 0, false}, {"0.1", 32, float64(float32(0.1)), true},
	}
	for _, c := range cases {
		got, ok := parseCFloat(c.s, c.bits)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("parseCFloat(%q, %d) = %g, %v; want %g, %v", c.s, c.bits, got, ok, c.want, c.ok)
		}
	}
}

func TestF8E8M0FNU(t *testing.T) {
	cases := []struct {
		x    float32
		want uint8
	}{
		{1, 127}, {2, 128}, {3, 129}, {2.9, 128}, {0.5, 126}, {0.7, 126}, {0, 0}, {-1, 0},
		{float32(math.Inf(1)), 0xff}, {float32(math.NaN()), 0xff}, {math.MaxFloat32, 0xff},
	}
	for _, c := range cases {
		if got := f8e8m0fnuEncode(c.x); got != c.want {
			t.Errorf("f8e8m0fnuEncode(%g) = %d, want %d", c.x, got, c.want)
		}
	}
	if f8e8m0fnuDecode(127) != 1 || f8e8m0fnuDecode(0) != math.Ldexp(1, -127) || !math.IsNaN(f8e8m0fnuDecode(0xff)) {
		t.Errorf("f8e8m0fnuDecode")
	}
}

func TestMinifloatSpecialValues(t *testing.T) {
	cases := []struct {
		f    minifloat
		x    float32
		want uint32
	}{
		{fmtF16, 65504, 0x7bff}, {fmtF16, 65519, 0x7bff}, {fmtF16, 65520, 0x7c00},
		{fmtF16, 5.96e-8, 0x0001}, {fmtF16, 2.98e-8, 0x0000}, {fmtF16, float32(math.Copysign(0, -1)), 0x8000},
		{fmtF16, float32(math.NaN()), 0x7fff},
		{fmtBF16, 1.00390625, 0x3f80}, {fmtBF16, 1.01171875, 0x3f82},
		{fmtF8E4M3FN, 448, 0x7e}, {fmtF8E4M3FN, 464, 0x7e}, {fmtF8E4M3FN, -1e9, 0xfe},
		{fmtF8E4M3FN, float32(math.NaN()), 0x7f},
		{fmtF8E5M2, 57344, 0x7b}, {fmtF8E5M2, 1e9, 0x7c}, {fmtF8E5M2, float32(math.Inf(-1)), 0xfc},
		{fmtF8E4M3FNUZ, 240, 0x7f}, {fmtF8E4M3FNUZ, 1e9, 0x80}, {fmtF8E4M3FNUZ, float32(math.Copysign(0, -1)), 0},
		{fmtF8E5M2FNUZ, 57344, 0x7f}, {fmtF8E5M2FNUZ, float32(math.NaN()), 0x80},
	}
	for _, c := range cases {
		if got := c.f.encode(c.x); got != c.want {
			t.Errorf("%+v.encode(%g) = %#x, want %#x", c.f, c.x, got, c.want)
		}
	}
	if !math.IsNaN(fmtF8E4M3FNUZ.decode(0x80)) || fmtF8E4M3FNUZ.decode(0x7f) != 240 {
		t.Errorf("fnuz decode")
	}
}
