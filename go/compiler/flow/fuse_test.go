package flow

import (
	"encoding/binary"
	"fmt"
	"math"
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
		m := runFlow(t, f)
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

// TestNoFusionIntoRereadingReduction checks that an element-wise producer
// is not fused into a matmul that reads each of its elements once per row:
// the matmul's body stays a multiply and an add.
func TestNoFusionIntoRereadingReduction(t *testing.T) {
	m := runFlow(t, "testdata/matmul_after_elementwise.mlir")
	found := false
	m.Op.Walk(func(op *ir.Operation) bool {
		g, ok := linalg.AsGeneric(op)
		if !ok || g.IsElementwise() {
			return true
		}
		found = true
		var names []string
		for _, o := range g.Body().Ops {
			names = append(names, o.Name)
		}
		if len(names) != 3 {
			t.Errorf("the matmul's body is %v; want arith.mulf, arith.addf, linalg.yield (the producer was fused)", names)
		}
		return true
	})
	if !found {
		t.Fatalf("no matmul generic left:\n%s", m.Op)
	}
}

// TestConstantReshapesFold checks that reshapes of constants are folded
// into constants of the new shape holding the same elements.
func TestConstantReshapesFold(t *testing.T) {
	m := runFlow(t, "testdata/constant_reshape.mlir")
	want := map[string]string{"tensor<4xf32>": "[1 2 3 4]", "tensor<2x3xf32>": "[1 2 3 4 5 6]"}
	m.Op.Walk(func(op *ir.Operation) bool {
		switch op.Name {
		case "tensor.reshape", "tensor.collapse_shape", "tensor.expand_shape":
			if c := op.Operands[0].Owner(); c != nil && c.Name == "arith.constant" {
				t.Errorf("a reshape of a constant is left: %s", op)
			}
		case "arith.constant":
			a, ok := op.Attr("value").(*ir.DenseElementsAttr)
			if !ok {
				return true
			}
			if w, ok := want[a.Type.String()]; ok {
				if got := fmt.Sprint(a.Floats); got != w {
					t.Errorf("constant %s holds %s, want %s", a.Type, got, w)
				}
				delete(want, a.Type.String())
			}
		}
		return true
	})
	for typ := range want {
		t.Errorf("no constant of type %s", typ)
	}
}

// runFlow parses file, converts its input dialects and runs flow on it.
func runFlow(t *testing.T, file string) *ir.Module {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m, err := parser.Parse(file, src)
	if err != nil {
		t.Fatal(err)
	}
	if err := input.Run(m); err != nil {
		t.Fatal(err)
	}
	if err := Run(m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestConstantCopiesFold checks that a transpose and a constant-index
// slice of constants become constants holding the moved elements, and
// that a broadcast of a constant (which would grow the module) stays a
// kernel.
func TestConstantCopiesFold(t *testing.T) {
	m := runFlow(t, "testdata/constant_copy.mlir")
	want := map[string][]float32{"tensor<3x2xf32>": {1, 4, 2, 5, 3, 6}, "tensor<2x3xf32>": {7, 8, 9, 10, 11, 12}}
	m.Op.Walk(func(op *ir.Operation) bool {
		if g, ok := linalg.AsGeneric(op); ok && len(g.Body().Ops) == 1 && g.NumInputs() == 1 {
			if c := g.Inputs()[0].Owner(); c != nil && c.Name == "arith.constant" {
				t.Errorf("a copy of a constant is left:\n%s", op)
			}
		}
		if op.Name == "arith.constant" && op.Results[0].Type.String() == "tensor<4x3xf32>" {
			t.Errorf("the broadcast of a constant was folded: %s", op)
		}
		if op.Name != "arith.constant" {
			return true
		}
		a, ok := op.Attr("value").(*ir.DenseResourceAttr)
		if !ok {
			return true
		}
		w, ok := want[a.Type.String()]
		if !ok {
			return true
		}
		var got []float32
		for i := 0; i+4 <= len(a.Resource.Blob); i += 4 {
			got = append(got, math.Float32frombits(binary.LittleEndian.Uint32(a.Resource.Blob[i:])))
		}
		if fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("constant %s holds %v, want %v", a.Type, got, w)
		}
		delete(want, a.Type.String())
		return true
	})
	for typ := range want {
		t.Errorf("no folded constant of type %s", typ)
	}
}
