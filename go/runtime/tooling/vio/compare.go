package vio

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/gree-ml/gree/go/internal/cfmt"
	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/vm"
	"github.com/gree-ml/gree/go/status"
)

// Equality modes of CompareOptions.EqualityMode (--equality_mode).
const (
	EqualityApproximate = "approximate"
	EqualityExact       = "exact"
)

// CompareOptions holds iree-run-module's --expected_output tolerances.
type CompareOptions struct {
	// F16Threshold, BF16Threshold, F32Threshold and F64Threshold are the
	// absolute tolerances of --expected_f16_threshold and friends.
	F16Threshold  float32
	BF16Threshold float32
	F32Threshold  float32
	F64Threshold  float64
	// RTol is --expected_rtol, the tolerance relative to the expected value.
	RTol float64
	// EqualityMode is "approximate" (abs(a-e) <= atol + rtol*abs(e), NaN
	// equal to NaN; other element types compare exactly) or "exact"
	// (bitwise). Empty means approximate.
	EqualityMode string
	// MaxElementCount bounds the elements printed per view in a report.
	MaxElementCount int
	// ResultCConv is the results' calling convention, used to parse
	// primitive expected values; empty derives it from the results.
	ResultCConv string
}

// DefaultCompareOptions returns the flag defaults: thresholds 0.001 (f16),
// 0.01 (bf16), 1e-4 (f32, f64), rtol 1e-5, approximate mode and 1024
// printed elements.
func DefaultCompareOptions() CompareOptions {
	return CompareOptions{
		F16Threshold:    0.001,
		BF16Threshold:   0.01,
		F32Threshold:    0.0001,
		F64Threshold:    0.0001,
		RTol:            1e-5,
		EqualityMode:    EqualityApproximate,
		MaxElementCount: 1024,
	}
}

// CompareExpected checks results against --expected_output specs (the
// --input syntax; "(ignored)" skips a result) and writes the report to
// stdout: "[SUCCESS] all function outputs matched their expected values."
// when all match, otherwise one "[FAILED] …" entry per mismatch, e.g.
// "[FAILED] result[0]: element at index 0 (-2) does not match the expected
// (123); …" followed by both views. ok reports whether all matched; err is
// set only when the specs or options cannot be used.
func CompareExpected(results []vm.Value, specs []string, opts CompareOptions, stdout io.Writer) (ok bool, err error) {
	exact := false
	switch opts.EqualityMode {
	case "", EqualityApproximate:
	case EqualityExact:
		exact = true
	default:
		return false, status.Errorf(status.InvalidArgument,
			"unsupported equality mode '%s'; expected approximate or exact", opts.EqualityMode)
	}
	cconv := opts.ResultCConv
	if cconv == "" {
		cconv = cconvOf(results)
	}
	expected, _, err := parseVariants(specs, cconv, true)
	if err != nil {
		return false, annotate(err, "parsing expected function outputs")
	}
	c := comparer{opts: opts, exact: exact}
	all := true
	if len(expected) != len(results) {
		fmt.Fprintf(&c.report, "[FAILED] expected %d list elements but %d provided\n", len(expected), len(results))
		all = false
	} else {
		for i := range expected {
			if !c.compareVariants(i, expected[i], results[i]) {
				all = false
			}
		}
	}
	if all {
		c.report.WriteString("[SUCCESS] all function outputs matched their expected values.\n")
	}
	if _, err := io.WriteString(stdout, c.report.String()); err != nil {
		return false, status.Errorf(status.DataLoss, "failed to write comparison report: %w", err)
	}
	return all, nil
}

// cconvOf derives a calling convention from values.
func cconvOf(values []vm.Value) string {
	b := make([]byte, len(values))
	for i, v := range values {
		switch v.Kind {
		case vm.KindI32:
			b[i] = CConvI32
		case vm.KindI64:
			b[i] = CConvI64
		case vm.KindF32:
			b[i] = CConvF32
		case vm.KindF64:
			b[i] = CConvF64
		default:
			b[i] = CConvRef
		}
	}
	return string(b)
}

// variantTypeName names a variant's type in mismatch reports.
func variantTypeName(v vm.Value) string {
	if isNull(v) {
		return "empty"
	}
	switch v.Kind {
	case vm.KindI32:
		return "i32"
	case vm.KindI64:
		return "i64"
	case vm.KindF32:
		return "f32"
	case vm.KindF64:
		return "f64"
	}
	return refTypeName(v.Ref)
}

type comparer struct {
	opts   CompareOptions
	exact  bool
	report strings.Builder
}

