package vio

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/runtime/vm"
	"github.com/gree-ml/gree/go/status"
)

func TestPrintResults(t *testing.T) {
	results := []vm.Value{
		vm.I32(123),
		vm.RefValue(mustParse(t, "f32=4")),
		vm.RefValue(mustParse(t, "2x4xi32=[0 1 2 3][4 5 6 7]")),
		vm.I64(5),
		vm.F32(-3.14),
		vm.F64(1e-5),
		vm.RefValue(nil),
		vm.RefValue(&vm.List{Items: []vm.Value{vm.I32(1), vm.RefValue(mustParse(t, "2xf32=1 2"))}}),
		vm.RefValue([]byte{1, 2}),
	}
	var buf bytes.Buffer
	if err := PrintResults(&buf, results, 1024); err != nil {
		t.Fatal(err)
	}
	want := `result[0]: i32=123
result[1]: hal.buffer_view
f32=4
result[2]: hal.buffer_view
2x4xi32=[0 1 2 3][4 5 6 7]
result[3]: i64=5
result[4]: f32=-3.14
result[5]: f64=1e-05
result[6]: (null)
result[7]: vm.list
child_list[0]: i32=1
child_list[1]: hal.buffer_view
2xf32=1 2

result[8]: hal.buffer
(no printer)
`
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
	buf.Reset()
	if err := PrintResults(&buf, []vm.Value{vm.RefValue(mustParse(t, "4xf32=1 2 3 4"))}, 2); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "result[0]: hal.buffer_view\n4xf32=1 2...\n" {
		t.Errorf("elided: %q", buf.String())
	}
}

func TestWriteOutputsStdoutAndDiscard(t *testing.T) {
	results := []vm.Value{vm.I32(7), vm.RefValue(mustParse(t, "2xf32=1 2")), vm.F32(1)}
	var buf bytes.Buffer
	if err := WriteOutputs(results, []string{"-", "-", ""}, &buf, 1024); err != nil {
		t.Fatal(err)
	}
	if want := "i32=7\nhal.buffer_view\n2xf32=1 2\n"; buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
	err := WriteOutputs(results, []string{"-"}, &buf, 1024)
	if status.CodeOf(err) != status.OutOfRange ||
		!strings.Contains(err.Error(), "1 outputs specified but the provided variant list only has 3 elements") {
		t.Errorf("count mismatch: %v", err)
	}
	err = WriteOutputs(results[:1], []string{"out.bin"}, &buf, 1024)
	if status.CodeOf(err) != status.Unimplemented || !strings.Contains(err.Error(), "unsupported output mode specification 'out.bin'") {
		t.Errorf("bad mode: %v", err)
	}
}

func TestWriteOutputsFiles(t *testing.T) {
	dir := t.TempDir()
	npy := filepath.Join(dir, "out.npy")
	bin := filepath.Join(dir, "out.bin")
	results := []vm.Value{
		vm.RefValue(mustParse(t, "2xf32=1 2")),
		vm.I32(-2),
		vm.RefValue(nil),
		vm.RefValue([]byte{9, 8, 7}),
		vm.F64(0.5),
	}
	specs := []string{"@" + npy, "+" + npy, "+" + npy, "+" + npy, "+" + npy}
	if err := WriteOutputs(results, specs, nil, 1024); err != nil {
		t.Fatal(err)
	}
	views, err := ReadNPYFile(npy)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, bv := range views {
		got = append(got, FormatBufferView(bv, 100))
	}
	want := "2xf32=1 2|si32=-2|0xsi8=|3xsi8=9 8 7|f64=0.5"
	if strings.Join(got, "|") != want {
		t.Errorf("npy contents %q, want %q", strings.Join(got, "|"), want)
	}
	// "@" truncates.
	if err := WriteOutputs(results[:1], []string{"@" + npy}, nil, 1024); err != nil {
		t.Fatal(err)
	}
	if views, err := ReadNPYFile(npy); err != nil || len(views) != 1 {
		t.Errorf("after truncation: %d arrays, %v", len(views), err)
	}
	// Raw bytes without metadata.
	if err := WriteOutputs(results, []string{"@" + bin, "+" + bin, "+" + bin, "+" + bin, ""}, nil, 1024); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	wantRaw := []byte{0, 0, 0x80, 0x3f, 0, 0, 0, 0x40, 0xfe, 0xff, 0xff, 0xff, 9, 8, 7}
	if !bytes.Equal(raw, wantRaw) {
		t.Errorf("raw % x, want % x", raw, wantRaw)
	}
	list := vm.RefValue(&vm.List{})
	err = WriteOutputs([]vm.Value{list}, []string{"@" + npy}, nil, 1024)
	if status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "unsupported output source type") {
		t.Errorf("list output: %v", err)
	}
}

func TestWriteOutputsNPYReadByNumPy(t *testing.T) {
	requireNumpy(t)
	dir := t.TempDir()
	results := []vm.Value{vm.I32(3), vm.RefValue(mustParse(t, "2x2xi32=[1 2][3 4]")), vm.RefValue([]byte{1, 2})}
	path := filepath.Join(dir, "out.npy")
	if err := WriteOutputs(results, []string{"@" + path, "+" + path, "+" + path}, nil, 0); err != nil {
		t.Fatal(err)
	}
	got := runPython(t, dir, `
import numpy as np
with open('out.npy', 'rb') as f:
    for _ in range(3):
        a = np.load(f)
        print(a.dtype.str, a.shape, a.tolist())
`)
	want := "<i4 () 3\n<i4 (2, 2) [[1, 2], [3, 4]]\n|i1 (2,) [1, 2]\n"
	if got != want {
		t.Errorf("numpy read:\n%s\nwant\n%s", got, want)
	}
}
