package onnx

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/gree-ml/gree/go/compiler/onnx/onnxpb"
)

// tensor is a TensorProto's contents: element type, shape and the
// elements as little-endian bytes (ONNX's raw_data layout; booleans one
// byte each). fromRaw says the proto carried raw_data, which IREE's
// importer prints as a dense_resource blob rather than inline.
type tensor struct {
	name    string
	elem    int32
	dims    []int64
	data    []byte
	fromRaw bool
}

func (t *tensor) numElements() int64 {
	n := int64(1)
	for _, d := range t.dims {
		n *= d
	}
	return n
}

// int64s returns an integer tensor's elements (for shape computations).
func (t *tensor) int64s() ([]int64, bool) {
	n := int(t.numElements())
	out := make([]int64, n)
	switch t.elem {
	case dtInt64:
		for i := range out {
			out[i] = int64(binary.LittleEndian.Uint64(t.data[8*i:]))
		}
	case dtInt32:
		for i := range out {
			out[i] = int64(int32(binary.LittleEndian.Uint32(t.data[4*i:])))
		}
	default:
		return nil, false
	}
	return out, true
}

// int64Tensor builds an INT64 tensor.
func int64Tensor(dims []int64, vals []int64) *tensor {
	data := make([]byte, 8*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint64(data[8*i:], uint64(v))
	}
	return &tensor{elem: dtInt64, dims: dims, data: data}
}

// checkedNumElements multiplies dims, rejecting negative dims and overflow.
func checkedNumElements(dims []int64) (int64, error) {
	n := int64(1)
	for _, d := range dims {
		if d < 0 {
			return 0, fmt.Errorf("negative dimension %d", d)
		}
		if d != 0 && n > math.MaxInt64/d {
			return 0, fmt.Errorf("element count overflows")
		}
		n *= d
	}
	return n, nil
}

// decodeTensor reads a TensorProto (whose external data, if any, has been
// loaded into raw_data already).
func decodeTensor(tp *onnxpb.TensorProto) (*tensor, error) {
	if tp == nil {
		return nil, fmt.Errorf("a tensor attribute has no tensor")
	}
	t := &tensor{name: tp.GetName(), elem: tp.GetDataType(), dims: append([]int64{}, tp.GetDims()...)}
	if tp.GetDataLocation() == onnxpb.TensorProto_EXTERNAL && tp.RawData == nil {
		return nil, fmt.Errorf("tensor '%s' has external data that was not loaded", tp.GetName())
	}
	if tp.Segment != nil {
		return nil, fmt.Errorf("tensor '%s' is segmented; segmented tensors are not supported", tp.GetName())
	}
	info, ok := elemTypes[t.elem]
	if !ok {
		return nil, fmt.Errorf("tensor '%s': %v", tp.GetName(), elemError(t.elem))
	}
	n, err := checkedNumElements(t.dims)
	if err != nil {
		return nil, fmt.Errorf("tensor '%s': %v", tp.GetName(), err)
	}
	if t.elem == dtString {
		return nil, fmt.Errorf("tensor '%s': string tensors are not supported", tp.GetName())
	}
	size := n * int64(info.bytes)
	if info.bits > 0 {
		size = (n*int64(info.bits) + 7) / 8
	}
	if tp.RawData != nil {
		if int64(len(tp.RawData)) != size {
			return nil, fmt.Errorf("tensor '%s' (%s, shape %v) has %d bytes of raw data; expected %d", tp.GetName(), elemName(t.elem), t.dims, len(tp.RawData), size)
		}
		t.data, t.fromRaw = tp.RawData, true
		return t, nil
	}
	// The typed value lists must hold exactly the elements (checked before
	// allocating, so that a lying shape cannot make us allocate).
	have := int64(len(tp.FloatData) + len(tp.DoubleData) + len(tp.Int64Data) + len(tp.Uint64Data) + len(tp.Int32Data))
	if size > 16*(have+1) {
		return nil, fmt.Errorf("tensor '%s' (%s, shape %v) has %d values; expected %d", tp.GetName(), elemName(t.elem), t.dims, have, n)
	}
	data := make([]byte, size)
	count := func(have int, per int64) error {
		if int64(have) != n*per {
			return fmt.Errorf("tensor '%s' (%s, shape %v) has %d values; expected %d", tp.GetName(), elemName(t.elem), t.dims, have, n*per)
		}
		return nil
	}
	switch t.elem {
	case dtFloat, dtComplex64:
		per := int64(1)
		if t.elem == dtComplex64 {
			per = 2
		}
		if err := count(len(tp.FloatData), per); err != nil {
			return nil, err
		}
		for i, v := range tp.FloatData {
			binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(v))
		}
	case dtDouble, dtComplex128:
		per := int64(1)
		if t.elem == dtComplex128 {
			per = 2
		}
		if err := count(len(tp.DoubleData), per); err != nil {
			return nil, err
		}
		for i, v := range tp.DoubleData {
			binary.LittleEndian.PutUint64(data[8*i:], math.Float64bits(v))
		}
	case dtInt64:
		if err := count(len(tp.Int64Data), 1); err != nil {
			return nil, err
		}
		for i, v := range tp.Int64Data {
			binary.LittleEndian.PutUint64(data[8*i:], uint64(v))
		}
	case dtUint32, dtUint64:
		if err := count(len(tp.Uint64Data), 1); err != nil {
			return nil, err
		}
		for i, v := range tp.Uint64Data {
			if t.elem == dtUint32 {
				binary.LittleEndian.PutUint32(data[4*i:], uint32(v))
			} else {
				binary.LittleEndian.PutUint64(data[8*i:], v)
			}
		}
	case dtInt4, dtUint4, dtFloat4E2M1, dtInt2, dtUint2:
		// int32_data holds either the packed bytes (as onnx.helper writes
		// them) or one element per entry.
		bits := info.bits
		if int64(len(tp.Int32Data)) == size {
			for i, v := range tp.Int32Data {
				data[i] = byte(v)
			}
		} else if err := count(len(tp.Int32Data), 1); err != nil {
			return nil, err
		} else {
			mask := int32(1)<<bits - 1
			for i, v := range tp.Int32Data {
				data[i*bits/8] |= byte(v&mask) << ((i * bits) % 8)
			}
		}
	default:
		// int32_data holds INT32, INT16, INT8, UINT16, UINT8, BOOL and the
		// bit patterns of FLOAT16, BFLOAT16 and the FLOAT8 types.
		if err := count(len(tp.Int32Data), 1); err != nil {
			return nil, err
		}
		for i, v := range tp.Int32Data {
			switch info.bytes {
			case 1:
				if t.elem == dtBool {
					if v != 0 {
						v = 1
					}
				}
				data[i] = byte(v)
			case 2:
				binary.LittleEndian.PutUint16(data[2*i:], uint16(v))
			case 4:
				binary.LittleEndian.PutUint32(data[4*i:], uint32(v))
			}
		}
	}
	t.data = data
	return t, nil
}
