package vio

import (
	"encoding/binary"
	"math"
	"os/exec"
	"testing"

	"github.com/gree-ml/gree/go/runtime/hal"
)

// f32View builds a float32 view.
func f32View(shape []int64, vals ...float32) *hal.BufferView {
	var data []byte
	for _, v := range vals {
		data = binary.LittleEndian.AppendUint32(data, math.Float32bits(v))
	}
	return &hal.BufferView{Shape: shape, Type: hal.ElementFloat32, Buffer: hal.WrapHostBytes(data)}
}

// i32View builds an int32 view of the given type (i32, si32 or ui32).
func i32View(t hal.ElementType, shape []int64, vals ...int32) *hal.BufferView {
	var data []byte
	for _, v := range vals {
		data = binary.LittleEndian.AppendUint32(data, uint32(v))
	}
	return &hal.BufferView{Shape: shape, Type: t, Buffer: hal.WrapHostBytes(data)}
}

// mustParse parses a buffer view spec or fails the test.
func mustParse(t *testing.T, spec string) *hal.BufferView {
	t.Helper()
	bv, err := ParseBufferView(spec)
	if err != nil {
		t.Fatalf("ParseBufferView(%q): %v", spec, err)
	}
	return bv
}

// requireNumpy skips the test when python3 with numpy is not available.
func requireNumpy(t *testing.T) {
	t.Helper()
	if err := exec.Command("python3", "-c", "import numpy").Run(); err != nil {
		t.Skipf("python3 with numpy is not available: %v", err)
	}
}

func TestFormatBufferView(t *testing.T) {
	cases := []struct {
		bv   *hal.BufferView
		want string
	}{
		{f32View([]int64{4}, 4, 10, 18, 28), "4xf32=4 10 18 28"},
		{i32View(hal.ElementInt32, []int64{2, 3}, 1, 2, 3, 4, 5, 6), "2x3xi32=[1 2 3][4 5 6]"},
		{f32View([]int64{2, 2, 2}, 1, 2, 3, 4, 5, 6, 7, 8), "2x2x2xf32=[[1 2][3 4]][[5 6][7 8]]"},
		{f32View(nil, 2), "f32=2"},
		{f32View([]int64{3}, 1123.5678, -1.5e-10, 1e-5), "3xf32=1123.57 -1.5E-10 1E-05"},
		{f32View([]int64{3}, float32(math.Inf(1)), float32(math.NaN()), 5), "3xf32=INF NAN 5"},
		{i32View(hal.ElementUInt32, []int64{1}, -1), "1xui32=4294967295"},
		{i32View(hal.ElementSInt32, []int64{2}, 11, 12), "2xsi32=11 12"},
		{&hal.BufferView{Shape: []int64{3}, Type: hal.ElementInt8, Buffer: hal.WrapHostBytes([]byte{0xfa, 0xfa, 0xff})}, "3xi8=-6 -6 -1"},
		{&hal.BufferView{Shape: []int64{2}, Type: hal.ElementUInt8, Buffer: hal.WrapHostBytes([]byte{0xfa, 0xff})}, "2xui8=250 255"},
		{&hal.BufferView{Shape: []int64{2}, Type: hal.ElementBool8, Buffer: hal.WrapHostBytes([]byte{1, 0})}, "2xi1=01 00"},
		{&hal.BufferView{Shape: []int64{1}, Type: hal.ElementOpaque16, Buffer: hal.WrapHostBytes([]byte{0xab, 0x01})}, "1x*16=AB01"},
		{&hal.BufferView{Shape: []int64{1}, Type: hal.ElementInt4, Buffer: hal.WrapHostBytes([]byte{0x0f})}, "1xi4=-1"},
		{&hal.BufferView{Shape: []int64{3}, Type: hal.ElementUInt4, Buffer: hal.WrapHostBytes([]byte{0xfd, 0x07, 0x00})}, "3xui4=13 7 0"},
		{&hal.BufferView{Shape: []int64{2}, Type: hal.ElementSInt2, Buffer: hal.WrapHostBytes([]byte{0xfe, 0x01})}, "2xsi2=-2 1"},
		{&hal.BufferView{Shape: []int64{3}, Type: hal.ElementF4E2M1FN, Buffer: hal.WrapHostBytes([]byte{0x0f, 0x01, 0x03})}, "3xf4E2M1FN=-6 0.5 1.5"},
		{&hal.BufferView{Shape: []int64{2}, Type: hal.ElementInt16, Buffer: hal.WrapHostBytes([]byte{0xff, 0xff, 0x34, 0x12})}, "2xi16=-1 4660"},
		{&hal.BufferView{Shape: []int64{2}, Type: hal.ElementFloat16, Buffer: hal.WrapHostBytes([]byte{0x00, 0x3e, 0x00, 0xfc})}, "2xf16=1.5 -INF"},
		{&hal.BufferView{Shape: []int64{1}, Type: hal.ElementBFloat16, Buffer: hal.WrapHostBytes([]byte{0x49, 0x40})}, "1xbf16=3.14062"},
		{&hal.BufferView{Shape: []int64{3}, Type: hal.ElementF8E4M3FN, Buffer: hal.WrapHostBytes([]byte{0x38, 0x7e, 0x7f})}, "3xf8E4M3FN=1 448 NAN"},
		{&hal.BufferView{Shape: []int64{2}, Type: hal.ElementF8E8M0FNU, Buffer: hal.WrapHostBytes([]byte{127, 0xff})}, "2xf8E8M0FNU=1 NAN"},
		{&hal.BufferView{Shape: []int64{0}, Type: hal.ElementFloat32}, "0xf32="},
		{&hal.BufferView{Shape: []int64{2, 0}, Type: hal.ElementFloat32}, "2x0xf32=[][]"},
	}
	for _, c := range cases {
		if got := FormatBufferView(c.bv, 1024); got != c.want {
			t.Errorf("FormatBufferView = %q, want %q", got, c.want)
		}
	}
}

