package onnx

import (
	"math"
	"testing"
)

// The expected strings are what MLIR's printer prints for these f32/f64
// values (checked against IREE's importer output).
func TestFormatMLIRFloat(t *testing.T) {
	f32 := func(v float32) string { return formatMLIRFloat(semF32, uint64(math.Float32bits(v))) }
	f64 := func(v float64) string { return formatMLIRFloat(semF64, math.Float64bits(v)) }
	cases := []struct{ got, want string }{
		{f32(1), "1.000000e+00"},
		{f32(0), "0.000000e+00"},
		{f32(float32(math.Copysign(0, -1))), "-0.000000e+00"},
		{f32(1.76405239), "1.76405239"},
		{f32(0.400157213), "0.400157213"},
		{f32(0.978738), "9.787380e-01"},
		{f32(-0.977277874), "-0.977277874"},
		{f32(1.867558), "1.867558"},
		{f32(-0.742165), "-7.421650e-01"},
		{f32(1e-7), "1.000000e-07"},
		{f32(123456789), "0x4CEB79A3"},
		{f32(3.4e38), "3.400000e+38"},
		{f32(float32(math.Inf(1))), "0x7F800000"},
		{f32(0.1), "1.000000e-01"},
		{f64(0.1), "1.000000e-01"},
		{f64(1e20), "1.000000e+20"},
	}
	for i, c := range cases {
		if c.got != c.want {
			t.Errorf("case %d: got %s, want %s", i, c.got, c.want)
		}
	}
}
