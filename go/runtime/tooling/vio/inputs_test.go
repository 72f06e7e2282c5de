package vio

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/vm"
	"github.com/gree-ml/gree/go/schemas/module"
	"github.com/gree-ml/gree/go/status"
)

// formatAll formats values one per line as FormatValue does.
func formatAll(values []vm.Value) string {
	var s []string
	for _, v := range values {
		s = append(s, FormatValue(v, 1024))
	}
	return strings.Join(s, "\n")
}

func TestParseInputsPrimitivesAndTensors(t *testing.T) {
	values, err := ParseInputs([]string{
		"1234", " -3.14 ", "5", "2.5", "i32=1234", "2x3xi32=[1 2 3][4 5 6]", "(null)", "(ignored)", "&2xf32=1 2",
	}, "ifIFrrrir")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"i32=1234", "f32=-3.14", "i64=5", "f64=2.5", "hal.buffer_view\ni32=1234",
		"hal.buffer_view\n2x3xi32=[1 2 3][4 5 6]", "(null)", "i32=0", "hal.buffer_view\n2xf32=1 2",
	}, "\n")
	if got := formatAll(values); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if values[1].Kind != vm.KindF32 || values[2].Kind != vm.KindI64 || values[3].Kind != vm.KindF64 {
		t.Errorf("kinds %v %v %v", values[1].Kind, values[2].Kind, values[3].Kind)
	}
}

func TestParseInputsNullsPerCConv(t *testing.T) {
	values, err := ParseInputs([]string{"(null)", "(null)", "(ignored)", "(null)"}, "iIfF")
	if err != nil {
		t.Fatal(err)
	}
	if got := formatAll(values); got != "i32=0\ni64=0\nf32=0\nf64=0" {
		t.Errorf("got %q", got)
	}
}

func TestParseInputsErrors(t *testing.T) {
	cases := []struct {
		specs []string
		cconv string
		code  status.Code
		msg   string
	}{
		{[]string{""}, "r", status.InvalidArgument, "no value specified for input; parsing input ``"},
		{[]string{"  "}, "i", status.InvalidArgument, "no value specified for input"},
		{[]string{"f32=5"}, "f", status.InvalidArgument, "parsing value `f32=5` as f32; parsing input `f32=5`"},
		{[]string{"abc"}, "i", status.InvalidArgument, "parsing value `abc` as i32"},
		{[]string{"1", "2"}, "i", status.InvalidArgument, "function expected fewer input values; parsing input `2`"},
		{[]string{"2xf32=1 2"}, "", status.InvalidArgument, "function expected fewer input values"},
		{[]string{"1"}, "ii", status.InvalidArgument, "input list and function mismatch; expected 2 arguments but passed 1"},
		{nil, "r", status.InvalidArgument, "expected 1 arguments but passed 0"},
		{[]string{"f32"}, "r", status.InvalidArgument,
			"invalid tensor specification, requires at least a shape/type (`4x2xf32=...`); parsing input `f32`"},
		{[]string{"4xf32=1 2"}, "r", status.OutOfRange,
			"input data string underflow: dst_i=2 < element_capacity=4; parsing input `4xf32=1 2`"},
		{[]string{"@x.bin"}, "r", status.Unimplemented, "only numpy (.npy) files are supported for metadata-less variant I/O"},
		{[]string{"&2xf32"}, "i", status.InvalidArgument, "function signature mismatch: expected cconv type `r` but provided type `i`"},
		{[]string{"1"}, "v", status.Unimplemented, "unimplemented cconv type `v`"},
		{[]string{"@/nonexistent/a.npy"}, "r", status.NotFound, "failed to open file '/nonexistent/a.npy'"},
	}
	for _, c := range cases {
		_, err := ParseInputs(c.specs, c.cconv)
		if status.CodeOf(err) != c.code || err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("ParseInputs(%q, %q) = %v, want %v %q", c.specs, c.cconv, err, c.code, c.msg)
		}
	}
}

