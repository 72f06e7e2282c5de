package llvmcpu_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gree-ml/gree/go/compiler"
)

// hugeMatmul is a matmul of M×4 by 4×4 (M static).
const hugeMatmul = `func.func @mm(%%a: tensor<%[1]dx4xf32>, %%b: tensor<4x4xf32>) -> tensor<%[1]dx4xf32> {
  %%z = arith.constant 0.0 : f32
  %%e = tensor.empty() : tensor<%[1]dx4xf32>
  %%f = linalg.fill ins(%%z : f32) outs(%%e : tensor<%[1]dx4xf32>) -> tensor<%[1]dx4xf32>
  %%r = linalg.matmul ins(%%a, %%b : tensor<%[1]dx4xf32>, tensor<4x4xf32>) outs(%%f : tensor<%[1]dx4xf32>) -> tensor<%[1]dx4xf32>
  return %%r : tensor<%[1]dx4xf32>
}
`

// TestHugeMatmulCompilesInBoundedTime compiles matmuls of 2^40 and more
// rows: the compiler's work must not grow with the problem (the row-tile
// choice simulated every workgroup of 2^40 rows, hours of work), so each
// compile finishes in seconds, or fails with an error, never hangs.
func TestHugeMatmulCompilesInBoundedTime(t *testing.T) {
	needLLVM(t)
	for _, m := range []int64{1 << 40, 1 << 62, 1<<63 - 1} {
		for _, backend := range []string{"llvm-cpu", "vmvx"} {
			src := fmt.Sprintf(hugeMatmul, m)
			done := make(chan error, 1)
			start := time.Now()
			go func() {
				_, err := compiler.Compile([]byte(src), compiler.Options{Filename: "huge.mlir", Backends: []string{backend}})
				done <- err
			}()
			select {
			case err := <-done:
				// An error is allowed (a size past int64's byte count);
				// it must be an error, not a hang or a panic.
				if err != nil {
					t.Logf("M=%d %s: %v", m, backend, err)
				}
				if d := time.Since(start); d > 10*time.Second {
					t.Errorf("M=%d %s: compile took %v", m, backend, d)
				}
			case <-time.After(60 * time.Second):
				t.Fatalf("M=%d %s: compile still running after 60s (work proportional to M?)", m, backend)
			}
		}
	}
}

// TestHugeSplatAttributeIsAnError compiles a convolution whose dilations
// are a splat of 2^40 integers (a mutation the reliability suite made):
// the compiler expanded it and ran out of memory; it is now an error
// naming the attribute.
func TestHugeSplatAttributeIsAnError(t *testing.T) {
	src := `func.func @conv(%in: tensor<1x3x3x2xf32>, %w: tensor<2x2x2x3xf32>) -> tensor<1x2x2x3xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x2x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x2x2x3xf32>) -> tensor<1x2x2x3xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<1099511627776xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : tensor<1x3x3x2xf32>, tensor<2x2x2x3xf32>) outs(%f : tensor<1x2x2x3xf32>) -> tensor<1x2x2x3xf32>
  return %c : tensor<1x2x2x3xf32>
}
`
	start := time.Now()
	_, err := compiler.Compile([]byte(src), compiler.Options{Filename: "conv.mlir", Backends: []string{"vmvx"}})
	if err == nil || !strings.Contains(err.Error(), "strides and dilations must be lists of integers") {
		t.Fatalf("got %v, want an error about the dilations", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
}

// TestHugeSplatConstantsCompileOrFail compiles programs with splat
// constants of 2^32 elements (mutations the reliability suite made): a
// TOSA rescale shift read as a list and a check op's expected value were
// expanded in full (the compiler ran out of memory); each now compiles or
// fails with an error, in bounded time and memory.
func TestHugeSplatConstantsCompileOrFail(t *testing.T) {
	for name, src := range map[string]string{
		"tosa rescale shift": `func.func @f() {
  %x = util.unfoldable_constant dense<[3, 4, -5]> : tensor<3xi32>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<33> : tensor<4294967296xi8>}> : () -> tensor<1xi8>
  %iz = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %oz = "tosa.const"() <{values = dense<5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %d = tosa.rescale %x, %m, %s, %iz, %oz {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<3xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<3xi8>
  check.expect_eq_const(%d, dense<[6, 6, 4]> : tensor<3xi8>) : tensor<3xi8>
  return
}
`,
		"check constant": `func.func @f() {
  %x = util.unfoldable_constant dense<10.0> : tensor<1x1x1x1xf32>
  check.expect_almost_eq_const(%x, dense<10.0> : tensor<4294967296x1x1x1xf32>) : tensor<1x1x1x1xf32>
  return
}
`,
	} {
		start := time.Now()
		_, err := compiler.Compile([]byte(src), compiler.Options{Filename: "splat.mlir", Backends: []string{"vmvx"}})
		t.Logf("%s: %v", name, err)
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: took %v", name, d)
		}
	}
}