func TestFormatBufferViewElision(t *testing.T) {
	v4 := f32View([]int64{4}, 1, 2, 3, 4)
	v23 := i32View(hal.ElementInt32, []int64{2, 3}, 1, 2, 3, 4, 5, 6)
	cases := []struct {
		bv   *hal.BufferView
		max  int
		want string
	}{
		{v4, 2, "4xf32=1 2..."},
		{v4, 4, "4xf32=1 2 3 4"},
		{v4, 0, "4xf32=..."},
		{v4, -1, "4xf32=1 2 3 4"},
		{v23, 4, "2x3xi32=[1 2 3][4...]"},
		{v23, 2, "2x3xi32=[1 2...][...]"},
		{v23, 0, "2x3xi32=[...][...]"},
		{f32View(nil, 7), 0, "f32=..."},
	}
	for _, c := range cases {
		if got := FormatBufferView(c.bv, c.max); got != c.want {
			t.Errorf("FormatBufferView(max %d) = %q, want %q", c.max, got, c.want)
		}
	}
}

func TestFormatBufferViewShortDataReadsZeros(t *testing.T) {
	bv := &hal.BufferView{Shape: []int64{3}, Type: hal.ElementInt32, Buffer: hal.WrapHostBytes([]byte{1, 0, 0, 0})}
	if got := FormatBufferView(bv, 1024); got != "3xi32=1 0 0" {
		t.Errorf("got %q", got)
	}
}

func TestFormatShapeAndType(t *testing.T) {
	if got := FormatShapeAndType([]int64{1, 3, 224, 224}, hal.ElementFloat32); got != "1x3x224x224xf32" {
		t.Errorf("got %q", got)
	}
	if got := FormatShapeAndType(nil, hal.ElementBool8); got != "i1" {
		t.Errorf("got %q", got)
	}
}
