package flow

import (
	"os"
	"testing"

	"github.com/gree-ml/gree/go/compiler/input"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
	"github.com/gree-ml/gree/go/compiler/parser"
)

// TestFusionKeepsEveryLoopSized checks, on every testdata program, that no
// generic left by fusion has a loop missing from all of its maps as a
// plain dimension (codegen could not size it), and that the reverse in
// reverse_into_reduction.mlir stays a producer of its own.
func TestFusionKeepsEveryLoopSized(t *testing.T) {
	for _, f := range []string{"testdata/reverse_into_reduction.mlir", "testdata/fusion.mlir", "testdata/matmul_epilogue.mlir"} {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := parser.Parse(f, src)
		if err != nil {
			t.Fatal(err)
		}
		if err := input.Run(m); err != nil {
			t.Fatal(err)
		}
		if err := Run(m); err != nil {
			t.Fatal(err)
		}
		generics := 0
		m.Op.Walk(func(op *ir.Operation) bool {
			if g, ok := linalg.AsGeneric(op); ok {
				generics++
				if !everyLoopSized(g.Maps(), g.NumLoops()) {
					t.Errorf("%s: a fused generic has a loop without a size:\n%s", f, op)
				}
			}
			return true
		})
		if f == "testdata/reverse_into_reduction.mlir" && generics < 3 {
			t.Errorf("%s: the reverse was fused into the reduction (%d generics left)", f, generics)
		}
	}
}
