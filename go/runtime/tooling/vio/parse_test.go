package vio

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

func TestParseBufferViewRoundTrip(t *testing.T) {
	cases := []struct{ spec, want string }{
		{"4xf32=4 10 18 28", "4xf32=4 10 18 28"},
		{"2x3xi32=[1 2 3][4 5 6]", "2x3xi32=[1 2 3][4 5 6]"},
		{"2x2x2xf32=[[1 2][3 4]][[5 6][7 8]]", "2x2x2xf32=[[1 2][3 4]][[5 6][7 8]]"},
		{"2x2xi32=[[1 2][3 4]]", "2x2xi32=[1 2][3 4]"},
		{"2x2xi32=1 2 3 4", "2x2xi32=[1 2][3 4]"},
		{"10xf32=[0,1,2,3,4,5,6,7,8,9]", "10xf32=0 1 2 3 4 5 6 7 8 9"},
		{"2x3xi32=[1 2] 3 [[4, 5 6]]", "2x3xi32=[1 2 3][4 5 6]"},
		{"i32=1234", "i32=1234"},
		{"1xi32=1234", "1xi32=1234"},
		{`"2xi32=12 34"`, "2xi32=12 34"},
		{"  2xi32=12 34\n", "2xi32=12 34"},
		{"3xi8=-6 250 0xFF", "3xi8=-6 -6 -1"},
		{"2xi16=-32768 65535", "2xi16=-32768 -1"},
		{"2xui8=0 255", "2xui8=0 255"},
		{"3xi32=0x10 017 -0x1", "3xi32=16 15 -1"},
		{"2xi32=12abc 7", "2xi32=12 7"},
		{"1xi32=4294967295", "1xi32=-1"},
		{"1xui32=-1", "1xui32=4294967295"},
		{"2xi64=-9223372036854775808 9223372036854775807", "2xi64=-9223372036854775808 9223372036854775807"},
		{"1xui64=18446744073709551615", "1xui64=18446744073709551615"},
		{"1xsi8=-200", "1xsi8=56"},
		{"3xf32=1123.5678 -1.5e-10 0.00001", "3xf32=1123.57 -1.5E-10 1E-05"},
		{"3xf32=inf -Infinity nan", "3xf32=INF -INF NAN"},
		{"2xf32=0x1.8p1 1e39", "2xf32=3 INF"},
		{"2xf64=0.1 -2.5", "2xf64=0.1 -2.5"},
		{"2xf16=1.5 65520", "2xf16=1.5 INF"},
		{"1xbf16=3.14159", "1xbf16=3.14062"},
		{"3xf8E4M3FN=1 500 -inf", "3xf8E4M3FN=1 448 -448"},
		{"2xf8E5M2=1.5 1e6", "2xf8E5M2=1.5 INF"},
		{"2xf8E4M3FNUZ=0.5 1000", "2xf8E4M3FNUZ=0.5 NAN"},
		{"2xf8E5M2FNUZ=-0 2", "2xf8E5M2FNUZ=0 2"},
		{"2xf8E8M0FNU=3 0.7", "2xf8E8M0FNU=4 0.5"},
		{"2xi1=01 00", "2xi1=01 00"},
		{"1xcf64=0000803F00000040", "1xcf64=0000803F00000040"},
		{"1x*16=abZZ", "1x*16=AB00"},
		{"1x2xi4=0F 01", "1x2xi4=[-1 1]"},
		{"5xi4=1,2,-3,7,15", "5xi4=1 2 -3 7 -1"},
		{"3xui4=13 0x0F 0", "3xui4=13 15 0"},
		{"2xsi4=-8 7", "2xsi4=-8 7"},
		{"4xi2=-2 -1 1 3", "4xi2=-2 -1 1 -1"},
		{"3xui2=FD 3 2", "3xui2=1 3 2"},
		{"6xf4E2M1FN=0.5 -1.25 2.5 7 -100 nan", "6xf4E2M1FN=0.5 -1 2 6 -6 0"},
		{"3xf4E2M1FN=0F", "3xf4E2M1FN=-6 -6 -6"},
		{"2xi32", "2xi32=0 0"},
		{"2xi32=", "2xi32=0 0"},
		{"f32", "f32=0"},
		{"3xf32=7", "3xf32=7 7 7"},
		{"0xf32=", "0xf32="},
	}
	for _, c := range cases {
		bv, err := ParseBufferView(c.spec)
		if err != nil {
			t.Errorf("ParseBufferView(%q): %v", c.spec, err)
			continue
		}
		if got := FormatBufferView(bv, 1024); got != c.want {
			t.Errorf("ParseBufferView(%q) formats as %q, want %q", c.spec, got, c.want)
		}
	}
}

func TestParseBufferViewSplatSize(t *testing.T) {
	bv := mustParse(t, "1x3x224x224xf32=0")
	if len(bv.Bytes()) != 3*224*224*4 || bv.ElementCount() != 150528 {
		t.Fatalf("splat: %d bytes, %d elements", len(bv.Bytes()), bv.ElementCount())
	}
	bv = mustParse(t, "1x3x224x224xf32=1.5")
	for i := 0; i < len(bv.Bytes()); i += 4 {
		if !bytes.Equal(bv.Bytes()[i:i+4], []byte{0, 0, 0xc0, 0x3f}) {
			t.Fatalf("element %d = % x", i/4, bv.Bytes()[i:i+4])
		}
	}
}

