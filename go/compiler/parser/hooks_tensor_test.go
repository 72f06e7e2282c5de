package parser

import (
	"strings"
	"testing"
)

// tensorSig is the signature the tensor cases are parsed in.
const tensorSig = "%t: tensor<8x16xf32>, %d: tensor<?x16xf32>, %i: index, %f: f32"

// TestTensorForms checks the generic form of tensor ops (and linalg.pack /
// unpack) written in custom syntax, as MLIR prints them.
func TestTensorForms(t *testing.T) {
	const dyn = "-9223372036854775808"
	checkForms(t, tensorSig, []struct{ in, want string }{
		{"%0 = tensor.dim %d, %i : tensor<?x16xf32>", `%0 = "tensor.dim"(%arg1, %arg2) : (tensor<?x16xf32>, index) -> index`},
		{"%0 = tensor.dim {x} %d, %i : tensor<?x16xf32>", `%0 = "tensor.dim"(%arg1, %arg2) {x} : (tensor<?x16xf32>, index) -> index`},
		{"%0 = tensor.extract %t[%i, %i] : tensor<8x16xf32>", `%0 = "tensor.extract"(%arg0, %arg2, %arg2) : (tensor<8x16xf32>, index, index) -> f32`},
		{"%0 = tensor.insert %f into %t[%i, %i] : tensor<8x16xf32>",
			`%0 = "tensor.insert"(%arg3, %arg0, %arg2, %arg2) : (f32, tensor<8x16xf32>, index, index) -> tensor<8x16xf32>`},
		{"%0 = tensor.extract_slice %t[%i, 2] [4, %i] [1, 2] : tensor<8x16xf32> to tensor<4x?xf32>",
			`%0 = "tensor.extract_slice"(%arg0, %arg2, %arg2) {operandSegmentSizes = array<i32: 1, 1, 1, 0>, static_offsets = array<i64: ` + dyn + `, 2>, static_sizes = array<i64: 4, ` + dyn + `>, static_strides = array<i64: 1, 2>} : (tensor<8x16xf32>, index, index) -> tensor<4x?xf32>`},
		{"%0 = tensor.insert_slice %d into %t[0, 0] [%i, 16] [1, 1] : tensor<?x16xf32> into tensor<8x16xf32>",
			`%0 = "tensor.insert_slice"(%arg1, %arg0, %arg2) {operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: ` + dyn + `, 16>, static_strides = array<i64: 1, 1>} : (tensor<?x16xf32>, tensor<8x16xf32>, index) -> tensor<8x16xf32>`},
		{"%0 = tensor.pad %d nofold low[%i, 0] high[1, 2] {\n^bb0(%a: index, %b: index):\n  tensor.yield %f : f32\n} : tensor<?x16xf32> to tensor<?x18xf32>",
			`%0 = "tensor.pad"(%arg1, %arg2) ({
^bb1(%arg4: index, %arg5: index):
  "tensor.yield"(%arg3) : (f32) -> ()
}) {nofold, operandSegmentSizes = array<i32: 1, 1, 0>, static_high = array<i64: 1, 2>, static_low = array<i64: ` + dyn + `, 0>} : (tensor<?x16xf32>, index) -> tensor<?x18xf32>`},
		{"%0 = tensor.concat dim(0) %t, %d : (tensor<8x16xf32>, tensor<?x16xf32>) -> tensor<?x16xf32>",
			`%0 = "tensor.concat"(%arg0, %arg1) {dim = 0 : i64} : (tensor<8x16xf32>, tensor<?x16xf32>) -> tensor<?x16xf32>`},
		{"%0 = tensor.expand_shape %d [[0, 1], [2]] output_shape [%i, 2, 16] : tensor<?x16xf32> into tensor<?x2x16xf32>",
			`%0 = "tensor.expand_shape"(%arg1, %arg2) {reassociation = [[0 : i64, 1 : i64], [2 : i64]], static_output_shape = array<i64: ` + dyn + `, 2, 16>} : (tensor<?x16xf32>, index) -> tensor<?x2x16xf32>`},
		{"%0 = tensor.expand_shape %t [[0, 1], [2]] : tensor<8x16xf32> into tensor<2x4x16xf32>",
			`%0 = "tensor.expand_shape"(%arg0) {reassociation = [[0 : i64, 1 : i64], [2 : i64]], static_output_shape = array<i64: 2, 4, 16>} : (tensor<8x16xf32>) -> tensor<2x4x16xf32>`},
		{"%0 = tensor.collapse_shape %t [[0, 1]] : tensor<8x16xf32> into tensor<128xf32>",
			`%0 = "tensor.collapse_shape"(%arg0) {reassociation = [[0 : i64, 1 : i64]]} : (tensor<8x16xf32>) -> tensor<128xf32>`},
		{"%0 = tensor.cast %d : tensor<?x16xf32> to tensor<8x16xf32>", `%0 = "tensor.cast"(%arg1) : (tensor<?x16xf32>) -> tensor<8x16xf32>`},
		{"%0 = tensor.bitcast %t : tensor<8x16xf32> to tensor<8x16xi32>", `%0 = "tensor.bitcast"(%arg0) : (tensor<8x16xf32>) -> tensor<8x16xi32>`},
		{"%0 = tensor.splat %f[%i] : tensor<?x4xf32>", `%0 = "tensor.splat"(%arg3, %arg2) : (f32, index) -> tensor<?x4xf32>`},
		{"%0 = tensor.from_elements %f, %f : tensor<2xf32>", `%0 = "tensor.from_elements"(%arg3, %arg3) : (f32, f32) -> tensor<2xf32>`},
		{"%0 = tensor.rank %t : tensor<8x16xf32>", `%0 = "tensor.rank"(%arg0) : (tensor<8x16xf32>) -> index`},
		{"%0 = tensor.generate %i {\n^bb0(%a: index):\n  tensor.yield %f : f32\n} : tensor<?xf32>",
			`%0 = "tensor.generate"(%arg2) ({
^bb1(%arg4: index):
  "tensor.yield"(%arg3) : (f32) -> ()
}) : (index) -> tensor<?xf32>`},
		{"%s = arith.constant dense<128> : tensor<1xi32>\n  %0 = tensor.reshape %t(%s) : (tensor<8x16xf32>, tensor<1xi32>) -> tensor<128xf32>",
			`%1 = "tensor.reshape"(%arg0, %0) : (tensor<8x16xf32>, tensor<1xi32>) -> tensor<128xf32>`},
		{"%e = tensor.empty(%i) : tensor<16x2x?xf32>\n  %0 = linalg.pack %t padding_value(%f : f32) outer_dims_perm = [1, 0] inner_dims_pos = [0] inner_tiles = [%i] into %e : tensor<8x16xf32> -> tensor<16x2x?xf32>",
			`%1 = "linalg.pack"(%arg0, %0, %arg3, %arg2) {inner_dims_pos = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 1>, outer_dims_perm = array<i64: 1, 0>, static_inner_tiles = array<i64: ` + dyn + `>} : (tensor<8x16xf32>, tensor<16x2x?xf32>, f32, index) -> tensor<16x2x?xf32>`},
		{"%e = tensor.empty() : tensor<2x4x4x4xf32>\n  %0 = linalg.unpack %e inner_dims_pos = [0, 1] inner_tiles = [4, 4] into %t : tensor<2x4x4x4xf32> -> tensor<8x16xf32>",
			`%1 = "linalg.unpack"(%0, %arg0) {inner_dims_pos = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_inner_tiles = array<i64: 4, 4>} : (tensor<2x4x4x4xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>`},
	})
}

