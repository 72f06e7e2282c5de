package vio

import (
	"encoding/binary"
	"math"
	"strings"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

// maxRank is the largest shape rank IREE's text and npy parsers accept.
const maxRank = 128

// maxBufferBytes bounds the buffers the parsers allocate, so that a typo
// in a shape fails cleanly instead of exhausting memory.
const maxBufferBytes = 1 << 40

// ParseBufferView parses IREE's buffer view text form
// "SHAPExTYPE=values" as --input does for tensor arguments
// (iree_hal_buffer_view_parse): surrounding whitespace and one pair of
// double quotes are dropped; the shape is everything before the last "x"
// of the part before the first "="; values are separated by whitespace,
// ",", "[" and "]" (brackets are not checked against the shape). No values
// zero-fill the buffer, a single value is splatted, and otherwise the count
// must match exactly. Integers accept C prefixes ("0x1F", "017"); the
// signless i8 and i16 accept the union of the signed and unsigned ranges,
// and so do the sub-byte integers (i4 takes -8 to 15), which also take a
// byte as two hex digits ("0F") as IREE's tools print them; f4E2M1FN takes
// numbers; element types without a number form (i1, complex, opaque) take
// exactly two hex digits per byte. "SHAPExTYPE=@file" and "=+file" read the
// buffer's raw little-endian bytes from the start of file (sub-byte types
// one element per byte, made canonical: hal.IsSubByte).
func ParseBufferView(spec string) (*hal.BufferView, error) {
	l := newStreamList()
	defer l.close()
	return l.parseTensor(cTrim(spec))
}

// parseTensor parses a tensor spec, reading "=@file"/"=+file" contents
// through the stream list (iree_tooling_parse_tensor).
func (l *streamList) parseTensor(s string) (*hal.BufferView, error) {
	if meta, contents, ok := strings.Cut(s, "="); ok &&
		(strings.HasPrefix(contents, "@") || strings.HasPrefix(contents, "+")) {
		shape, t, _, err := parseShapeAndType(meta)
		if err != nil {
			return nil, err
		}
		bv, err := newView(shape, t)
		if err != nil {
			return nil, err
		}
		st, err := l.open(contents[1:], contents[0] == '+')
		if err != nil {
			return nil, err
		}
		if err := st.readFull(bv.Bytes()); err != nil {
			return nil, err
		}
		t.CanonicalizeSubBytes(bv.Bytes())
		return bv, nil
	}
	shape, t, data, err := parseShapeAndType(s)
	if err != nil {
		return nil, err
	}
	bv, err := newView(shape, t)
	if err != nil {
		return nil, err
	}
	if err := parseElements(data, t, bv.Bytes()); err != nil {
		return nil, err
	}
	return bv, nil
}

// newView allocates a zeroed view after checking that its size is sane.
func newView(shape []int64, t hal.ElementType) (*hal.BufferView, error) {
	n := int64(t.ByteSize())
	for _, d := range shape {
		if d != 0 && n > maxBufferBytes/d {
			return nil, status.Errorf(status.ResourceExhausted,
				"buffer for %s exceeds %d bytes", FormatShapeAndType(shape, t), int64(maxBufferBytes))
		}
		n *= d
	}
	return hal.NewHostBufferView(shape, t)
}

// parseShapeAndType splits "SHAPExTYPE=data" into its parts.
func parseShapeAndType(value string) ([]int64, hal.ElementType, string, error) {
	value = cTrim(value)
	value = strings.TrimPrefix(value, `"`)
	value = strings.TrimSuffix(value, `"`)
	if value == "" {
		return nil, hal.ElementNone, "", status.New(status.InvalidArgument, "empty string input")
	}
	shapeType, data, _ := strings.Cut(value, "=")
	shapeStr, typeStr := "", shapeType
	if i := strings.LastIndexByte(shapeType, 'x'); i >= 0 {
		shapeStr, typeStr = shapeType[:i], shapeType[i+1:]
	}
	shape, err := parseShape(shapeStr)
	if err != nil {
		return nil, hal.ElementNone, "", err
	}
	t, err := hal.ParseElementType(typeStr)
	if err != nil {
		return nil, hal.ElementNone, "", err
	}
	return shape, t, data, nil
}

// parseShape parses "AxBxC" (iree_hal_parse_shape); "" is rank 0.
func parseShape(s string) ([]int64, error) {
	if s == "" {
		return nil, nil
	}
	parts := strings.Split(s, "x")
	if len(parts) > maxRank {
		return nil, status.Errorf(status.ResourceExhausted,
			"a shape rank of %d is just a little bit excessive, eh?", len(parts))
	}
	shape := make([]int64, len(parts))
	for i, p := range parts {
		if p == "" {
			return nil, status.Errorf(status.InvalidArgument, "invalid shape specification: '%s'", s)
		}
		d, ok := atoiInt64(p)
		if !ok || d < 0 {
			return nil, status.Errorf(status.InvalidArgument,
				"shape[%d] invalid value '%s' of '%s'", i, p, s)
		}
		shape[i] = d
	}
	return shape, nil
}

func isElementSeparator(c byte) bool { return isCSpace(c) || c == ',' || c == '[' || c == ']' }

// parseElements fills out from the value text (iree_hal_parse_buffer_elements).
func parseElements(data string, t hal.ElementType, out []byte) error {
	if data == "" {
		clear(out)
		return nil
	}
	size := t.ByteSize()
	if size == 0 {
		return status.Errorf(status.InvalidArgument, "element type %s has no storage size", t)
	}
	capacity := len(out) / size
	dst := 0
	for i := 0; i < len(data); {
		for i < len(data) && isElementSeparator(data[i]) {
			i++
		}
		if i == len(data) {
			break
		}
		start := i
		for i < len(data) && !isElementSeparator(data[i]) {
			i++
		}
		if dst >= capacity {
			if i < len(data) {
				return status.Errorf(status.OutOfRange,
					"output data buffer overflow: element_capacity=%d < dst_i=%d+", capacity, dst)
			}
			return status.Errorf(status.OutOfRange,
				"output data overflow: element_capacity=%d < dst_i=%d", capacity, dst)
		}
		if err := parseElement(data[start:i], t, out[dst*size:(dst+1)*size]); err != nil {
			return err
		}
		dst++
	}
	switch {
	case dst == 1 && capacity > 1:
		for j := 1; j < capacity; j++ {
			copy(out[j*size:], out[:size])
		}
	case dst < capacity:
		return status.Errorf(status.OutOfRange,
			"input data string underflow: dst_i=%d < element_capacity=%d", dst, capacity)
	}
	return nil
}

// parseElement parses one element into out (iree_hal_parse_element).
func parseElement(tok string, t hal.ElementType, out []byte) error {
	le := binary.LittleEndian
	bad := func() error {
		return status.Errorf(status.InvalidArgument, "invalid %s element `%s`", t, tok)
	}
	// checkInt parses with atoi_int32 and checks the range [lo, hi].
	checkInt := func(lo, hi int32) (int32, error) {
		v, ok := atoiInt32(tok)
		if !ok || v < lo || v > hi {
			return 0, bad()
		}
		return v, nil
	}
	checkUint := func(hi uint32) (uint32, error) {
		v, ok := atoiUint32(tok)
		if !ok || v > hi {
			return 0, bad()
		}
		return v, nil
	}
	if t.IsSubByte() {
		return parseSubByte(tok, t, out)
	}
	switch t {
	case hal.ElementInt8, hal.ElementSInt8, hal.ElementInt16, hal.ElementSInt16:
		var lo, hi int32 = math.MinInt32, math.MaxInt8
		switch t {
		case hal.ElementInt8:
			lo, hi = math.MinInt8, math.MaxUint8
		case hal.ElementInt16:
			lo, hi = math.MinInt16, math.MaxUint16
		case hal.ElementSInt16:
			hi = math.MaxInt16
		}
		v, err := checkInt(lo, hi)
		if err != nil {
			return err
		}
		if len(out) == 1 {
			out[0] = byte(v)
		} else {
			le.PutUint16(out, uint16(v))
		}
	case hal.ElementUInt8:
		v, err := checkUint(math.MaxUint8)
		if err != nil {
			return err
		}
		out[0] = byte(v)
	case hal.ElementUInt16:
		v, err := checkUint(math.MaxUint16)
		if err != nil {
			return err
		}
		le.PutUint16(out, uint16(v))
	case hal.ElementInt32, hal.ElementSInt32:
		v, err := checkInt(math.MinInt32, math.MaxInt32)
		if err != nil {
			return err
		}
		le.PutUint32(out, uint32(v))
	case hal.ElementUInt32:
		v, err := checkUint(math.MaxUint32)
		if err != nil {
			return err
		}
		le.PutUint32(out, v)
	case hal.ElementInt64, hal.ElementSInt64:
		v, ok := atoiInt64(tok)
		if !ok {
			return bad()
		}
		le.PutUint64(out, uint64(v))
	case hal.ElementUInt64:
		v, ok := atoiUint64(tok)
		if !ok {
			return bad()
		}
		le.PutUint64(out, v)
	case hal.ElementFloat64:
		v, ok := parseCFloat(tok, 64)
		if !ok {
			return bad()
		}
		le.PutUint64(out, math.Float64bits(v))
	case hal.ElementFloat32, hal.ElementFloat16, hal.ElementBFloat16, hal.ElementF8E5M2,
		hal.ElementF8E4M3FN, hal.ElementF8E5M2FNUZ, hal.ElementF8E4M3FNUZ, hal.ElementF8E8M0FNU:
		v, ok := parseCFloat(tok, 32)
		if !ok {
			return bad()
		}
		putFloat32As(out, float32(v), t)
	default:
		if len(tok) != 2*len(out) {
			return status.Errorf(status.InvalidArgument,
				"binary hex element count mismatch: buffer length=%d < expected=%d", len(tok), 2*len(out))
		}
		for i := range out {
			out[i] = byte(hexNibble(tok[2*i])<<4 | hexNibble(tok[2*i+1]))
		}
	}
	return nil
}

// parseSubByte parses one element of a sub-byte type (i4, ui2, f4E2M1FN,
// stored one per byte) into its canonical byte: an integer in the type's
// range (signless types take signed and unsigned values: -8..15 for i4),
// a number rounded to f4E2M1FN, or, as IREE's tools print and parse these
// types, the byte as two hex digits ("0F").
func parseSubByte(tok string, t hal.ElementType, out []byte) error {
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	if len(tok) == 2 && digitValue(tok[0]) < 16 && digitValue(tok[1]) < 16 && !(isDigit(tok[0]) && isDigit(tok[1])) {
		// Two hex digits with a letter ("0F", "FD"): a byte. Two decimal
		// digits are a number, and the same value either way up to 09.
		out[0] = t.CanonicalSubByte(byte(hexNibble(tok[0])<<4 | hexNibble(tok[1])))
		return nil
	}
	if t.IsFloat() {
		v, ok := parseCFloat(tok, 32)
		if !ok {
			return status.Errorf(status.InvalidArgument, "invalid %s element `%s`", t, tok)
		}
		out[0] = byte(fmtF4E2M1FN.encode(float32(v)))
		return nil
	}
	v, ok := atoiInt64(tok)
	lo, hi := t.SubByteIntRange()
	if !ok || v < lo || v > hi {
		return status.Errorf(status.InvalidArgument,
			"invalid %s element `%s` (%s holds integers from %d to %d)", t, tok, t, lo, hi)
	}
	out[0] = t.CanonicalSubByte(byte(v))
	return nil
}

// putFloat32As stores v converted to the float type t.
func putFloat32As(out []byte, v float32, t hal.ElementType) {
	switch t {
	case hal.ElementFloat32:
		binary.LittleEndian.PutUint32(out, math.Float32bits(v))
	case hal.ElementF8E8M0FNU:
		out[0] = f8e8m0fnuEncode(v)
	default:
		f, _ := minifloatOf(t)
		bits := f.encode(v)
		if len(out) == 1 {
			out[0] = byte(bits)
		} else {
			binary.LittleEndian.PutUint16(out, uint16(bits))
		}
	}
}

// hexNibble decodes a hex digit; like IREE's table anything else reads 0.
func hexNibble(c byte) int {
	if d := digitValue(c); d < 16 {
		return d
	}
	return 0
}
