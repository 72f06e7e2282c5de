package flow

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/input"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
	"github.com/gree-ml/gree/go/compiler/parser"
)

// tappedConv is a 3×3 convolution of 7 channels over a 9×11 plane as a
// tapped contraction (the ONNX importer's form), its weight in the order
// m, c, i, j (not m, i, j, c).
const tappedConv = `func.func @f(%w: tensor<4x7x3x3xf32>, %x: tensor<7x99xf32>) -> tensor<4x75xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x75xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x75xf32>) -> tensor<4x75xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(m, q, c, i, j) -> (m, c, i, j)>, affine_map<(m, q, c, i, j) -> (c, q + i * 11 + j)>, affine_map<(m, q, c, i, j) -> (m, q)>], iterator_types = ["parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%w, %x : tensor<4x7x3x3xf32>, tensor<7x99xf32>) outs(%f : tensor<4x75xf32>) {
  ^bb0(%a: f32, %y: f32, %acc: f32):
    %m1 = arith.mulf %a, %y : f32
    %s = arith.addf %acc, %m1 : f32
    linalg.yield %s : f32
  } -> tensor<4x75xf32>
  return %p : tensor<4x75xf32>
}`

// With Untap, a tapped contraction becomes windows [3, 3, 7, 75] copied
// from B, A transposed to m, i, j, c, and one product over 63 steps;
// without, it stays for codegen's Contract per tap.
func TestUntapContracts(t *testing.T) {
	for _, untap := range []bool{false, true} {
		m := runTapped(t, tappedConv, untap)
		tapped, products := 0, 0
		m.Op.Walk(func(op *ir.Operation) bool {
			if g, ok := linalg.AsGeneric(op); ok {
				if _, _, ok := linalg.MatchTapped(g); ok {
					tapped++
				}
				if _, ok := linalg.MatchContract(g); ok {
					products++
				}
			}
			return true
		})
		text := m.String()
		if untap {
			if tapped != 0 || products != 1 || !strings.Contains(text, "tensor<3x3x7x75xf32>") ||
				!strings.Contains(text, "tensor<63x75xf32>") || !strings.Contains(text, "tensor<4x3x3x7xf32>") {
				t.Errorf("untapped: %d tapped contractions, %d products, want 0 and 1 over windows [3, 3, 7, 75]:\n%s", tapped, products, text)
			}
		} else if tapped != 1 || products != 0 {
			t.Errorf("kept: %d tapped contractions, %d products, want 1 and 0:\n%s", tapped, products, text)
		}
	}
}

// groupedTappedConv is tappedConv with 2 groups as a leading batch loop
// (the ONNX importer's grouped convolution).
const groupedTappedConv = `func.func @f(%w: tensor<2x4x3x3x7xf32>, %x: tensor<2x7x99xf32>) -> tensor<2x4x75xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x75xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x4x75xf32>) -> tensor<2x4x75xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(g, m, q, c, i, j) -> (g, m, i, j, c)>, affine_map<(g, m, q, c, i, j) -> (g, c, q + i * 11 + j)>, affine_map<(g, m, q, c, i, j) -> (g, m, q)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%w, %x : tensor<2x4x3x3x7xf32>, tensor<2x7x99xf32>) outs(%f : tensor<2x4x75xf32>) {
  ^bb0(%a: f32, %y: f32, %acc: f32):
    %m1 = arith.mulf %a, %y : f32
    %s = arith.addf %acc, %m1 : f32
    linalg.yield %s : f32
  } -> tensor<2x4x75xf32>
  return %p : tensor<2x4x75xf32>
}`

// A batched tapped contraction (its batch loop leading every operand) is
// one too; untapped, its windows [2, 3, 3, 7, 75] become a batched
// product over 63 steps with A already in the order g, m, i, j, c.
func TestUntapBatchedContracts(t *testing.T) {
	for _, untap := range []bool{false, true} {
		m := runTapped(t, groupedTappedConv, untap)
		tapped, batched := 0, 0
		m.Op.Walk(func(op *ir.Operation) bool {
			if g, ok := linalg.AsGeneric(op); ok {
				if sh, _, ok := linalg.MatchTapped(g); ok && sh.Batch >= 0 {
					tapped++
				}
				if sh, ok := linalg.MatchContract(g); ok && sh.Batch >= 0 {
					batched++
				}
			}
			return true
		})
		text := m.String()
		if untap {
			if tapped != 0 || batched != 1 || !strings.Contains(text, "tensor<2x3x3x7x75xf32>") || !strings.Contains(text, "tensor<2x63x75xf32>") || !strings.Contains(text, "tensor<2x4x63xf32>") {
				t.Errorf("untapped: %d tapped contractions, %d batched products, want 0 and 1 over windows [2, 3, 3, 7, 75]:\n%s", tapped, batched, text)
			}
		} else if tapped != 1 || batched != 0 {
			t.Errorf("kept: %d batched tapped contractions, %d batched products, want 1 and 0:\n%s", tapped, batched, text)
		}
	}
}

// runTapped parses src and runs the input conversion and flow on it, with
// or without Untap.
func runTapped(t *testing.T, src string, untap bool) *ir.Module {
	t.Helper()
	m, err := parser.Parse("tapped", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := input.Run(m); err != nil {
		t.Fatal(err)
	}
	if err := RunWith(m, Options{Untap: untap}); err != nil {
		t.Fatal(err)
	}
	return m
}
