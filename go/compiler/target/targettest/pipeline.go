package targettest

import (
	"testing"

	"github.com/gree-ml/gree/go/compiler/flow"
	"github.com/gree-ml/gree/go/compiler/input"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/parser"
)

// Flow parses src as t.mlir and runs the input and flow pipelines on it,
// failing t (with src for a parse or input error) if any step fails; tests
// of the stages after flow (codegen, the emitters, vm) start from it.
func Flow(t testing.TB, src string) *ir.Module {
	t.Helper()
	m, err := parser.Parse("t.mlir", []byte(src))
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	if err := input.Run(m); err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	if err := flow.Run(m); err != nil {
		t.Fatal(err)
	}
	return m
}
