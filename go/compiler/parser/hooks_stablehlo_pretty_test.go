package parser

import (
	"strings"
	"testing"
)

const hloTestArgs = "%x: tensor<4x6xf32>, %y: tensor<6x3xf32>, %s: tensor<f32>, %i: tensor<i32>, " +
	"%b: tensor<2x4x6xf32>, %img: tensor<1x5x5x2xf32>, %k: tensor<3x3x2x4xf32>, %n: tensor<4xi32>"

// parseHLOBody parses ops inside a function over hloTestArgs and returns
// the generic print of its body.
func parseHLOBody(t *testing.T, ops string) string {
	t.Helper()
	src := "func.func @f(" + hloTestArgs + ") {\n" + ops + "\n  return\n}"
	m, err := Parse("p.mlir", []byte(src))
	if err != nil {
		t.Errorf("%s: %v", ops, err)
		return ""
	}
	var lines []string
	for _, op := range m.Body().Ops[0].Regions[0].Blocks[0].Ops {
		lines = append(lines, strings.TrimSpace(op.String()))
	}
	return strings.Join(lines, "\n")
}

// TestStableHLOPrettyMatchesGeneric checks that each pretty form (as
// StableHLO prints it and JAX emits it) gives the same IR as the generic
// form of the same op.
func TestStableHLOPrettyMatchesGeneric(t *testing.T) {
	cases := []struct{ pretty, generic string }{
		{`%0 = stablehlo.convert %x : (tensor<4x6xf32>) -> tensor<4x6xi32>`,
			`%0 = "stablehlo.convert"(%x) : (tensor<4x6xf32>) -> tensor<4x6xi32>`},
		{`%0 = stablehlo.convert %s : tensor<f32>`, `%0 = "stablehlo.convert"(%s) : (tensor<f32>) -> tensor<f32>`},
		{`%0 = stablehlo.reshape %x : (tensor<4x6xf32>) -> tensor<24xf32>`,
			`%0 = "stablehlo.reshape"(%x) : (tensor<4x6xf32>) -> tensor<24xf32>`},
		{`%0 = stablehlo.bitcast_convert %x : (tensor<4x6xf32>) -> tensor<4x6xi32>`,
			`%0 = "stablehlo.bitcast_convert"(%x) : (tensor<4x6xf32>) -> tensor<4x6xi32>`},
		{`%0 = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<4x6xf32>`,
			`%0 = "stablehlo.broadcast_in_dim"(%s) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4x6xf32>`},
		{`%0 = stablehlo.broadcast_in_dim %x, dims = [0, 2] : (tensor<4x6xf32>) -> tensor<4x3x6xf32>`,
			`%0 = "stablehlo.broadcast_in_dim"(%x) <{broadcast_dimensions = array<i64: 0, 2>}> : (tensor<4x6xf32>) -> tensor<4x3x6xf32>`},
		{`%0 = stablehlo.broadcast %x, sizes = [2] : (tensor<4x6xf32>) -> tensor<2x4x6xf32>`,
			`%0 = "stablehlo.broadcast"(%x) <{broadcast_sizes = array<i64: 2>}> : (tensor<4x6xf32>) -> tensor<2x4x6xf32>`},
		{`%0 = stablehlo.transpose %x, dims = [1, 0] : (tensor<4x6xf32>) -> tensor<6x4xf32>`,
			`%0 = "stablehlo.transpose"(%x) <{permutation = array<i64: 1, 0>}> : (tensor<4x6xf32>) -> tensor<6x4xf32>`},
		{`%0 = stablehlo.reverse %x, dims = [0] : tensor<4x6xf32>`,
			`%0 = "stablehlo.reverse"(%x) <{dimensions = array<i64: 0>}> : (tensor<4x6xf32>) -> tensor<4x6xf32>`},
		{`%0 = stablehlo.iota dim = 1 : tensor<4x6xi32>`,
			`%0 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<4x6xi32>`},
		{`%0 = stablehlo.concatenate %x, %x, dim = 0 : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>`,
			`%0 = "stablehlo.concatenate"(%x, %x) <{dimension = 0 : i64}> : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>`},
		{`%0 = stablehlo.pad %x, %s, low = [1, 0], high = [0, 2], interior = [1, 0] : (tensor<4x6xf32>, tensor<f32>) -> tensor<8x8xf32>`,
			`%0 = "stablehlo.pad"(%x, %s) <{edge_padding_high = array<i64: 0, 2>, edge_padding_low = array<i64: 1, 0>, interior_padding = array<i64: 1, 0>}> : (tensor<4x6xf32>, tensor<f32>) -> tensor<8x8xf32>`},
		{`%0 = stablehlo.slice %x [1:3, 0:6:2] : (tensor<4x6xf32>) -> tensor<2x3xf32>`,
			`%0 = "stablehlo.slice"(%x) <{limit_indices = array<i64: 3, 6>, start_indices = array<i64: 1, 0>, strides = array<i64: 1, 2>}> : (tensor<4x6xf32>) -> tensor<2x3xf32>`},
		{`%0 = stablehlo.dynamic_slice %x, %i, %i, sizes = [1, 6] : (tensor<4x6xf32>, tensor<i32>, tensor<i32>) -> tensor<1x6xf32>`,
			`%0 = "stablehlo.dynamic_slice"(%x, %i, %i) <{slice_sizes = array<i64: 1, 6>}> : (tensor<4x6xf32>, tensor<i32>, tensor<i32>) -> tensor<1x6xf32>`},
		{`%0 = stablehlo.dynamic_update_slice %x, %x, %i, %i : (tensor<4x6xf32>, tensor<4x6xf32>, tensor<i32>, tensor<i32>) -> tensor<4x6xf32>`,
			`%0 = "stablehlo.dynamic_update_slice"(%x, %x, %i, %i) : (tensor<4x6xf32>, tensor<4x6xf32>, tensor<i32>, tensor<i32>) -> tensor<4x6xf32>`},
		{`%0 = stablehlo.get_dimension_size %x, dim = 1 : (tensor<4x6xf32>) -> tensor<i32>`,
			`%0 = "stablehlo.get_dimension_size"(%x) <{dimension = 1 : i64}> : (tensor<4x6xf32>) -> tensor<i32>`},
		{`%0 = stablehlo.reduce_precision %x, format = e5m10 : tensor<4x6xf32>`,
			`%0 = "stablehlo.reduce_precision"(%x) <{exponent_bits = 5 : i32, mantissa_bits = 10 : i32}> : (tensor<4x6xf32>) -> tensor<4x6xf32>`},
		{`%0:2 = stablehlo.optimization_barrier %x, %s : tensor<4x6xf32>, tensor<f32>`,
			`%0:2 = "stablehlo.optimization_barrier"(%x, %s) : (tensor<4x6xf32>, tensor<f32>) -> (tensor<4x6xf32>, tensor<f32>)`},
		{`%0 = stablehlo.dot_general %x, %y, contracting_dims = [1] x [0], precision = [DEFAULT, HIGHEST] : (tensor<4x6xf32>, tensor<6x3xf32>) -> tensor<4x3xf32>`,
			`%0 = "stablehlo.dot_general"(%x, %y) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision HIGHEST>]}> : (tensor<4x6xf32>, tensor<6x3xf32>) -> tensor<4x3xf32>`},
		{`%0 = stablehlo.dot_general %b, %b, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<2x4x6xf32>, tensor<2x4x6xf32>) -> tensor<2x4x4xf32>`,
			`%0 = "stablehlo.dot_general"(%b, %b) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2]>}> : (tensor<2x4x6xf32>, tensor<2x4x6xf32>) -> tensor<2x4x4xf32>`},
		{`%0 = stablehlo.dot %x, %y, precision = [DEFAULT, DEFAULT] : (tensor<4x6xf32>, tensor<6x3xf32>) -> tensor<4x3xf32>`,
			`%0 = "stablehlo.dot"(%x, %y) <{precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x6xf32>, tensor<6x3xf32>) -> tensor<4x3xf32>`},
		{`%0 = stablehlo.convolution(%img, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 1], pad = [[1, 1], [0, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 2], reverse = [false, true]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x3x2x4xf32>`,
			`%0 = "stablehlo.convolution"(%img, %k) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, lhs_dilation = array<i64: 1, 1>, padding = dense<[[1, 1], [0, 1]]> : tensor<2x2xi64>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], rhs_dilation = array<i64: 1, 2>, window_reversal = array<i1: false, true>, window_strides = array<i64: 2, 1>}> : (tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x3x2x4xf32>`},
		{`%0 = stablehlo.reduce(%x init: %s) applies stablehlo.add across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>`,
			`%0 = "stablehlo.reduce"(%x, %s) <{dimensions = array<i64: 1>}> ({
  ^bb0(%a: tensor<f32>, %c: tensor<f32>):
    %r = "stablehlo.add"(%a, %c) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%r) : (tensor<f32>) -> ()
  }) : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>`},
		{`%0:2 = stablehlo.reduce(%x init: %s), (%x init: %s) across dimensions = [0, 1] : (tensor<4x6xf32>, tensor<4x6xf32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
     reducer(%a1: tensor<f32> loc("r"), %a3: tensor<f32>) (%a2: tensor<f32>, %a4: tensor<f32>)  {
      %1 = stablehlo.maximum %a1, %a3 : tensor<f32>
      %2 = stablehlo.minimum %a2, %a4 : tensor<f32>
      stablehlo.return %1, %2 : tensor<f32>, tensor<f32>
    }`,
			`%0:2 = "stablehlo.reduce"(%x, %x, %s, %s) <{dimensions = array<i64: 0, 1>}> ({
  ^bb0(%a1: tensor<f32>, %a2: tensor<f32>, %a3: tensor<f32>, %a4: tensor<f32>):
    %1 = "stablehlo.maximum"(%a1, %a3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %2 = "stablehlo.minimum"(%a2, %a4) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%1, %2) : (tensor<f32>, tensor<f32>) -> ()
  }) : (tensor<4x6xf32>, tensor<4x6xf32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)`},
		{`%0 = chlo.erf %x : tensor<4x6xf32> -> tensor<4x6xf32>`, `%0 = "chlo.erf"(%x) : (tensor<4x6xf32>) -> tensor<4x6xf32>`},
		{`%0 = chlo.is_inf %x : tensor<4x6xf32> -> tensor<4x6xi1>`, `%0 = "chlo.is_inf"(%x) : (tensor<4x6xf32>) -> tensor<4x6xi1>`},
		{`%0 = chlo.broadcast_add %x, %s {broadcast_dimensions = array<i64>} : (tensor<4x6xf32>, tensor<f32>) -> tensor<4x6xf32>`,
			`%0 = "chlo.broadcast_add"(%x, %s) {broadcast_dimensions = array<i64>} : (tensor<4x6xf32>, tensor<f32>) -> tensor<4x6xf32>`},
		{`%0:2 = chlo.top_k(%x, k = 3) : tensor<4x6xf32> -> (tensor<4x3xf32>, tensor<4x3xi32>)`,
			`%0:2 = "chlo.top_k"(%x) {k = 3 : i64} : (tensor<4x6xf32>) -> (tensor<4x3xf32>, tensor<4x3xi32>)`},
		{`%0 = sdy.sharding_constraint %x <@mesh, [{"a"}, {}]> : tensor<4x6xf32>`,
			`%0 = "sdy.sharding_constraint"(%x) {sharding = #sdy.sharding<@mesh, [{"a"}, {}]>} : (tensor<4x6xf32>) -> tensor<4x6xf32>`},
		{`%0 = sdy.reshard %x <@mesh, [{}, {}]> : tensor<4x6xf32>`,
			`%0 = "sdy.reshard"(%x) {sharding = #sdy.sharding<@mesh, [{}, {}]>} : (tensor<4x6xf32>) -> tensor<4x6xf32>`},
	}
	for _, c := range cases {
		got, want := parseHLOBody(t, c.pretty), parseHLOBody(t, c.generic)
		if got != want || got == "" {
			t.Errorf("%s\n got  %s\n want %s", c.pretty, got, want)
		}
	}
}

