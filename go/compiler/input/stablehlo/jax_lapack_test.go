package stablehlo_test

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/input"

	"github.com/gree-ml/gree/go/compiler/parser"
)

// TestLAPACKCallsBecomeLoops checks that JAX's unbatched real LAPACK calls
// (Cholesky, triangular solve, LU) turn into host loops of converted ops,
// batched ones too, and that another LAPACK routine stays an error naming
// its target. Their numerics
// are checked against JAX in tests/python/test_jax.py.
func TestLAPACKCallsBecomeLoops(t *testing.T) {
	src := `func.func public @main(%a: tensor<4x4xf32>, %b: tensor<4x2xf32>) -> (tensor<4x4xf32>, tensor<i32>, tensor<4x2xf32>, tensor<4x4xf32>, tensor<4xi32>, tensor<i32>) {
  %0:2 = stablehlo.custom_call @lapack_spotrf_ffi(%a) {mhlo.backend_config = {uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<i32>)
  %1 = stablehlo.custom_call @lapack_strsm_ffi(%a, %b) {mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 84 : ui8, uplo = 85 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}} : (tensor<4x4xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %2:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%a) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xi32>, tensor<i32>)
  return %0#0, %0#1, %1, %2#0, %2#1, %2#2 : tensor<4x4xf32>, tensor<i32>, tensor<4x2xf32>, tensor<4x4xf32>, tensor<4xi32>, tensor<i32>
}`
	m, err := parser.Parse("l.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := input.Run(m); err != nil {
		t.Fatal(err)
	}
	out := m.String()
	if strings.Contains(out, "custom_call") || strings.Contains(out, "stablehlo.") {
		t.Errorf("LAPACK calls or StableHLO ops remain:\n%s", out)
	}
	if n := strings.Count(out, `"scf.for"`); n != 3 {
		t.Errorf("%d loops, want 3 (one per call)", n)
	}

	// vmap: a batched call loops over its matrices (the error comes from
	// the next line); other LAPACK routines stay errors naming their target.
	batched := `func.func public @main(%a: tensor<2x3x4x4xf32>, %c: tensor<4x4xf32>) -> (tensor<2x3x4x4xf32>, tensor<4x4xf32>) {
  %0:2 = stablehlo.custom_call @lapack_spotrf_ffi(%a) {mhlo.backend_config = {uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "2"}} : (tensor<2x3x4x4xf32>) -> (tensor<2x3x4x4xf32>, tensor<2x3xi32>)
  %1:3 = stablehlo.custom_call @lapack_ssyevd_ffi(%c) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>, tensor<i32>)
  return %0#0, %1#0 : tensor<2x3x4x4xf32>, tensor<4x4xf32>
}`
	m, err = parser.Parse("l.mlir", []byte(batched))
	if err != nil {
		t.Fatal(err)
	}
	err = input.Run(m)
	if err == nil || !strings.Contains(err.Error(), `l.mlir:3:3: error: 'stablehlo.custom_call' op calls the custom target "lapack_ssyevd_ffi"`) {
		t.Errorf("eigensolver call: got %v", err)
	}
}
