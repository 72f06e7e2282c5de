package targettest

import (
	"encoding/binary"
	"math"
	"math/rand/v2"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// IntCase is one input pair for IntOps: the lanes of a and b, of type
// Elem (len(A) == len(B) lanes).
type IntCase struct {
	Elem kir.Scalar
	A, B []int64
}

// IntCases are the inputs the emitters' integer-op tests run IntOps on:
// hand-picked pairs per type (zeros, ±1, the type's extremes, shift
// amounts at and past the width, division by zero and by -1), then for
// i8 to i64 the extremes again padded to 16 lanes with deterministic
// random values.
func IntCases() []IntCase {
	cases := []IntCase{
		{kir.I8, []int64{0, 1, -1, math.MinInt8, math.MaxInt8, 7, -7, 100, -128, 3, 9, -1},
			[]int64{0, 0, -1, -1, 2, 8, 2, -3, 1, 7, 100, 0}},
		{kir.I16, []int64{0, 1, -1, math.MinInt16, math.MaxInt16, 7, -7, 1000, 3, -300},
			[]int64{0, -1, -1, -1, 16, 15, 2, -3, 17, 5}},
		{kir.I32, []int64{0, 1, -1, math.MinInt32, math.MaxInt32, 7, -7, 100000, 3, -300, 5},
			[]int64{0, 0, -1, -1, 31, 32, 33, -3, -31, 7, 1 << 30}},
		{kir.I64, []int64{0, 1, -1, math.MinInt64, math.MaxInt64, 7, -7, 1 << 40, 3, -300, 9},
			[]int64{0, 5, -1, -1, 63, 64, 1 << 40, -3, -1 << 62, 65, 2}},
		{kir.I1, []int64{0, 1, 0, 1}, []int64{0, 0, 1, 1}},
	}
	r := rand.New(rand.NewPCG(7, 8))
	for _, e := range []kir.Scalar{kir.I8, kir.I16, kir.I32, kir.I64} {
		bits := int64(e.Bits())
		lo, hi := int64(-1)<<(bits-1), int64(uint64(1)<<(bits-1)-1)
		a := []int64{0, 1, -1, lo, hi, 7, -7, lo, 3, 9, bits, -2}
		b := []int64{0, 0, -1, -1, 2, 8, 2, 1, 7, 100, bits - 1, bits}
		for len(a) < 16 {
			a = append(a, int64(math.Trunc(r.Float64()*200-100)))
			b = append(b, int64(math.Trunc(r.Float64()*20-10)))
		}
		cases = append(cases, IntCase{e, a, b})
	}
	return cases
}

// EncInts encodes xs as little-endian elements of the integer type e,
// keeping the low bits.
func EncInts(e kir.Scalar, xs []int64) []byte {
	b := make([]byte, e.ByteSize()*len(xs))
	for i, x := range xs {
		switch e.ByteSize() {
		case 1:
			b[i] = byte(x)
		case 2:
			binary.LittleEndian.PutUint16(b[2*i:], uint16(x))
		case 4:
			binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
		case 8:
			binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
		}
	}
	return b
}