// TestStableHLOPrettyErrors checks that malformed pretty forms give a
// diagnostic at the right place naming the op.
func TestStableHLOPrettyErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{`%0 = stablehlo.broadcast_in_dim %s, sizes = [] : (tensor<f32>) -> tensor<4xf32>`, "p.mlir:2:39: error: expected 'dims', found 'sizes'"},
		{`%0 = stablehlo.dot_general %x, %y, contracting = [1] x [0] : (tensor<4x6xf32>, tensor<6x3xf32>) -> tensor<4x3xf32>`,
			"p.mlir:2:38: error: 'stablehlo.dot_general' has an unknown clause 'contracting'"},
		{`%0 = stablehlo.dot_general %x, %y, contracting_dims = [1] x [0], precision = [FAST, DEFAULT] : (tensor<4x6xf32>, tensor<6x3xf32>) -> tensor<4x3xf32>`,
			"unknown precision 'FAST'"},
		{`%0 = stablehlo.convolution(%img, %k) dim_numbers = [b, 0, 1, q]x[0, 1, i, o]->[b, 0, 1, f], window = {} : (tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x3x3x4xf32>`,
			"unknown dimension 'q' in dim_numbers"},
		{`%0 = stablehlo.convolution(%img, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {strides = [1, 1]} : (tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x3x3x4xf32>`,
			"unknown window entry 'strides'"},
		{`%0 = stablehlo.reduce_precision %x, format = f5m10 : tensor<4x6xf32>`, "expects a format like e5m10, found 'f5m10'"},
		{`%0:2 = stablehlo.reduce(%x init: %s), (%x init: %s) applies stablehlo.add across dimensions = [1] : (tensor<4x6xf32>, tensor<4x6xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)`,
			"'stablehlo.reduce' with 'applies' takes one input, found 2"},
		{`%0 = stablehlo.reduce(%x init: %s) applies stablehlo.add across dimensions = [1] : (tensor<4x6xf32>) -> tensor<4xf32>`,
			"'stablehlo.reduce' with 1 inputs expects a type (2 types) -> 1 types"},
		{`%0 = stablehlo.slice %x [1:3, 0] : (tensor<4x6xf32>) -> tensor<2x6xf32>`, "expected ':'"},
		{`%0:2 = chlo.top_k(%x, k = 3) : tensor<4x6xf32> -> tensor<4x3xf32>`, "'chlo.top_k' expects two result types (values, indices), found 1"},
		{`%0 = chlo.erf %x : tensor<4x6xf32>`, "expected '->'"},
	}
	for _, c := range cases {
		src := "func.func @f(" + hloTestArgs + ") {\n  " + c.in + "\n  return\n}"
		_, err := Parse("p.mlir", []byte(src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got  %v\n want %q", c.in, err, c.want)
		}
	}
}

// TestSdyMesh parses a module-level Shardy mesh as JAX emits it.
func TestSdyMesh(t *testing.T) {
	src := `module @jit_f attributes {mhlo.num_partitions = 1 : i32} {
  sdy.mesh @mesh = <["a"=2, "b"=1]> {stablehlo.mesh = {axes = [{name = "a", size = 2 : i64}]}}
}`
	m, err := Parse("m.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.TrimSpace(m.Body().Ops[0].String())
	want := `"sdy.mesh"() {mesh = #sdy.mesh<["a"=2, "b"=1]>, stablehlo.mesh = {axes = [{name = "a", size = 2 : i64}]}, sym_name = "mesh"} : () -> ()`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
