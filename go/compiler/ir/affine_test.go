package ir

import (
	"testing"
)

func TestAffineEval(t *testing.T) {
	d0, d1, s0 := &AffineDimExpr{0}, &AffineDimExpr{1}, &AffineSymbolExpr{0}
	c := func(v int64) AffineExpr { return &AffineConstantExpr{v} }
	cases := []struct {
		e    AffineExpr
		want int64
	}{
		{AffineBinary(AffineAdd, d0, s0), -7 + 4},
		{AffineSub(d1, d0), 5 + 7},
		{AffineNeg(d0), 7},
		{AffineBinary(AffineMul, d1, c(3)), 15},
		{AffineBinary(AffineFloorDiv, d0, c(2)), -4},
		{AffineBinary(AffineCeilDiv, d0, c(2)), -3},
		{AffineBinary(AffineFloorDiv, d1, c(2)), 2},
		{AffineBinary(AffineCeilDiv, d1, c(2)), 3},
		{AffineBinary(AffineMod, d0, c(3)), 2},
		{AffineBinary(AffineMod, d1, c(3)), 2},
		{AffineBinary(AffineMod, d1, c(-3)), -1},
	}
	for _, tc := range cases {
		got, err := tc.e.Eval([]int64{-7, 5}, []int64{4})
		if err != nil || got != tc.want {
			t.Errorf("%s = %d (%v), want %d", tc.e, got, err, tc.want)
		}
	}
	if _, err := AffineBinary(AffineFloorDiv, d0, c(0)).Eval([]int64{1}, nil); err == nil {
		t.Error("division by zero accepted")
	}
	if _, err := d1.Eval([]int64{1}, nil); err == nil {
		t.Error("missing dim accepted")
	}
}

func TestAffinePrint(t *testing.T) {
	d0, d1, s0 := &AffineDimExpr{0}, &AffineDimExpr{1}, &AffineSymbolExpr{0}
	c := func(v int64) AffineExpr { return &AffineConstantExpr{v} }
	add := func(a, b AffineExpr) AffineExpr { return AffineBinary(AffineAdd, a, b) }
	mul := func(a, b AffineExpr) AffineExpr { return AffineBinary(AffineMul, a, b) }
	cases := []struct {
		e    AffineExpr
		want string
	}{
		{add(d0, s0), "d0 + s0"},
		{AffineSub(d0, d1), "d0 - d1"},
		{AffineSub(d0, c(2)), "d0 - 2"},
		{AffineSub(d0, add(d1, s0)), "d0 - (d1 + s0)"},
		{AffineSub(d0, mul(d1, c(2))), "d0 - d1 * 2"},
		{mul(add(d0, d1), c(4)), "(d0 + d1) * 4"},
		{AffineBinary(AffineFloorDiv, d0, mul(d1, c(2))), "d0 floordiv (d1 * 2)"},
		{add(d0, add(d1, c(1))), "d0 + (d1 + 1)"},
		{add(add(d0, d1), c(1)), "d0 + d1 + 1"},
		{AffineBinary(AffineMod, AffineBinary(AffineCeilDiv, d0, c(3)), c(5)), "d0 ceildiv 3 mod 5"},
		{add(c(2), c(3)), "5"},
		{AffineNeg(d0), "d0 * -1"},
	}
	for _, tc := range cases {
		if got := tc.e.String(); got != tc.want {
			t.Errorf("got %s, want %s", got, tc.want)
		}
	}
	m := &AffineMap{NumDims: 2, NumSymbols: 1, Results: []AffineExpr{d0, add(s0, d1)}}
	if got := (&AffineMapAttr{m}).String(); got != "affine_map<(d0, d1)[s0] -> (d0, s0 + d1)>" {
		t.Errorf("map %s", got)
	}
	if m.IsIdentity() || !(&AffineMap{NumDims: 2, Results: []AffineExpr{d0, d1}}).IsIdentity() {
		t.Error("IsIdentity")
	}
}
