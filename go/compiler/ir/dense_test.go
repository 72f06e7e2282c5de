package ir

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNormalizeInt(t *testing.T) {
	cases := []struct {
		v    int64
		t    Type
		want int64
	}{
		{255, I8, -1},
		{-1, &IntegerType{Width: 8, Signedness: Unsigned}, 255},
		{0x1F, &IntegerType{Width: 4}, -1},
		{3, I1, 1},
		{-5, Index, -5},
		{1 << 40, I32, 0},
	}
	for _, c := range cases {
		if got := NormalizeInt(c.v, c.t); got != c.want {
			t.Errorf("NormalizeInt(%d, %s) = %d, want %d", c.v, c.t, got, c.want)
		}
	}
}

func TestDenseBytesRoundTrip(t *testing.T) {
	cases := []*DenseElementsAttr{
		{Type: Tensor([]int64{3}, I16), Ints: []int64{1, -2, 300}},
		{Type: Tensor([]int64{2}, &IntegerType{Width: 4}), Ints: []int64{-8, 7}},
		{Type: Tensor([]int64{2}, I1), Ints: []int64{1, 0}},
		{Type: Tensor([]int64{2}, F16), Floats: []float64{1, -0.5}},
		{Type: Tensor([]int64{2}, BF16), Floats: []float64{2, 3}},
		{Type: Tensor([]int64{1}, &ComplexType{F32}), Floats: []float64{1, 2}},
		{Type: Tensor([]int64{2, 2}, F64), Splat: true, Floats: []float64{4}},
		{Type: Tensor([]int64{2}, Index), Ints: []int64{7, -1}},
		{Type: Tensor([]int64{2}, Float(KindF8E4M3FN)), Floats: []float64{448, -1}},
	}
	for _, a := range cases {
		raw, err := a.Bytes()
		if err != nil {
			t.Errorf("%s: %v", a, err)
			continue
		}
		back, err := DecodeDense(a.Type, raw)
		if err != nil {
			t.Errorf("%s: %v", a, err)
			continue
		}
		if diff := cmp.Diff(a.String(), back.String()); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
	}
	if _, err := DecodeDense(Tensor([]int64{3}, I32), make([]byte, 8)); err == nil {
		t.Error("short data accepted")
	}
	if _, err := DecodeDense(Tensor([]int64{DynamicSize}, I32), make([]byte, 4)); err == nil {
		t.Error("dynamic shape accepted")
	}
}

func TestDenseAccessors(t *testing.T) {
	splat := DenseSplat(Tensor([]int64{4, 4}, F32), 0.1)
	if !splat.Splat || splat.NumElements() != 16 || splat.FloatAt(15) != float64(float32(0.1)) {
		t.Errorf("splat %s", splat)
	}
	ints := &DenseElementsAttr{Type: Tensor([]int64{2, 2}, I32), Ints: []int64{1, 2, 3, 4}}
	if ints.IntAt(3) != 4 || ints.String() != "dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>" {
		t.Errorf("ints %s", ints)
	}
	empty := &DenseElementsAttr{Type: Tensor([]int64{0, 3}, F32), Floats: []float64{}}
	if empty.String() != "dense<> : tensor<0x3xf32>" {
		t.Errorf("empty %s", empty)
	}
	r := &Resource{Key: "w", Blob: []byte{1, 0}, Alignment: 2}
	if r.BlobString() != `"0x020000000100"` {
		t.Errorf("blob %s", r.BlobString())
	}
	if got := I64Array(1, -2).String(); got != "array<i64: 1, -2>" {
		t.Errorf("array %s", got)
	}
}

// TestResourceRawElements: the blob is handed out as is only where it is
// exactly the bytes Bytes would write for the decoded elements.
func TestResourceRawElements(t *testing.T) {
	cases := []struct {
		typ  *RankedTensorType
		blob []byte
		raw  bool
	}{
		{Tensor([]int64{2, 2}, F32), []byte{0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128, 64}, true},
		{Tensor([]int64{3}, I16), []byte{1, 0, 254, 255, 44, 1}, true},
		{Tensor([]int64{2}, BF16), []byte{0, 64, 64, 64}, true},
		{Tensor([]int64{4}, F32), []byte{0, 0, 128, 63}, false}, // a splat
		{Tensor([]int64{2}, I1), []byte{1, 0}, false},           // i1: bytes hold any value
		{Tensor([]int64{2}, &IntegerType{Width: 4}), []byte{7, 1}, false},
		{Tensor([]int64{3}, I32), make([]byte, 8), false},       // short
		{Tensor([]int64{1}, F32), []byte{0, 0, 128, 63}, false}, // one element
		{Tensor([]int64{1}, &ComplexType{F32}), make([]byte, 8), false},
	}
	for _, c := range cases {
		a := &DenseResourceAttr{Type: c.typ, Resource: &Resource{Dialect: "builtin", Key: "k", Blob: c.blob, Alignment: 8, Defined: true}}
		raw, ok := a.RawElements()
		if ok != c.raw {
			t.Errorf("%s: RawElements ok = %v, want %v", a, ok, c.raw)
			continue
		}
		if !ok {
			continue
		}
		if &raw[0] != &c.blob[0] {
			t.Errorf("%s: RawElements copied the blob", a)
		}
		dense, err := a.Elements()
		if err != nil {
			t.Fatal(err)
		}
		want, err := dense.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, raw); diff != "" {
			t.Errorf("%s: raw elements differ from the decoded bytes (-want +got):\n%s", a, diff)
		}
	}
}
