package vio

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/runtime/vm"
	"github.com/gree-ml/gree/go/status"
)

const successLine = "[SUCCESS] all function outputs matched their expected values.\n"

// compare runs CompareExpected and returns its verdict and report.
func compare(t *testing.T, results []vm.Value, specs []string, opts CompareOptions) (bool, string) {
	t.Helper()
	var buf bytes.Buffer
	ok, err := CompareExpected(results, specs, opts, &buf)
	if err != nil {
		t.Fatalf("CompareExpected(%q): %v", specs, err)
	}
	return ok, buf.String()
}

// absResults are the results of IREE's iree-run-module-expected.mlir test:
// @abs(-2) returns the input and its absolute value as tensor<f32>.
func absResults(t *testing.T) []vm.Value {
	return []vm.Value{vm.RefValue(mustParse(t, "f32=-2")), vm.RefValue(mustParse(t, "f32=2"))}
}

func TestCompareExpectedIREECases(t *testing.T) {
	def := DefaultCompareOptions()
	loose := def
	loose.F32Threshold = 0.1
	cases := []struct {
		specs []string
		opts  CompareOptions
		ok    bool
		want  string
	}{
		{[]string{"f32=-2", "f32=2.0"}, def, true, successLine},
		{[]string{"f32=-2", "(ignored)"}, def, true, successLine},
		{[]string{"f32=-2", "f32=2.1"}, loose, true, successLine},
		{[]string{"f32=123", "f32=2.0"}, def, false,
			"[FAILED] result[0]: element at index 0 (-2) does not match the expected (123); " +
				"expected that the view is equal to contents of a view of f32\n  expected:\nf32=123\n  actual:\nf32=-2\n"},
		{[]string{"f32=-2", "f32=4.5"}, def, false,
			"[FAILED] result[1]: element at index 0 (2) does not match the expected (4.5); " +
				"expected that the view is equal to contents of a view of f32\n  expected:\nf32=4.5\n  actual:\nf32=2\n"},
		{[]string{"f32=-2", "4xf32=2.0"}, def, false,
			"[FAILED] result[1]: metadata is f32; expected that the view matches 4xf32; " +
				"expected that the view is equal to contents of a view of 4xf32\n  expected:\n4xf32=2 2 2 2\n  actual:\nf32=2\n"},
		{[]string{"f32=-2"}, def, false, "[FAILED] expected 1 list elements but 2 provided\n"},
	}
	for _, c := range cases {
		ok, report := compare(t, absResults(t), c.specs, c.opts)
		if ok != c.ok || report != c.want {
			t.Errorf("specs %q: ok=%v report\n%s\nwant ok=%v\n%s", c.specs, ok, report, c.ok, c.want)
		}
	}
}

func TestCompareExpectedPrimitives(t *testing.T) {
	def := DefaultCompareOptions()
	results := []vm.Value{vm.I32(-2), vm.F32(1.5), vm.I64(7), vm.RefValue(mustParse(t, "2xi32=1 2"))}
	ok, report := compare(t, results, []string{"-2", "1.5", "7", "2xi32=1 2"}, def)
	if !ok || report != successLine {
		t.Errorf("match: %v %q", ok, report)
	}
	ok, report = compare(t, results, []string{"123", "2.5", "(ignored)", "(ignored)"}, def)
	want := "[FAILED] result[0]: i32 values differ\n  expected: 123\n  actual: -2\n" +
		"[FAILED] result[1]: f32 values differ\n  expected: 2.5\n  actual: 1.5\n"
	if ok || report != want {
		t.Errorf("mismatch: %v\n%s\nwant\n%s", ok, report, want)
	}
	// A declared result cconv types the expected primitives.
	opts := def
	opts.ResultCConv = "iFIr"
	ok, report = compare(t, results, []string{"-2", "1.5", "7", "(null)"}, opts)
	want = "[FAILED] result[1]: variant types mismatch; expected f64 but got f32\n"
	if ok || report != want {
		t.Errorf("type mismatch: %v %q", ok, report)
	}
	ok, report = compare(t, []vm.Value{vm.RefValue(nil)}, []string{"2xi32=1 2"}, def)
	if ok || report != "[FAILED] result[0]: variant types mismatch; expected hal.buffer_view but got empty\n" {
		t.Errorf("null actual: %v %q", ok, report)
	}
}

