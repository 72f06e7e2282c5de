package parser

import (
	"strings"
	"testing"
)

// linalgSig is the signature the linalg cases are parsed in: %a..%d are
// tensors, %s an f32, %n an index.
const linalgSig = "%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>, %r: tensor<4xf32>, %s: f32, %n: index, %d: tensor<?x8xf32>"

// TestLinalgForms checks the generic form of linalg ops written in custom
// syntax, as MLIR prints them with --mlir-print-op-generic (properties and
// attributes merged).
func TestLinalgForms(t *testing.T) {
	const mm = `indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]`
	checkForms(t, linalgSig, []struct{ in, want string }{
		{"%0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>",
			`%0 = "linalg.matmul"(%arg0, %arg1, %arg2) {` + mm + `, operandSegmentSizes = array<i32: 2, 1>} : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>`},
		{"%0 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] {cast = #linalg.type_fn<cast_unsigned>} ins(%a, %a : tensor<4x8xf32>, tensor<4x8xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>",
			`%0 = "linalg.matmul"(%arg0, %arg0, %arg2) {cast = #linalg.type_fn<cast_unsigned>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], operandSegmentSizes = array<i32: 2, 1>} : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>`},
		{"%0 = linalg.fill ins(%s : f32) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>",
			`%0 = "linalg.fill"(%arg4, %arg2) {operandSegmentSizes = array<i32: 1, 1>} : (f32, tensor<4x16xf32>) -> tensor<4x16xf32>`},
		{"%0 = linalg.add ins(%a, %a : tensor<4x8xf32>, tensor<4x8xf32>) outs(%a : tensor<4x8xf32>) {tag} -> tensor<4x8xf32>",
			`%0 = "linalg.add"(%arg0, %arg0, %arg0) {operandSegmentSizes = array<i32: 2, 1>, tag} : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>`},
		{"%0 = linalg.exp <{x = 1 : i32}> {y} ins(%a : tensor<4x8xf32>) outs(%a : tensor<4x8xf32>) -> tensor<4x8xf32>",
			`%0 = "linalg.exp"(%arg0, %arg0) {operandSegmentSizes = array<i32: 1, 1>, x = 1 : i32, y} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>`},
		{"linalg.copy ins(%s : f32) outs(%s : f32)", `"linalg.copy"(%arg4, %arg4) {operandSegmentSizes = array<i32: 1, 1>} : (f32, f32) -> ()`},
		{"%0 = linalg.elementwise <exp> ins(%a : tensor<4x8xf32>) outs(%a : tensor<4x8xf32>) -> tensor<4x8xf32>",
			`%0 = "linalg.elementwise"(%arg0, %arg0) {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], kind = #linalg.elementwise_kind<exp>, operandSegmentSizes = array<i32: 1, 1>} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>`},
		{"%0 = linalg.elementwise kind = #linalg.elementwise_kind<add> ins(%r, %r : tensor<4xf32>, tensor<4xf32>) outs(%r : tensor<4xf32>) -> tensor<4xf32>",
			`%0 = "linalg.elementwise"(%arg3, %arg3, %arg3) {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], kind = #linalg.elementwise_kind<add>, operandSegmentSizes = array<i32: 2, 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>`},
		{"%0 = linalg.softmax dimension(1) ins(%a : tensor<4x8xf32>) outs(%a : tensor<4x8xf32>) -> tensor<4x8xf32>",
			`%0 = "linalg.softmax"(%arg0, %arg0) {dimension = 1 : i64} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>`},
		{"%0 = linalg.transpose ins(%b : tensor<8x16xf32>) outs(%b : tensor<8x16xf32>) permutation = [0, 1] {x}",
			`%0 = "linalg.transpose"(%arg1, %arg1) ({
^bb1(%arg7: f32, %arg8: f32):
  "linalg.yield"(%arg7) : (f32) -> ()
}) {permutation = array<i64: 0, 1>, x} : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>`},
		{"%0 = linalg.broadcast ins(%r : tensor<4xf32>) outs(%a : tensor<4x8xf32>) dimensions = [1]",
			`%0 = "linalg.broadcast"(%arg3, %arg0) ({
^bb1(%arg7: f32, %arg8: f32):
  "linalg.yield"(%arg7) : (f32) -> ()
}) {dimensions = array<i64: 1>} : (tensor<4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>`},
		{"%0 = linalg.map { arith.mulf {fastmath = #arith.fastmath<fast>} } ins(%a, %a : tensor<4x8xf32>, tensor<4x8xf32>) outs(%a : tensor<4x8xf32>)",
			`%0 = "linalg.map"(%arg0, %arg0, %arg0) ({
^bb1(%arg7: f32, %arg8: f32, %arg9: f32):
  %1 = "arith.mulf"(%arg7, %arg8) {fastmath = #arith.fastmath<fast>} : (f32, f32) -> f32
  "linalg.yield"(%1) : (f32) -> ()
}) : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>`},
		{"%0 = linalg.reduce { arith.addf } ins(%a : tensor<4x8xf32>) outs(%r : tensor<4xf32>) dimensions = [1]",
			`%0 = "linalg.reduce"(%arg0, %arg3) ({
^bb1(%arg7: f32, %arg8: f32):
  %1 = "arith.addf"(%arg8, %arg7) : (f32, f32) -> f32
  "linalg.yield"(%1) : (f32) -> ()
}) {dimensions = array<i64: 1>} : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4xf32>`},
		{"%0 = linalg.reduce ins(%a : tensor<4x8xf32>) outs(%r : tensor<4xf32>) dimensions = [1] (%in: f32, %init: f32) {\n linalg.yield %in : f32\n }",
			`%0 = "linalg.reduce"(%arg0, %arg3) ({
^bb1(%arg7: f32, %arg8: f32):
  "linalg.yield"(%arg7) : (f32) -> ()
}) {dimensions = array<i64: 1>} : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4xf32>`},
		{"%0:2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>], iterator_types = [\"reduction\"], library_call = \"f\"} ins(%r : tensor<4xf32>) outs(%s, %n : f32, index) attrs = {z} {\n^bb0(%x: f32, %y: f32, %i: index):\n  %j = linalg.index 0 : index\n  linalg.yield %x, %j : f32, index\n} -> (tensor<f32>, tensor<index>)",
			`%0:2 = "linalg.generic"(%arg3, %arg4, %arg5) ({
^bb1(%arg7: f32, %arg8: f32, %arg9: index):
  %1 = "linalg.index"() {dim = 0 : i64} : () -> index
  "linalg.yield"(%arg7, %1) : (f32, index) -> ()
}) {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>], iterator_types = [#linalg.iterator_type<reduction>], library_call = "f", operandSegmentSizes = array<i32: 1, 2>, z} : (tensor<4xf32>, f32, index) -> (tensor<f32>, tensor<index>)`},
	})
}

