package intfold

import (
	"math"
	"testing"
)

func TestBinary(t *testing.T) {
	for _, c := range []struct {
		op   string
		a, b int64
		fmod bool
		want int64
		ok   bool
	}{
		{"Add", 2, 3, false, 5, true}, {"Sub", 2, 3, false, -1, true}, {"Mul", -2, 3, false, -6, true},
		{"Div", 7, -2, false, -3, true}, {"Div", 1, 0, false, 0, false},
		{"Mod", -7, 3, false, 2, true}, {"Mod", -7, 3, true, -1, true}, {"Mod", 7, -3, false, -2, true}, {"Mod", 1, 0, false, 0, false},
		{"Pow", 3, 4, false, 81, true}, {"Max", -1, 4, false, 4, true}, {"Min", -1, 4, false, -1, true},
		{"Equal", 2, 2, false, 1, true}, {"Less", 2, 2, false, 0, true}, {"Greater", 3, 2, false, 1, true},
		{"LessOrEqual", 2, 2, false, 1, true}, {"GreaterOrEqual", 1, 2, false, 0, true},
		{"And", 1, 0, false, 0, true}, {"Or", 1, 0, false, 1, true}, {"Xor", 1, 1, false, 0, true}, {"Xor", 0, 5, false, 1, true},
		{"Concat", 1, 2, false, 0, false},
	} {
		got, ok := Binary(c.op, c.a, c.b, c.fmod)
		if got != c.want || ok != c.ok {
			t.Errorf("%s(%d, %d, fmod %v) = %d, %v; want %d, %v", c.op, c.a, c.b, c.fmod, got, ok, c.want, c.ok)
		}
	}
}

func TestUnary(t *testing.T) {
	for _, c := range []struct {
		op      string
		a, want int64
	}{
		{"Neg", 3, -3}, {"Abs", -3, 3}, {"Abs", math.MinInt64, math.MinInt64}, {"Not", 0, 1}, {"Not", 7, 0}, {"Identity", -4, -4},
	} {
		if got := Unary(c.op, c.a); got != c.want {
			t.Errorf("%s(%d) = %d, want %d", c.op, c.a, got, c.want)
		}
	}
}
