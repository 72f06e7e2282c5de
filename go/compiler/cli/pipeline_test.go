package cli

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestPreprocessingPasses(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		bad  bool
	}{
		{"builtin.module(func.func(iree-linalg-ext-convert-conv2d-to-winograd))", []string{"iree-linalg-ext-convert-conv2d-to-winograd"}, false},
		{"builtin.module(func.func(iree-linalg-ext-convert-conv2d-to-winograd{replace-all-convs=true}), iree-preprocessing-pad-linalg-ops{pad-size=16},cse)",
			[]string{"iree-linalg-ext-convert-conv2d-to-winograd", "iree-preprocessing-pad-linalg-ops", "cse"}, false},
		{"builtin.module(func.func(canonicalize)", nil, true},
		{"builtin.module(x{a=1)", nil, true},
	} {
		got, err := preprocessingPasses(c.in)
		if (err != nil) != c.bad || !slices.Equal(got, c.want) {
			t.Errorf("%q: got %v, %v", c.in, got, err)
		}
	}
}

// TestPreprocessingPipelineFlag: IREE's tuning passes (its winograd
// e2e suite's flag) compile with a note; a pass that would change the
// program (a transform script) is an error naming it.
func TestPreprocessingPipelineFlag(t *testing.T) {
	src := filepath.Join("..", "..", "..", "samples", "simple_mul.mlir")
	out := filepath.Join(t.TempDir(), "m.vmfb")
	code, _, stderr := run("--iree-hal-target-backends=vmvx", "--iree-preprocessing-pass-pipeline=builtin.module(func.func(iree-linalg-ext-convert-conv2d-to-winograd))", src, "-o", out)
	if code != 0 || !strings.Contains(stderr, "note: --iree-preprocessing-pass-pipeline: iree-linalg-ext-convert-conv2d-to-winograd") {
		t.Errorf("winograd pipeline: code %d, %s", code, stderr)
	}
	code, _, stderr = run("--iree-hal-target-backends=vmvx", "--iree-preprocessing-pass-pipeline=builtin.module(iree-preprocessing-transform-interpreter)", src, "-o", out)
	if code != 1 || !strings.Contains(stderr, "gree cannot run pass 'iree-preprocessing-transform-interpreter'") {
		t.Errorf("transform interpreter: code %d, %s", code, stderr)
	}
}