func TestCompareExpectedTolerances(t *testing.T) {
	def := DefaultCompareOptions()
	exact := def
	exact.EqualityMode = EqualityExact
	cases := []struct {
		actual, expected string
		opts             CompareOptions
		ok               bool
	}{
		{"2xf32=1 nan", "2xf32=1.00005 NaN", def, true},
		{"1xf32=1", "1xf32=1.00011", def, false},
		{"1xf32=1000", "1xf32=1000.0095", def, true}, // within atol + rtol*|e|
		{"1xf32=1000", "1xf32=1000.05", def, false},
		{"1xf32=inf", "1xf32=inf", def, true},
		{"1xf32=inf", "1xf32=-inf", def, false},
		{"1xf32=1", "1xf32=1.00001", exact, false},
		{"1xf32=nan", "1xf32=1", def, false},
		{"1xf16=1", "1xf16=1.0009", def, true},
		{"1xf16=1", "1xf16=1.002", def, false},
		{"1xbf16=1", "1xbf16=1.0078125", def, true},
		{"1xbf16=1", "1xbf16=1.03", def, false},
		{"1xf64=1", "1xf64=1.00005", def, true},
		{"1xf64=1", "1xf64=1.0002", def, false},
		{"2xi32=1 2", "2xi32=1 3", def, false},
		{"2xi32=1 2", "2xsi32=1 2", def, false},
		{"2xi1=01 00", "2xi1=01 00", exact, true},
	}
	for _, c := range cases {
		ok, report := compare(t, []vm.Value{vm.RefValue(mustParse(t, c.actual))}, []string{c.expected}, c.opts)
		if ok != c.ok {
			t.Errorf("%s vs expected %s (mode %s): ok=%v\n%s", c.actual, c.expected, c.opts.EqualityMode, ok, report)
		}
	}
}

func TestCompareExpectedErrors(t *testing.T) {
	opts := DefaultCompareOptions()
	var buf bytes.Buffer
	_, err := CompareExpected(absResults(t), []string{"f32=-2", "4xf32=1 2"}, opts, &buf)
	if status.CodeOf(err) != status.OutOfRange ||
		!strings.Contains(err.Error(), "parsing input `4xf32=1 2`; parsing expected function outputs") {
		t.Errorf("parse error: %v", err)
	}
	_, err = CompareExpected(absResults(t), []string{"f32=-2", "f32=2", "f32=3"}, opts, &buf)
	if !strings.Contains(err.Error(), "function expected fewer input values") {
		t.Errorf("too many expected values: %v", err)
	}
	opts.EqualityMode = "fuzzy"
	_, err = CompareExpected(absResults(t), []string{"f32=-2", "f32=2"}, opts, &buf)
	if status.CodeOf(err) != status.InvalidArgument {
		t.Errorf("bad mode: %v", err)
	}
	if buf.Len() != 0 {
		t.Errorf("errors wrote a report: %q", buf.String())
	}
}

func TestCompareExpectedElidesLargeViews(t *testing.T) {
	opts := DefaultCompareOptions()
	opts.MaxElementCount = 2
	ok, report := compare(t, []vm.Value{vm.RefValue(mustParse(t, "4xi32=1 2 3 4"))}, []string{"4xi32=1 2 3 5"}, opts)
	want := "[FAILED] result[0]: element at index 3 (4) does not match the expected (5); " +
		"expected that the view is equal to contents of a view of 4xi32\n  expected:\n4xi32=1 2...\n  actual:\n4xi32=1 2...\n"
	if ok || report != want {
		t.Errorf("got %v\n%s\nwant\n%s", ok, report, want)
	}
}
