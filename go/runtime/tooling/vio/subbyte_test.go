package vio

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/schemas/module"
	"github.com/gree-ml/gree/go/status"
)

// Sub-byte element types are stored one per byte in canonical form:
// integers sign-extended from their width, f4E2M1FN codes in the low four
// bits (hal.IsSubByte).

func TestParseSubByteCanonicalBytes(t *testing.T) {
	cases := []struct {
		spec string
		want []byte
	}{
		// An odd count of elements: one byte each, nothing packed.
		{"5xi4=1,2,-3,7,15", []byte{0x01, 0x02, 0xfd, 0x07, 0xff}},
		{"3xui4=13 0x0F 0", []byte{0xfd, 0xff, 0x00}},
		{"3xsi4=-8 7 0F", []byte{0xf8, 0x07, 0xff}},
		{"5xi2=-2 -1 0 1 3", []byte{0xfe, 0xff, 0x00, 0x01, 0xff}},
		{"3xui2=3 2 1", []byte{0xff, 0xfe, 0x01}},
		{"5xf4E2M1FN=-6 0.5 1.5 -0 3", []byte{0x0f, 0x01, 0x03, 0x08, 0x05}},
		{"3xi4=-3", []byte{0xfd, 0xfd, 0xfd}}, // a splat
	}
	for _, c := range cases {
		bv := mustParse(t, c.spec)
		if got := bv.Bytes(); !bytes.Equal(got, c.want) {
			t.Errorf("ParseBufferView(%q) bytes = % x, want % x", c.spec, got, c.want)
		}
	}
}

func TestParseSubByteErrors(t *testing.T) {
	cases := []struct{ spec, msg string }{
		{"1xi4=16", "invalid i4 element `16` (i4 holds integers from -8 to 15)"},
		{"1xi4=-9", "invalid i4 element `-9`"},
		{"1xsi4=8", "invalid si4 element `8` (si4 holds integers from -8 to 7)"},
		{"1xui4=-1", "invalid ui4 element `-1` (ui4 holds integers from 0 to 15)"},
		{"1xi2=4", "invalid i2 element `4` (i2 holds integers from -2 to 3)"},
		{"1xf4E2M1FN=abc", "invalid f4E2M1FN element `abc`"},
		{"2xi4=1 2 3", "output data overflow"},
	}
	for _, c := range cases {
		_, err := ParseBufferView(c.spec)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("ParseBufferView(%q) error = %v, want one containing %q", c.spec, err, c.msg)
		}
	}
}

func TestF4E2M1FNEncodings(t *testing.T) {
	values := []float64{0, 0.5, 1, 1.5, 2, 3, 4, 6}
	for code := uint32(0); code < 16; code++ {
		want := values[code&7]
		if code&8 != 0 {
			want = -want
		}
		got := fmtF4E2M1FN.decode(code)
		if got != want || math.Signbit(got) != (code&8 != 0) {
			t.Errorf("decode(%#x) = %g, want %g", code, got, want)
		}
		if back := fmtF4E2M1FN.encode(float32(got)); back != code {
			t.Errorf("encode(%g) = %#x, want %#x", got, back, code)
		}
	}
	// Ties round to an even mantissa; overflow saturates; NaN becomes a
	// signed zero, as gree's kernels round.
	for x, want := range map[float32]uint32{
		0.25: 0x0, 0.75: 0x2, 1.25: 0x2, 1.75: 0x4, 2.5: 0x4, 3.5: 0x6, 5: 0x6, 5.5: 0x7,
		-5: 0xe, 7: 0x7, 1e9: 0x7, -1e9: 0xf, float32(math.Inf(1)): 0x7, float32(math.NaN()): 0x0,
	} {
		if got := fmtF4E2M1FN.encode(x); got != want {
			t.Errorf("encode(%g) = %#x, want %#x", x, got, want)
		}
	}
}

// npyBytes is one array as np.save writes it (version 1.0, the header
// padded to 64 bytes).
func npyBytes(descr, shape string, data []byte) []byte {
	dict := "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }"
	pad := 64 - (10+len(dict)+1)%64
	header := dict + strings.Repeat(" ", pad%64) + "\n"
	b := append([]byte("\x93NUMPY\x01\x00"), byte(len(header)), byte(len(header)>>8))
	return append(append(b, header...), data...)
}