func TestParseInputsNPYStreams(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "in.npy")
	err := WriteNPYFile(path,
		mustParse(t, "2xsi32=11 12"),
		mustParse(t, "f32=2.5"),
		mustParse(t, "3xui8=1 2 3"),
	)
	if err != nil {
		t.Fatal(err)
	}
	a0 := "hal.buffer_view\n2xsi32=11 12"
	a1 := "hal.buffer_view\nf32=2.5"
	a2 := "hal.buffer_view\n3xui8=1 2 3"
	cases := []struct {
		specs []string
		want  []string
	}{
		{[]string{"@" + path}, []string{a0}},
		{[]string{"@" + path, "+" + path, "+" + path}, []string{a0, a1, a2}},
		{[]string{"@" + path, "@" + path}, []string{a0, a0}},
		{[]string{"+" + path, "+" + path}, []string{a0, a1}},
		{[]string{"*" + path}, []string{a0, a1, a2}},
		{[]string{"@" + path, "*" + path}, []string{a0, a1, a2}},
		{[]string{"@" + path, "+" + path, "+" + path, "*" + path}, []string{a0, a1, a2}},
		{[]string{"*" + path, "@" + path}, []string{a0, a1, a2, a0}},
	}
	for _, c := range cases {
		values, err := ParseInputs(c.specs, strings.Repeat("r", len(c.want)))
		if err != nil {
			t.Errorf("ParseInputs(%q): %v", c.specs, err)
			continue
		}
		if got := formatAll(values); got != strings.Join(c.want, "\n") {
			t.Errorf("ParseInputs(%q) =\n%s\nwant\n%s", c.specs, got, strings.Join(c.want, "\n"))
		}
	}
	_, err = ParseInputs([]string{"@" + path, "+" + path, "+" + path, "+" + path}, "rrrr")
	if status.CodeOf(err) != status.OutOfRange || !strings.Contains(err.Error(), "end-of-file; parsing input `+") {
		t.Errorf("reading past the end: %v", err)
	}
	_, err = ParseInputs([]string{"*" + path}, "rr")
	if !strings.Contains(err.Error(), "function expected fewer input values; parsing input `*") {
		t.Errorf("splat into too few arguments: %v", err)
	}
	_, err = ParseInputs([]string{"@" + path}, "i")
	if !strings.Contains(err.Error(), "function signature mismatch: expected cconv type `r` but provided type `i`") {
		t.Errorf("npy into a primitive: %v", err)
	}
}

func TestParseInputsNPYFromNumPyIsSigned(t *testing.T) {
	requireNumpy(t)
	dir := t.TempDir()
	runPython(t, dir, "import numpy as np\nnp.save('a.npy', np.array([11, 12], dtype=np.int32))\n")
	values, err := ParseInputs([]string{"@" + filepath.Join(dir, "a.npy")}, "r")
	if err != nil {
		t.Fatal(err)
	}
	if got := FormatBufferView(values[0].Ref.(*hal.BufferView), 1024); got != "2xsi32=11 12" {
		t.Errorf("got %q", got)
	}
}

func TestParseInputsRawFileStreams(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "raw.bin")
	data := []byte{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	values, err := ParseInputs([]string{"2xi32=@" + path, "2xi32=+" + path, "1xi32=@" + path}, "rrr")
	if err != nil {
		t.Fatal(err)
	}
	want := "hal.buffer_view\n2xi32=1 2\nhal.buffer_view\n2xi32=3 4\nhal.buffer_view\n1xi32=1"
	if got := formatAll(values); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// Raw and .npy specs share the stream of a path.
	npy := filepath.Join(dir, "two.npy")
	if err := WriteNPYFile(npy, mustParse(t, "1xi8=5"), mustParse(t, "1xi8=6")); err != nil {
		t.Fatal(err)
	}
	values, err = ParseInputs([]string{"@" + npy, "+" + npy}, "rr")
	if err != nil || formatAll(values) != "hal.buffer_view\n1xsi8=5\nhal.buffer_view\n1xsi8=6" {
		t.Errorf("got %q, %v", formatAll(values), err)
	}
}

// TestInputShapeCheckedBeforeValues: a tensor spec whose shape is not the
// argument's is refused before its values are read or its buffer
// allocated (a 16 GiB splat for a 4xf32 argument costs nothing), while
// dynamic dimensions accept any size.
func TestInputShapeCheckedBeforeValues(t *testing.T) {
	want := []module.TensorType{{ElementType: uint32(hal.ElementFloat32), Dims: []int64{4}}, {ElementType: uint32(hal.ElementFloat32), Dims: []int64{-1, 3}}}
	_, err := ParseInputsFor([]string{"4294967296xf32=0", "2x3xf32=1"}, "rr", want)
	if err == nil || !strings.Contains(err.Error(), "argument 0 has shape 4294967296xf32 but the function takes 4xf32") {
		t.Errorf("got %v", err)
	}
	_, err = ParseInputsFor([]string{"4xf32=1", "&2x4xf32=1"}, "rr", want)
	if err == nil || !strings.Contains(err.Error(), "argument 1 has shape 2x4xf32 but the function takes ?x3xf32") {
		t.Errorf("got %v", err)
	}
	vals, err := ParseInputsFor([]string{"4xf32=1", "7x3xf32=1"}, "rr", want)
	if err != nil || len(vals) != 2 {
		t.Errorf("matching shapes: %v", err)
	}
}