// TestTensorErrors checks the diagnostics of malformed tensor syntax.
func TestTensorErrors(t *testing.T) {
	for _, c := range []struct{ in, msg string }{
		{"%0 = tensor.extract_slice %t[0, x] [1, 1] [1, 1] : tensor<8x16xf32> to tensor<1x1xf32>", "2:35: error: expected a number literal, found 'x'"},
		{"%0 = tensor.extract_slice %t[0, 0] [1, 1] [1, 1] : tensor<8x16xf32> into tensor<1x1xf32>", "2:71: error: expected 'to', found 'into'"},
		{"%0 = tensor.expand_shape %t [0, 1] output_shape [128] : tensor<8x16xf32> into tensor<128xf32>",
			"2:31: error: expected a reassociation list like '[[0, 1], [2]]', found '[0 : i64, 1 : i64]'"},
		{"%0 = tensor.expand_shape %d [[0, 1], [2]] : tensor<?x16xf32> into tensor<?x2x16xf32>", "needs 'output_shape [...]' for its dynamic dimensions"},
		{"%0 = tensor.pad %t low[0] hi[1] {\n} : tensor<8x16xf32> to tensor<9x16xf32>", "2:29: error: expected 'high', found 'hi'"},
		{"%0 = tensor.concat dim(x) %t : (tensor<8x16xf32>) -> tensor<8x16xf32>", "2:26: error: expected a number literal, found 'x'"},
		{"%0 = linalg.pack %t inner_dims_pos = [0] inner_tiles = [2] %t : tensor<8x16xf32> -> tensor<4x16x2xf32>", "2:62: error: expected 'into', found '%t'"},
		{"%0 = linalg.unpack %t padding_value(%f : f32) inner_dims_pos = [0] inner_tiles = [2] into %t : tensor<8x16xf32> -> tensor<8x16xf32>",
			"2:25: error: expected 'inner_dims_pos', found 'padding_value'"},
	} {
		src := "func.func @f(" + tensorSig + ") {\n  " + c.in + "\n  return\n}"
		_, err := Parse("t.mlir", []byte(src))
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s:\n got  %v\n want …%s", c.in, err, c.msg)
		}
	}
}
