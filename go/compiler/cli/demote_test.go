package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/runtime/tooling"
)

// compileAndRun compiles src for vmvx with flags, runs @main on
// local-sync with inputs and returns iree-run-module's exit code and
// output.
func compileAndRun(t *testing.T, src string, flags []string, inputs ...string) (int, string) {
	t.Helper()
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.mlir"), filepath.Join(dir, "m.vmfb")
	if err := os.WriteFile(in, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"--iree-hal-target-backends=vmvx", in, "-o", out}, flags...)
	if code, _, stderr := run(args...); code != 0 {
		t.Fatalf("iree-compile %v: %d: %s", flags, code, stderr)
	}
	var stdout, stderr bytes.Buffer
	code := tooling.RunModule(tooling.RunOptions{Modules: []string{out}, Function: "main", Device: "local-sync", Inputs: inputs, MaxElements: 1024},
		strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String() + stderr.String()
}

const f64Program = `
func.func @main(%a: tensor<3xf64>, %b: tensor<3xf64>) -> tensor<3xf64> {
  %c = arith.constant dense<[0.5, -0.25, 1.0e40]> : tensor<3xf64>
  %0 = arith.mulf %a, %b : tensor<3xf64>
  %1 = arith.addf %0, %c : tensor<3xf64>
  %2 = math.sqrt %1 : tensor<3xf64>
  return %2 : tensor<3xf64>
}`

// TestDemoteF64EndToEnd: a program written in f64 compiled with
// --iree-input-demote-f64-to-f32 takes and returns f32 and computes the
// same numbers (1e40 is beyond f32: the largest finite f32, rounded toward
// zero as IREE does); without the flag it stays f64.
func TestDemoteF64EndToEnd(t *testing.T) {
	flag := []string{"--iree-input-demote-f64-to-f32"}
	code, out := compileAndRun(t, f64Program, flag, "3xf32=2 5 1", "3xf32=2 5 0")
	if code != 0 || !strings.Contains(out, "3xf32=2.12132 4.97494 1.84467E+19") {
		t.Errorf("demoted: %d\n%s", code, out)
	}
	// The signature is f32 now: f64 inputs are refused.
	if code, out := compileAndRun(t, f64Program, flag, "3xf64=2 5 1", "3xf64=2 5 0"); code == 0 || !strings.Contains(out, "expected tensor<3xf32>") {
		t.Errorf("demoted with f64 inputs: %d\n%s", code, out)
	}
	code, out = compileAndRun(t, f64Program, nil, "3xf64=2 5 1", "3xf64=2 5 0")
	if code != 0 || !strings.Contains(out, "3xf64=2.12132 4.97494 1E+20") {
		t.Errorf("without the flag: %d\n%s", code, out)
	}
}

// TestDemoteI64EndToEnd: a StableHLO program on i64 compiled with
// --iree-input-demote-i64-to-i32 runs on i32 (the constant 2^32+3 wraps
// to 3).
func TestDemoteI64EndToEnd(t *testing.T) {
	src := `
func.func @main(%a: tensor<4xi64>, %b: tensor<4xi64>) -> (tensor<4xi64>, tensor<i64>) {
  %c = stablehlo.constant dense<4294967299> : tensor<4xi64>
  %0 = stablehlo.multiply %a, %b : tensor<4xi64>
  %1 = stablehlo.add %0, %c : tensor<4xi64>
  %z = stablehlo.constant dense<0> : tensor<i64>
  %2 = stablehlo.reduce(%1 init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
  return %1, %2 : tensor<4xi64>, tensor<i64>
}`
	code, out := compileAndRun(t, src, []string{"--iree-input-demote-i64-to-i32"}, "4xi32=1 -2 3 100000", "4xi32=4 5 -6 30000")
	// 100000 * 30000 wraps in i32: 3000000000 - 2^32 = -1294967296.
	if code != 0 || !strings.Contains(out, "4xi32=7 -7 -15 -1294967293") || !strings.Contains(out, "i32=-1294967308") {
		t.Errorf("demoted: %d\n%s", code, out)
	}
	code, out = compileAndRun(t, src, nil, "4xi64=1 -2 3 100000", "4xi64=4 5 -6 30000")
	if code != 0 || !strings.Contains(out, "4xi64=4294967303 4294967289 4294967281 7294967299") {
		t.Errorf("without the flag: %d\n%s", code, out)
	}
}

func TestDemoteFlagsListed(t *testing.T) {
	_, out, _ := run("--help")
	for _, f := range []string{"iree-input-demote-f64-to-f32", "iree-input-demote-i64-to-i32", "iree-input-promote-f16-to-f32", "iree-input-promote-bf16-to-f32", "iree-input-demote-f32-to-f16"} {
		if !strings.Contains(out, f) {
			t.Errorf("--help does not list --%s", f)
		}
	}
}
