package vio

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

// runPython runs a python3 script with numpy in dir and returns its stdout.
func runPython(t *testing.T, dir, script string) string {
	t.Helper()
	cmd := exec.Command("python3", "-c", script)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python3 failed: %v\n%s", err, out)
	}
	return string(out)
}

func TestNPYRoundTrip(t *testing.T) {
	views := []*hal.BufferView{
		mustParse(t, "2x3xf32=[1 2 3][4 5 6]"),
		mustParse(t, "i32=7"),
		mustParse(t, "4xui8=1 2 3 255"),
		mustParse(t, "2xi1=01 00"),
		mustParse(t, "2xf16=1.5 -2"),
		mustParse(t, "1xcf64=0000803F00000040"),
		mustParse(t, "0xf64"),
	}
	var buf bytes.Buffer
	for _, bv := range views {
		start := buf.Len()
		if err := WriteNPY(&buf, bv); err != nil {
			t.Fatalf("WriteNPY(%s): %v", FormatShapeAndType(bv.Shape, bv.Type), err)
		}
		if hdr := buf.Len() - start - len(bv.Bytes()); hdr%64 != 0 {
			t.Errorf("header of %d bytes is not 64-byte aligned", hdr)
		}
	}
	r := bytes.NewReader(buf.Bytes())
	for _, bv := range views {
		got, err := ReadNPY(r)
		if err != nil {
			t.Fatalf("ReadNPY: %v", err)
		}
		// Signless integers come back signed, as NumPy has no signless type.
		want := FormatBufferView(bv, 100)
		want = strings.Replace(want, "xi32=", "xsi32=", 1)
		if bv.Type == hal.ElementInt32 && len(bv.Shape) == 0 {
			want = "si32=7"
		}
		if g := FormatBufferView(got, 100); g != want {
			t.Errorf("round trip: got %q, want %q", g, want)
		}
	}
	if _, err := ReadNPY(r); status.CodeOf(err) != status.OutOfRange || !strings.Contains(err.Error(), "end-of-file") {
		t.Errorf("read past end: %v", err)
	}
}

func TestWriteNPYHeader(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteNPY(&buf, mustParse(t, "4xi8=1 2 3 4")); err != nil {
		t.Fatal(err)
	}
	want := "\x93NUMPY\x01\x00\x76\x00{'descr': '|i1', 'fortran_order': False, 'shape': (4,), }" +
		strings.Repeat(" ", 60) + "\n\x01\x02\x03\x04"
	if buf.String() != want {
		t.Errorf("header:\n%q\nwant\n%q", buf.String(), want)
	}
	for _, spec := range []string{"1xbf16=1", "1xf8E4M3FN=1"} {
		err := WriteNPY(&buf, mustParse(t, spec))
		if status.CodeOf(err) != status.Unimplemented || !strings.Contains(err.Error(), "unsupported data encoding") {
			t.Errorf("WriteNPY(%s): %v", spec, err)
		}
	}
}

func TestReadNPYErrors(t *testing.T) {
	header := func(dict string) []byte {
		b := []byte("\x93NUMPY\x01\x00")
		b = append(b, byte(len(dict)), 0)
		return append(b, dict...)
	}
	cases := []struct {
		data []byte
		code status.Code
		msg  string
	}{
		{[]byte("\x93NUM"), status.OutOfRange, "unable to read entire header prefix"},
		{[]byte("\x93NUMPX\x01\x00"), status.InvalidArgument, "npy header magic mismatch"},
		{[]byte("\x93NUMPY\x04\x00"), status.Unimplemented, "npy version 4.0 not supported"},
		{header("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }"), status.Unimplemented, "big-endian data type '>f4' unsupported"},
		{header("{'descr': '<U3', 'fortran_order': False, 'shape': (1,), }"), status.Unimplemented, "unsupported data type U"},
		{header("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }"), status.Unimplemented, "fortran order arrays not supported"},
		{header("{'descr': [('a', '<f4')], 'shape': (1,), }"), status.InvalidArgument, "malformed header dict"},
		{append(header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }"), 1, 2), status.OutOfRange, "failed to read npy contents of 8 bytes"},
	}
	for _, c := range cases {
		_, err := ReadNPY(bytes.NewReader(c.data))
		if status.CodeOf(err) != c.code || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("ReadNPY(%q) = %v, want %v %q", c.data, err, c.code, c.msg)
		}
	}
}

