package vio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

// npyMagic starts every .npy array.
var npyMagic = []byte("\x93NUMPY")

// ReadNPY reads one array from r in NumPy's .npy format (versions 1 to 3,
// little-endian, C order), as IREE's iree_numpy_npy_load_ndarray does.
// Dtype kinds map to element types by kind and width: "b" to the boolean
// type (printed i1), "i" to signed ("<i4" is si32), "u" to unsigned, "f" to
// IEEE floats ("<f2" is f16), "c" to complex and "V" to opaque ("|V1" is
// what np.save writes for ml_dtypes arrays: int4, float8_e4m3fn, …; the
// --input parser gives such an array its argument's element type). An r
// that is already at its end gives OUT_OF_RANGE "end-of-file".
func ReadNPY(r io.Reader) (*hal.BufferView, error) {
	var prefix [8]byte
	if n, err := io.ReadFull(r, prefix[:]); err != nil {
		if n == 0 && errors.Is(err, io.EOF) {
			return nil, status.New(status.OutOfRange, "end-of-file")
		}
		return nil, status.New(status.OutOfRange, "unable to read entire header prefix")
	}
	if !bytes.Equal(prefix[:6], npyMagic) {
		return nil, status.New(status.InvalidArgument, "npy header magic mismatch")
	}
	major, minor := prefix[6], prefix[7]
	if major == 0 || major > 3 {
		return nil, status.Errorf(status.Unimplemented, "npy version %d.%d not supported", major, minor)
	}
	var headerLen int
	if major == 1 {
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, status.Errorf(status.OutOfRange,
				"failed to read version %d.%d 2-byte header length", major, minor)
		}
		headerLen = int(binary.LittleEndian.Uint16(b[:]))
	} else {
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, status.Errorf(status.OutOfRange,
				"failed to read version %d.%d 4-byte header length", major, minor)
		}
		headerLen = int(binary.LittleEndian.Uint32(b[:]))
	}
	header := make([]byte, headerLen)
	if _, err := io.ReadFull(r, header); err != nil {
		return nil, status.Errorf(status.OutOfRange, "failed to read header string of %d bytes", headerLen)
	}
	shape, t, err := parseNPYHeader(string(header))
	if err != nil {
		return nil, err
	}
	bv, err := newView(shape, t)
	if err != nil {
		return nil, err
	}
	if _, err := io.ReadFull(r, bv.Bytes()); err != nil {
		return nil, status.Errorf(status.OutOfRange, "failed to read npy contents of %d bytes", bv.ByteLength())
	}
	return bv, nil
}

// parseNPYHeader scans the header dict
// "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" in any key
// order, ignoring keys it does not know.
func parseNPYHeader(h string) ([]int64, hal.ElementType, error) {
	dict := cTrim(h)
	dict = strings.TrimPrefix(dict, "{")
	dict = strings.TrimSuffix(dict, "}")
	malformed := status.New(status.InvalidArgument, "malformed header dict")
	var shape []int64
	t := hal.ElementNone
	for dict != "" {
		key, rest, ok := strings.Cut(dict, ":")
		if !ok {
			return nil, t, malformed
		}
		key = strings.TrimSuffix(strings.TrimPrefix(key, "'"), "'")
		rest = cTrim(rest)
		var value string
		switch {
		case strings.HasPrefix(rest, "True"):
			value, rest = "True", rest[4:]
		case strings.HasPrefix(rest, "False"):
			value, rest = "False", rest[5:]
		case strings.HasPrefix(rest, "'"):
			value, rest, _ = strings.Cut(rest[1:], "'")
		case strings.HasPrefix(rest, "("):
			value, rest, _ = strings.Cut(rest[1:], ")")
		default:
			return nil, t, malformed
		}
		if !strings.HasPrefix(rest, ",") {
			return nil, t, malformed
		}
		dict = cTrim(rest[1:])
		var err error
		switch key {
		case "descr":
			t, err = npyDescrToElementType(value)
		case "fortran_order":
			if value != "False" {
				err = status.New(status.Unimplemented, "fortran order arrays not supported")
			}
		case "shape":
			shape, err = parseNPYShape(value)
		}
		if err != nil {
			return nil, t, err
		}
	}
	return shape, t, nil
}

// npyDescrToElementType maps a dtype string such as "<f4" or "|b1".
func npyDescrToElementType(descr string) (hal.ElementType, error) {
	if descr != "" {
		switch descr[0] {
		case '|', '=', '<':
			descr = descr[1:]
		case '>':
			return hal.ElementNone, status.Errorf(status.Unimplemented,
				"big-endian data type '%s' unsupported", descr)
		}
	}
	if descr == "" {
		return hal.ElementNone, status.New(status.InvalidArgument, "descr missing kind")
	}
	var numerical uint32
	switch descr[0] {
	case 'b':
		numerical = hal.NumericalBoolean
	case 'i':
		numerical = hal.NumericalSigned
	case 'u':
		numerical = hal.NumericalUnsigned
	case 'f':
		numerical = hal.NumericalFloat
	case 'c':
		numerical = hal.NumericalComplex
	case 'V':
		numerical = hal.NumericalUnknown
	default:
		return hal.ElementNone, status.Errorf(status.Unimplemented, "unsupported data type %c", descr[0])
	}
	width, ok := atoiUint32(descr[1:])
	if !ok {
		return hal.ElementNone, status.New(status.InvalidArgument, "invalid descr byte width")
	}
	return hal.ElementType(numerical<<24 | (width*8)&0xff), nil
}

