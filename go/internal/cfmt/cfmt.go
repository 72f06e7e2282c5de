// Package cfmt formats floating-point numbers exactly as C's printf %g and
// %G do (six significant digits, trailing zeros removed, exponent of at
// least two digits), which IREE's tools use for values they print.
package cfmt

import (
	"math"
	"strconv"
	"strings"
)

// G formats x like printf("%g", x); upper selects %G.
func G(x float64, upper bool) string {
	s := g(x)
	if upper {
		return strings.ToUpper(s)
	}
	return s
}

func g(x float64) string {
	switch {
	case math.IsNaN(x):
		if math.Signbit(x) {
			return "-nan"
		}
		return "nan"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	case x == 0:
		if math.Signbit(x) {
			return "-0"
		}
		return "0"
	}
	const p = 6
	// The exponent X of x in %e form with p-1 digits decides the style.
	e := strconv.FormatFloat(x, 'e', p-1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	X, _ := strconv.Atoi(exp)
	if X < -4 || X >= p {
		mant = trimZeros(mant)
		sign := "+"
		if X < 0 {
			sign = "-"
			X = -X
		}
		xs := strconv.Itoa(X)
		if len(xs) < 2 {
			xs = "0" + xs
		}
		return mant + "e" + sign + xs
	}
	return trimZeros(strconv.FormatFloat(x, 'f', p-1-X, 64))
}

func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}