func TestReadNPYFromNumPy(t *testing.T) {
	requireNumpy(t)
	dir := t.TempDir()
	runPython(t, dir, `
import numpy as np
with open('a.npy', 'wb') as f:
    np.save(f, np.array([11, 12], dtype=np.int32))
    np.save(f, np.array([[1.5, -2.0], [3.25, 1e-5]], dtype=np.float32))
    np.save(f, np.array([True, False]))
    np.save(f, np.array([1, 255], dtype=np.uint8))
    np.save(f, np.array([-1, 2], dtype=np.int8))
    np.save(f, np.array([0.5, 1.5], dtype=np.float16))
    np.save(f, np.array(3.5, dtype=np.float64))
    np.save(f, np.array([1+2j], dtype=np.complex64))
    np.save(f, np.array([-7], dtype=np.int64))
np.save('v2.npy', np.array([1, 2], dtype=np.int16), allow_pickle=False)
np.lib.format.write_array(open('v3.npy', 'wb'), np.array([4, 5], dtype=np.uint16), version=(3, 0))
`)
	views, err := ReadNPYFile(filepath.Join(dir, "a.npy"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"2xsi32=11 12", "2x2xf32=[1.5 -2][3.25 1E-05]", "2xi1=01 00", "2xui8=1 255",
		"2xsi8=-1 2", "2xf16=0.5 1.5", "f64=3.5", "1xcf64=0000803F00000040", "1xsi64=-7",
	}
	if len(views) != len(want) {
		t.Fatalf("read %d arrays, want %d", len(views), len(want))
	}
	for i, bv := range views {
		if got := FormatBufferView(bv, 100); got != want[i] {
			t.Errorf("array %d = %q, want %q", i, got, want[i])
		}
	}
	for file, w := range map[string]string{"v2.npy": "2xsi16=1 2", "v3.npy": "2xui16=4 5"} {
		views, err := ReadNPYFile(filepath.Join(dir, file))
		if err != nil || len(views) != 1 || FormatBufferView(views[0], 10) != w {
			t.Errorf("%s: %v %v", file, views, err)
		}
	}
}

func TestWriteNPYReadByNumPy(t *testing.T) {
	requireNumpy(t)
	dir := t.TempDir()
	err := WriteNPYFile(filepath.Join(dir, "out.npy"),
		mustParse(t, "2x3xf32=[1 2 3][4 5 6.5]"),
		mustParse(t, "3xi8=-6 250 0xFF"),
		mustParse(t, "i64=-5"),
		mustParse(t, "2xi1=01 00"),
		mustParse(t, "2xui16=1 65535"),
		mustParse(t, "1xf16=0.1"),
		mustParse(t, "2xsi32=11 12"),
	)
	if err != nil {
		t.Fatal(err)
	}
	got := runPython(t, dir, `
import numpy as np
with open('out.npy', 'rb') as f:
    for _ in range(7):
        a = np.load(f)
        print(a.dtype.str, a.shape, a.tolist())
    print(f.read() == b'')
`)
	want := `<f4 (2, 3) [[1.0, 2.0, 3.0], [4.0, 5.0, 6.5]]
|i1 (3,) [-6, -6, -1]
<i8 () -5
|b1 (2,) [True, False]
<u2 (2,) [1, 65535]
<f2 (1,) [0.0999755859375]
<i4 (2,) [11, 12]
True
`
	if got != want {
		t.Errorf("numpy read:\n%s\nwant\n%s", got, want)
	}
}

func TestWriteNPYMatchesNumPyBytes(t *testing.T) {
	requireNumpy(t)
	dir := t.TempDir()
	runPython(t, dir, `
import numpy as np
np.save('np.npy', np.arange(6, dtype=np.float32).reshape(2, 3))
`)
	var buf bytes.Buffer
	if err := WriteNPY(&buf, mustParse(t, "2x3xf32=0 1 2 3 4 5")); err != nil {
		t.Fatal(err)
	}
	npBytes, err := os.ReadFile(filepath.Join(dir, "np.npy"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), npBytes) {
		t.Errorf("gree wrote\n%q\nnumpy wrote\n%q", buf.Bytes(), npBytes)
	}
}

func TestFloat16ConversionMatchesNumPy(t *testing.T) {
	requireNumpy(t)
	dir := t.TempDir()
	// Deterministic f32 values spanning normals, subnormals, ties and overflow.
	var vals []float32
	x := uint32(12345)
	for i := 0; i < 20000; i++ {
		x = x*1664525 + 1013904223
		vals = append(vals, math.Float32frombits(x))
	}
	vals = append(vals, 65519, 65520, 5.960464e-8, 2.980232e-8, 1.0009765625, 1.00048828125)
	src := f32View([]int64{int64(len(vals))}, vals...)
	if err := WriteNPYFile(filepath.Join(dir, "f32.npy"), src); err != nil {
		t.Fatal(err)
	}
	runPython(t, dir, `
import numpy as np, warnings
warnings.simplefilter('ignore')
np.save('f16.npy', np.load('f32.npy').astype(np.float16))
`)
	views, err := ReadNPYFile(filepath.Join(dir, "f16.npy"))
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vals {
		want := binary.LittleEndian.Uint16(views[0].Bytes()[2*i:])
		got := fmtF16.encode(v)
		if math.IsNaN(float64(v)) {
			if !math.IsNaN(fmtF16.decode(got)) {
				t.Errorf("f16(%g) = %#x, want a NaN", v, got)
			}
			continue
		}
		if uint16(got) != want {
			t.Errorf("f16(%g) = %#x, numpy %#x", v, got, want)
		}
	}
}