// compareVariants compares one result (iree_tooling_compare_variants).
func (c *comparer) compareVariants(i int, e, a vm.Value) bool {
	if isNull(e) {
		return true // the (ignored) sentinel
	}
	if !isNull(a) && e.Kind != vm.KindRef && a.Kind != vm.KindRef && e.Kind == a.Kind {
		return c.compareValues(i, e, a)
	}
	if ev, ok := e.Ref.(*hal.BufferView); ok && !isNull(a) {
		if av, ok := a.Ref.(*hal.BufferView); ok {
			return c.compareViews(i, ev, av)
		}
	}
	fmt.Fprintf(&c.report, "[FAILED] result[%d]: variant types mismatch; expected %s but got %s\n",
		i, variantTypeName(e), variantTypeName(a))
	return false
}

// compareValues compares two primitives of the same kind exactly.
func (c *comparer) compareValues(i int, e, a vm.Value) bool {
	name := variantTypeName(e)
	switch e.Kind {
	case vm.KindI32, vm.KindI64:
		if e.I == a.I {
			return true
		}
		fmt.Fprintf(&c.report, "[FAILED] result[%d]: %s values differ\n  expected: %d\n  actual: %d\n",
			i, name, e.I, a.I)
	default:
		if e.F == a.F {
			return true
		}
		fmt.Fprintf(&c.report, "[FAILED] result[%d]: %s values differ\n  expected: %s\n  actual: %s\n",
			i, name, cfmt.G(e.F, true), cfmt.G(a.F, true))
	}
	return false
}

// compareViews compares two buffer views and reports a mismatch with both
// views printed.
func (c *comparer) compareViews(i int, e, a *hal.BufferView) bool {
	msg, ok := c.matchViews(e, a)
	if ok {
		return true
	}
	fmt.Fprintf(&c.report, "[FAILED] result[%d]: %s\n  expected:\n%s\n  actual:\n%s\n", i, msg,
		FormatBufferView(e, c.opts.MaxElementCount), FormatBufferView(a, c.opts.MaxElementCount))
	return false
}

// matchViews is iree_hal_buffer_view_match_equal: metadata first, then the
// first element that differs.
func (c *comparer) matchViews(e, a *hal.BufferView) (string, bool) {
	describe := "; expected that the view is equal to contents of a view of " + FormatShapeAndType(e.Shape, e.Type)
	if !sameShape(e.Shape, a.Shape) || (e.Type != hal.ElementNone && e.Type != a.Type) {
		return "metadata is " + FormatShapeAndType(a.Shape, a.Type) +
			"; expected that the view matches " + FormatShapeAndType(e.Shape, e.Type) + describe, false
	}
	t := a.Type
	size := int64(t.ByteSize())
	ed, ad := paddedData(e), paddedData(a)
	for k := int64(0); k < a.ElementCount(); k++ {
		ee, ae := ed[k*size:(k+1)*size], ad[k*size:(k+1)*size]
		if c.elementsMatch(t, ee, ae) {
			continue
		}
		return fmt.Sprintf("element at index %d (%s) does not match the expected (%s)",
			k, formatElement(ae, t), formatElement(ee, t)) + describe, false
	}
	return "", true
}

// elementsMatch compares one element pair under the equality mode.
func (c *comparer) elementsMatch(t hal.ElementType, e, a []byte) bool {
	if bytes.Equal(e, a) {
		return true
	}
	if c.exact {
		return false
	}
	ev, isFloat := elementFloat(e, t)
	if !isFloat {
		return false
	}
	av, _ := elementFloat(a, t)
	switch {
	case math.IsNaN(ev) || math.IsNaN(av):
		return math.IsNaN(ev) && math.IsNaN(av)
	case ev == av:
		return true
	case math.IsInf(ev, 0) || math.IsInf(av, 0):
		return false
	}
	var atol, diff float64
	switch t {
	case hal.ElementFloat64:
		atol, diff = c.opts.F64Threshold, math.Abs(av-ev)
	default:
		switch t {
		case hal.ElementFloat16:
			atol = float64(c.opts.F16Threshold)
		case hal.ElementBFloat16:
			atol = float64(c.opts.BF16Threshold)
		default:
			atol = float64(c.opts.F32Threshold)
		}
		diff = float64(float32(math.Abs(float64(float32(av) - float32(ev)))))
	}
	return diff <= atol+c.opts.RTol*math.Abs(ev)
}

func sameShape(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// paddedData returns the view's data, zero-extended to its byte length.
func paddedData(bv *hal.BufferView) []byte {
	n := bv.ByteLength()
	data := bv.Bytes()
	if int64(len(data)) >= n {
		return data
	}
	d := make([]byte, n)
	copy(d, data)
	return d
}