// parseNPYShape parses the inside of "(2, 3)", "(4,)" or "()".
func parseNPYShape(s string) ([]int64, error) {
	if s == "" {
		return nil, nil
	}
	body := strings.TrimSuffix(s, ",")
	parts := strings.Split(body, ",")
	if len(parts) > maxRank {
		return nil, status.Errorf(status.InvalidArgument,
			"shape rank %d too large; be reasonable please", len(parts))
	}
	shape := make([]int64, len(parts))
	for i, p := range parts {
		p = cTrim(p)
		d, ok := atoiUint64(p)
		if !ok || int64(d) < 0 {
			return nil, status.Errorf(status.InvalidArgument, "invalid dimension %d value %s", i, p)
		}
		shape[i] = int64(d)
	}
	return shape, nil
}

// npyDescr returns the dtype string IREE writes for t: "|" for one-byte
// types and "<" otherwise, then the kind (signless integers are written as
// signed "i") and the byte width. bf16 and the f8 types have no NumPy
// dtype and fail with UNIMPLEMENTED.
func npyDescr(t hal.ElementType) (string, error) {
	size := t.ByteSize()
	order := "<"
	if size == 1 {
		order = "|"
	}
	var kind string
	switch t.Numerical() {
	case hal.NumericalUnknown:
		kind = "V"
	case hal.NumericalBoolean:
		kind = "b"
	case hal.NumericalInteger, hal.NumericalSigned:
		kind = "i"
	case hal.NumericalUnsigned:
		kind = "u"
	case hal.NumericalFloat:
		kind = "f"
	case hal.NumericalComplex:
		kind = "c"
	default:
		return "", status.New(status.Unimplemented, "unsupported data encoding")
	}
	return order + kind + strconv.Itoa(size), nil
}

// WriteNPY writes bv to w as one .npy array the way IREE's
// iree_numpy_npy_save_ndarray does: a version 1.0 header (2.0 when the
// dict exceeds 65535 bytes) "{'descr': '<f4', 'fortran_order': False,
// 'shape': (2, 3), }" padded with spaces and a newline to a multiple of 64
// bytes, then the raw data. Rank 0 is written as shape "()" and rank 1 as
// "(n,)".
func WriteNPY(w io.Writer, bv *hal.BufferView) error {
	descr, err := npyDescr(bv.Type)
	if err != nil {
		return err
	}
	dims := make([]string, len(bv.Shape))
	for i, d := range bv.Shape {
		dims[i] = strconv.FormatInt(d, 10)
	}
	shape := strings.Join(dims, ", ")
	if len(dims) == 1 {
		shape += ","
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, shape)
	v2 := len(dict) > 65535
	lenBytes := 2
	if v2 {
		lenBytes = 4
	}
	unpadded := 8 + lenBytes + len(dict) + 1
	padding := (64 - unpadded%64) % 64
	var buf bytes.Buffer
	buf.Write(npyMagic)
	if v2 {
		buf.Write([]byte{2, 0})
		buf.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(dict)+padding+1)))
	} else {
		buf.Write([]byte{1, 0})
		buf.Write(binary.LittleEndian.AppendUint16(nil, uint16(len(dict)+padding+1)))
	}
	buf.WriteString(dict)
	buf.WriteString(strings.Repeat(" ", padding))
	buf.WriteByte('\n')
	if _, err := w.Write(buf.Bytes()); err != nil {
		return status.Errorf(status.DataLoss, "failed to write header: %w", err)
	}
	data := bv.Bytes()
	if data == nil {
		return status.New(status.InvalidArgument, "the buffer view is not in host memory")
	}
	if t := bv.Type; t.IsSubByte() && t.IsInteger() {
		// Sub-byte integers (one per byte) are written as int8 or uint8
		// ("|i1", "|u1") holding their values.
		values := make([]byte, len(data))
		for i, b := range data {
			values[i] = byte(t.SubByteInt(b))
		}
		data = values
	}
	if _, err := w.Write(data); err != nil {
		return status.Errorf(status.DataLoss, "failed to write buffer contents: %w", err)
	}
	return nil
}

// ReadNPYFile reads every array concatenated in the .npy file at path.
func ReadNPYFile(path string) ([]*hal.BufferView, error) {
	l := newStreamList()
	defer l.close()
	st, err := l.open(path, false)
	if err != nil {
		return nil, err
	}
	var views []*hal.BufferView
	for !st.eos() {
		bv, err := ReadNPY(st)
		if err != nil {
			return nil, err
		}
		views = append(views, bv)
	}
	return views, nil
}

// WriteNPYFile creates (or truncates) path and writes the arrays to it.
func WriteNPYFile(path string, views ...*hal.BufferView) error {
	f, err := os.Create(path)
	if err != nil {
		return fileError(err, "failed to open file '%s'", path)
	}
	for _, bv := range views {
		if err := WriteNPY(f, bv); err != nil {
			f.Close()
			return err
		}
	}
	if err := f.Close(); err != nil {
		return fileError(err, "failed to close file '%s'", path)
	}
	return nil
}