func TestParseBufferViewFloat16Bits(t *testing.T) {
	bv := mustParse(t, "3xf16=1.5 -2 0.1")
	want := []byte{0x00, 0x3e, 0x00, 0xc0, 0x66, 0x2e}
	if !bytes.Equal(bv.Bytes(), want) {
		t.Errorf("f16 bits % x, want % x", bv.Bytes(), want)
	}
	bv = mustParse(t, "1xbf16=1")
	if !bytes.Equal(bv.Bytes(), []byte{0x80, 0x3f}) {
		t.Errorf("bf16 bits % x", bv.Bytes())
	}
}

func TestMinifloatRoundTripsEveryEncoding(t *testing.T) {
	for _, f := range []minifloat{fmtF8E5M2, fmtF8E4M3FN, fmtF8E5M2FNUZ, fmtF8E4M3FNUZ} {
		for b := uint32(0); b < 256; b++ {
			v := f.decode(b)
			if math.IsNaN(v) {
				continue
			}
			if got := f.encode(float32(v)); got != b {
				t.Errorf("%+v: encode(decode(%#x) = %g) = %#x", f, b, v, got)
			}
		}
	}
	for b := uint32(0); b < 1<<16; b++ {
		v := fmtF16.decode(b)
		if !math.IsNaN(v) && fmtF16.encode(float32(v)) != b {
			t.Fatalf("f16 %#x does not round-trip", b)
		}
	}
}

func TestParseBufferViewErrors(t *testing.T) {
	cases := []struct {
		spec string
		code status.Code
		msg  string
	}{
		{"", status.InvalidArgument, "empty string input"},
		{`""`, status.InvalidArgument, "empty string input"},
		{"4xf32=1 2", status.OutOfRange, "input data string underflow: dst_i=2 < element_capacity=4"},
		{"2xf32=1 2 3", status.OutOfRange, "output data overflow: element_capacity=2 < dst_i=2"},
		{"2xf32=1 2 3]", status.OutOfRange, "output data buffer overflow: element_capacity=2 < dst_i=2+"},
		{"2xf32=[]", status.OutOfRange, "input data string underflow: dst_i=0 < element_capacity=2"},
		{"1xi8=300", status.InvalidArgument, "invalid i8 element `300`"},
		{"1xi8=-129", status.InvalidArgument, "invalid i8 element `-129`"},
		{"1xsi8=128", status.InvalidArgument, "invalid si8 element `128`"},
		{"1xui8=-1", status.InvalidArgument, "invalid ui8 element `-1`"},
		{"1xi32=abc", status.InvalidArgument, "invalid i32 element `abc`"},
		{"1xi32=99999999999999999999", status.InvalidArgument, "invalid i32 element"},
		{"1xf32=1.5x", status.InvalidArgument, "invalid f32 element `1.5x`"},
		{"1xf32=0x10", status.InvalidArgument, "invalid f32 element `0x10`"},
		{"2xi1=1 0", status.InvalidArgument, "binary hex element count mismatch: buffer length=1 < expected=2"},
		{"ax4xf32", status.InvalidArgument, "shape[0] invalid value 'a' of 'ax4'"},
		{"-1xf32", status.InvalidArgument, "shape[0] invalid value '-1' of '-1'"},
		{"4xxf32", status.InvalidArgument, "invalid shape specification: '4x'"},
		{"4xq32=1", status.InvalidArgument, "unhandled element type prefix in 'q32'"},
		{strings.Repeat("1x", 129) + "f32", status.ResourceExhausted, "a shape rank of 129 is just a little bit excessive, eh?"},
		{"1000000x1000000x1000000xf32", status.ResourceExhausted, "exceeds"},
	}
	for _, c := range cases {
		_, err := ParseBufferView(c.spec)
		if err == nil || status.CodeOf(err) != c.code || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("ParseBufferView(%q) error = %v, want %v containing %q", c.spec, err, c.code, c.msg)
		}
	}
}

func TestParseBufferViewRawFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "data.bin")
	if err := os.WriteFile(path, []byte{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0}, 0o644); err != nil {
		t.Fatal(err)
	}
	bv := mustParse(t, "2xi32=@"+path)
	if got := FormatBufferView(bv, 100); got != "2xi32=1 2" {
		t.Errorf("got %q", got)
	}
	// A fresh call opens the file again, so "+" also starts at 0.
	bv = mustParse(t, "3xi32=+"+path)
	if got := FormatBufferView(bv, 100); got != "3xi32=1 2 3" {
		t.Errorf("got %q", got)
	}
	_, err := ParseBufferView("4xi32=@" + path)
	if status.CodeOf(err) != status.OutOfRange {
		t.Errorf("short file: %v", err)
	}
	_, err = ParseBufferView("4xi32=@" + filepath.Join(dir, "missing.bin"))
	if status.CodeOf(err) != status.NotFound || !strings.Contains(err.Error(), "failed to open file") {
		t.Errorf("missing file: %v", err)
	}
	if bv := mustParse(t, "2xi32=@"+path); bv.Type != hal.ElementInt32 {
		t.Errorf("type %v", bv.Type)
	}
}
