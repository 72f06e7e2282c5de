package stablehlo_test

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/input"

	"github.com/gree-ml/gree/go/compiler/parser"
)

// TestShardingCallsThatChangeValuesStayErrors checks that only identity
// sharding annotations and one-device collectives are dropped: a custom
// call that changes the shape (as @SPMDFullToShardShape does over several
// devices), an @Sharding whose type differs, or a collective that moves
// data between devices is an error naming the op.
func TestShardingCallsThatChangeValuesStayErrors(t *testing.T) {
	cases := []struct{ call, want string }{
		{`%0 = stablehlo.custom_call @SPMDFullToShardShape(%arg0) {mhlo.sharding = "{manual}"} : (tensor<4xf32>) -> tensor<2xf32>`,
			`j.mlir:2:3: error: 'stablehlo.custom_call' op calls the custom target "SPMDFullToShardShape"`},
		{`%0 = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = "{replicated}"} : (tensor<4xf32>) -> tensor<2xf32>`,
			`j.mlir:2:3: error: 'stablehlo.custom_call' op calls the custom target "Sharding"`},
		{`%0 = "stablehlo.collective_permute"(%arg0) <{source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<4xf32>) -> tensor<2xf32>`,
			`j.mlir:2:3: error: 'stablehlo.collective_permute' op`},
		{`%0 = "stablehlo.all_gather"(%arg0) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<2xf32>`,
			`j.mlir:2:3: error: 'stablehlo.all_gather' op`},
	}
	for _, c := range cases {
		src := "func.func public @main(%arg0: tensor<4xf32>) -> tensor<2xf32> {\n  " + c.call + "\n  return %0 : tensor<2xf32>\n}"
		m, err := parser.Parse("j.mlir", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		err = input.Run(m)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}
