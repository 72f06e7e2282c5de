package flow

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/input"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
	"github.com/gree-ml/gree/go/compiler/parser"
)

// inPlaceHead is a 16x16 matmul %m; each case appends one element-wise
// generic over it (with %m, %bias, %c, %e and %h in scope).
const inPlaceHead = `func.func @f(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>, %bias: tensor<16xf32>, %c: tensor<16x16xf32>) -> RESULT {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %h = tensor.empty() : tensor<16x16xf16>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %m = linalg.matmul ins(%a, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%f : tensor<16x16xf32>) -> tensor<16x16xf32>
`

// TestEpilogueInPlace checks the predicate that lets a contraction
// accumulate into its epilogue's result: it holds only when the epilogue
// reads the root once at the point it writes, with the same type, and
// never reads its own init.
func TestEpilogueInPlace(t *testing.T) {
	id := `affine_map<(d0, d1) -> (d0, d1)>`
	tr := `affine_map<(d0, d1) -> (d1, d0)>`
	row := `affine_map<(d0, d1) -> (d1)>`
	gen := func(maps []string, ins, insTypes, out, outType, body string) string {
		return `  %r = linalg.generic {indexing_maps = [` + strings.Join(maps, ", ") + `], iterator_types = ["parallel", "parallel"]} ins(` +
			ins + ` : ` + insTypes + `) outs(` + out + ` : ` + outType + `) {
  ` + body + `
  } -> ` + outType + `
  return %r : ` + outType + `
}`
	}
	f32t, f16t := "tensor<16x16xf32>", "tensor<16x16xf16>"
	bias := `^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32`
	for _, c := range []struct {
		name string
		epi  string
		res  string
		want bool
	}{
		{"bias", gen([]string{id, row, id}, "%m, %bias", f32t+", tensor<16xf32>", "%e", f32t, bias), f32t, true},
		{"bias_first_operand_second", gen([]string{row, id, id}, "%bias, %m", "tensor<16xf32>, "+f32t, "%e", f32t, `^bb0(%y: f32, %x: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32`), f32t, true},
		{"transposed_read", gen([]string{tr, row, id}, "%m, %bias", f32t+", tensor<16xf32>", "%e", f32t, bias), f32t, false},
		{"reads_root_twice", gen([]string{id, tr, id}, "%m, %m", f32t+", "+f32t, "%e", f32t, bias), f32t, false},
		{"reads_its_init", gen([]string{id, row, id}, "%m, %bias", f32t+", tensor<16xf32>", "%c", f32t, `^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %o : f32
    linalg.yield %s : f32`), f32t, false},
		{"element_type_changes", gen([]string{id, row, id}, "%m, %bias", f32t+", tensor<16xf32>", "%h", f16t, `^bb0(%x: f32, %y: f32, %o: f16):
    %s = arith.addf %x, %y : f32
    %t = arith.truncf %s : f32 to f16
    linalg.yield %t : f16`), f16t, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := strings.Replace(inPlaceHead, "RESULT", c.res, 1) + c.epi + "\n"
			m, err := parser.Parse(c.name+".mlir", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			if err := input.Run(m); err != nil {
				t.Fatal(err)
			}
			var gens []*ir.Operation
			m.Op.Walk(func(op *ir.Operation) bool {
				if _, ok := linalg.AsGeneric(op); ok {
					gens = append(gens, op)
					return false
				}
				return true
			})
			root, epi := gens[len(gens)-2], gens[len(gens)-1]
			if !isContraction(linalg.Generic{Op: root}) {
				t.Fatalf("the root is not a contraction:\n%s", root)
			}
			if got := EpilogueInPlace(root, epi); got != c.want {
				t.Errorf("EpilogueInPlace = %v, want %v", got, c.want)
			}
		})
	}
}
