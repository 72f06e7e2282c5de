package input

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/parser"
)

// TestShardingCallsThatChangeValuesStayErrors checks that only identity
// sharding annotations are dropped: a custom call that changes the shape
// (as @SPMDFullToShardShape does over several devices) or an @Sharding
// whose type differs is an error naming its target.
func TestShardingCallsThatChangeValuesStayErrors(t *testing.T) {
	cases := []struct{ call, want string }{
		{`%0 = stablehlo.custom_call @SPMDFullToShardShape(%arg0) {mhlo.sharding = "{manual}"} : (tensor<4xf32>) -> tensor<2xf32>`,
			`j.mlir:2:3: error: 'stablehlo.custom_call' op calls the custom target "SPMDFullToShardShape"`},
		{`%0 = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = "{replicated}"} : (tensor<4xf32>) -> tensor<2xf32>`,
			`j.mlir:2:3: error: 'stablehlo.custom_call' op calls the custom target "Sharding"`},
	}
	for _, c := range cases {
		src := "func.func public @main(%arg0: tensor<4xf32>) -> tensor<2xf32> {\n  " + c.call + "\n  return %0 : tensor<2xf32>\n}"
		m, err := parser.Parse("j.mlir", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		err = Run(m)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}