func TestParseInputsNPYVoidTakesArgumentType(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "in.npy")
	// ml_dtypes arrays as np.save writes them: int4 [1 -2 -3 7 -8] (the
	// low nibble of each byte), float8_e4m3fn [1 -2], bfloat16 [1.5].
	var file []byte
	file = append(file, npyBytes("<V1", "(5,)", []byte{0x01, 0x0e, 0x0d, 0x07, 0x08})...)
	file = append(file, npyBytes("<V1", "(2,)", []byte{0x38, 0xc0})...)
	file = append(file, npyBytes("<V2", "(1,)", []byte{0xc0, 0x3f})...)
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
	want := []module.TensorType{
		{ElementType: uint32(hal.ElementInt4), Dims: []int64{5}},
		{ElementType: uint32(hal.ElementF8E4M3FN), Dims: []int64{2}},
		{ElementType: uint32(hal.ElementBFloat16), Dims: []int64{1}},
	}
	values, err := ParseInputsFor([]string{"*" + path}, "rrr", want)
	if err != nil {
		t.Fatal(err)
	}
	got := formatAll(values)
	if w := "hal.buffer_view\n5xi4=1 -2 -3 7 -8\nhal.buffer_view\n2xf8E4M3FN=1 -2\nhal.buffer_view\n1xbf16=1.5"; got != w {
		t.Errorf("got\n%s\nwant\n%s", got, w)
	}
	bv := values[0].Ref.(*hal.BufferView)
	if b := bv.Bytes(); !bytes.Equal(b, []byte{0x01, 0xfe, 0xfd, 0x07, 0xf8}) {
		t.Errorf("int4 bytes % x are not canonical", b)
	}
	// Without the function's types, or for an argument whose storage size
	// differs, the array stays opaque (the call then names the mismatch).
	values, err = ParseInputsFor([]string{"@" + path}, "r", []module.TensorType{{ElementType: uint32(hal.ElementFloat32), Dims: []int64{5}}})
	if err != nil || values[0].Ref.(*hal.BufferView).Type != hal.ElementOpaque8 {
		t.Errorf("a V1 array for an f32 argument: %v, %v", values, err)
	}
}

func TestWriteNPYSubByteValues(t *testing.T) {
	cases := []struct {
		spec, descr string
		data        []byte
	}{
		{"3xui4=13 15 0", "|u1", []byte{13, 15, 0}},
		{"3xi4=-3 7 -8", "|i1", []byte{0xfd, 0x07, 0xf8}},
		{"2xui2=3 1", "|u1", []byte{3, 1}},
	}
	for _, c := range cases {
		var buf bytes.Buffer
		if err := WriteNPY(&buf, mustParse(t, c.spec)); err != nil {
			t.Fatal(err)
		}
		out := buf.Bytes()
		if !bytes.Contains(out, []byte("'descr': '"+c.descr+"'")) || !bytes.HasSuffix(out, c.data) {
			t.Errorf("WriteNPY(%s) = %q, want descr %s and data % x", c.spec, out, c.descr, c.data)
		}
	}
	// f4E2M1FN, like IREE's f8 types, has no NumPy dtype to write.
	err := WriteNPY(&bytes.Buffer{}, mustParse(t, "1xf4E2M1FN=1"))
	if status.CodeOf(err) != status.Unimplemented {
		t.Errorf("f4E2M1FN: %v", err)
	}
}

func TestParseRawFileSubByteIsCanonical(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.bin")
	if err := os.WriteFile(path, []byte{0x0d, 0x07, 0x18}, 0o644); err != nil {
		t.Fatal(err)
	}
	bv := mustParse(t, "3xi4=@"+path)
	if got := bv.Bytes(); !bytes.Equal(got, []byte{0xfd, 0x07, 0xf8}) {
		t.Errorf("bytes % x", got)
	}
	if got := FormatBufferView(bv, 10); got != "3xi4=-3 7 -8" {
		t.Errorf("got %q", got)
	}
}
