package vmvx_test

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
)

// Test data helpers: little-endian buffers of each element type.

func f64s(xs ...float64) []byte {
	b := make([]byte, 8*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return b
}

func i8s(xs ...int8) []byte {
	b := make([]byte, len(xs))
	for i, x := range xs {
		b[i] = byte(x)
	}
	return b
}

func i16s(xs ...int16) []byte {
	b := make([]byte, 2*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(x))
	}
	return b
}

func i32s(xs ...int32) []byte {
	b := make([]byte, 4*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return b
}

func i64s(xs ...int64) []byte {
	b := make([]byte, 8*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
	}
	return b
}

func u16s(xs ...uint16) []byte {
	b := make([]byte, 2*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint16(b[2*i:], x)
	}
	return b
}

// randF32 returns n floats in [-scale, scale).
func randF32(r *rand.Rand, n int, scale float32) []float32 {
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = (r.Float32()*2 - 1) * scale
	}
	return xs
}

// randInts returns n integer-valued floats in [-m, m].
func randInts(r *rand.Rand, n, m int) []float32 {
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(r.IntN(2*m+1) - m)
	}
	return xs
}

// specialF32 mixes special values with ordinary ones.
var specialF32 = []float32{0, float32(math.Copysign(0, -1)), 1, -1, 0.5, -2.75, 3.1415927, 1e-40, -1e-45,
	float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 65504, 65520, 1e10, -1e-10,
	100.5, -7.25, 2.5, -3.5, 1.0009765625, 0.33333334, 1e38, -0.1}

var specialF64 = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -2.75, math.Pi, 5e-324, -1e-300,
	math.Inf(1), math.Inf(-1), math.NaN(), 65504, 65520.000001, 1e300, -1e-10,
	100.5, -7.25, 2.5, -3.5, 1.00048828125, 1.0 / 3, 3.4028235677973366e38, -0.1}

func nan() float64 { return math.NaN() }
