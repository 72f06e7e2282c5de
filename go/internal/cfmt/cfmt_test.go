package cfmt

import (
	"math"
	"testing"
)

func TestG(t *testing.T) {
	cases := []struct {
		x    float64
		want string
	}{
		{5, "5"}, {1.5, "1.5"}, {1123.5678, "1123.57"}, {-1.5e-10, "-1.5e-10"},
		{1e-5, "1e-05"}, {0.0001, "0.0001"}, {123456, "123456"}, {1234567, "1.23457e+06"},
		{-3.14, "-3.14"}, {0, "0"}, {math.Inf(1), "inf"}, {math.NaN(), "nan"}, {100, "100"},
		{1e100, "1e+100"}, {0.1 + 0.2, "0.3"}, {999999.5, "1e+06"},
	}
	for _, c := range cases {
		if got := G(c.x, false); got != c.want {
			t.Errorf("G(%v) = %q, want %q", c.x, got, c.want)
		}
	}
	if got := G(1e-5, true); got != "1E-05" {
		t.Errorf("upper: %q", got)
	}
}