// TestLinalgErrors checks the diagnostics of malformed linalg syntax.
func TestLinalgErrors(t *testing.T) {
	for _, c := range []struct{ in, msg string }{
		{"%0 = linalg.generic ins(%a : tensor<4x8xf32>) {\n}", "2:23: error: 'linalg.generic' expects its {indexing_maps = [...], iterator_types = [...]} dictionary first"},
		{"%0 = linalg.generic {indexing_maps = []} {\n}", "2:23: error: expected iterator_types array attribute"},
		{`%0 = linalg.generic {indexing_maps = [], iterator_types = ["sideways"]} {` + "\n}", "2:23: error: unexpected iterator_type (sideways)"},
		{"%0 = linalg.matmul indexing_maps = [1] ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>",
			"2:38: error: expected an array of affine maps for 'indexing_maps', found '[1 : i64]'"},
		{"linalg.contract ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>)", "2:3: error: 'linalg.contract' expects 'indexing_maps = [...]'"},
		{"%0 = linalg.fill ins(%s : f32, f32) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>", "2:24: error: 'linalg.fill' has 1 operands but 2 types were given"},
		{"%0 = linalg.transpose ins(%b : tensor<8x16xf32>) outs(%b : tensor<8x16xf32>) perm = [0, 1]", "2:80: error: expected 'permutation', found 'perm'"},
		{"%0 = linalg.map { } ins(%a : tensor<4x8xf32>) outs(%a : tensor<4x8xf32>)", "2:21: error: expected a keyword, found '}'"},
		{"%0 = linalg.elementwise <{x}> ins(%a : tensor<4x8xf32>) outs(%a : tensor<4x8xf32>) -> tensor<4x8xf32>", "error: 'linalg.elementwise' expects its kind"},
		{"%0 = linalg.index x : index", "2:21: error: expected a number literal, found 'x'"},
	} {
		src := "func.func @f(" + linalgSig + ") {\n  " + c.in + "\n  return\n}"
		_, err := Parse("l.mlir", []byte(src))
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s:\n got  %v\n want …%s", c.in, err, c.msg)
		}
	}
}

// TestLinalgNamedOpsRegistered checks that every named op of the list, the
// matmul family and the ops with their own syntax are registered.
func TestLinalgNamedOpsRegistered(t *testing.T) {
	names := append([]string{"generic", "map", "reduce", "transpose", "broadcast", "softmax", "index", "yield",
		"matmul", "batch_matmul", "batch_reduce_matmul", "contract", "elementwise", "pack", "unpack"}, linalgNamedOps...)
	for _, n := range names {
		if _, ok := Default().Lookup("linalg." + n); !ok {
			t.Errorf("linalg.%s is not registered", n)
		}
	}
	if len(linalgNamedOps) < 80 {
		t.Errorf("only %d named ops", len(linalgNamedOps))
	}
}
