package llvmcpu_test

import (
	"encoding/binary"
	"math"
	"strings"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/internal/half"
)

// enc encodes xs as elements of type e (integers truncate toward zero).
func enc(e kir.Scalar, xs []float64) []byte {
	b := make([]byte, e.ByteSize()*len(xs))
	for i, x := range xs {
		switch e {
		case kir.F16:
			binary.LittleEndian.PutUint16(b[2*i:], half.F16(x))
		case kir.BF16:
			binary.LittleEndian.PutUint16(b[2*i:], half.BF16(x))
		case kir.F32:
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(x)))
		case kir.F64:
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
		case kir.I1:
			b[i] = byte(int64(x) & 1)
		case kir.I8:
			b[i] = byte(int64(x))
		case kir.I16:
			binary.LittleEndian.PutUint16(b[2*i:], uint16(int64(x)))
		case kir.I32:
			binary.LittleEndian.PutUint32(b[4*i:], uint32(int64(x)))
		case kir.I64:
			binary.LittleEndian.PutUint64(b[8*i:], uint64(int64(x)))
		}
	}
	return b
}

func containsAll(s string, subs ...string) bool {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}
