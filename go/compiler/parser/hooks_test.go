package parser

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/ir"
)

// TestCustomForms parses one custom-form op inside a function whose
// arguments are %f (f32), %t (tensor<4xf32>), %i (i32), %n (index) and
// checks its generic print.
func TestCustomForms(t *testing.T) {
	cases := []struct{ in, want string }{
		{"%0 = arith.constant 1.0 : f32", `%0 = "arith.constant"() {value = 1.000000e+00 : f32} : () -> f32`},
		{"%0 = arith.constant true", `%0 = "arith.constant"() {value = true} : () -> i1`},
		{"%0 = arith.constant {tag} 7 : index", `%0 = "arith.constant"() {tag, value = 7 : index} : () -> index`},
		{"%0 = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>",
			`%0 = "arith.constant"() {value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>} : () -> tensor<4xf32>`},
		{"%0 = arith.addf %f, %f : f32", `%0 = "arith.addf"(%arg0, %arg0) : (f32, f32) -> f32`},
		{"%0 = arith.subf %t, %t fastmath<nnan,ninf> : tensor<4xf32>",
			`%0 = "arith.subf"(%arg1, %arg1) {fastmath = #arith.fastmath<nnan,ninf>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>`},
		{"%0 = arith.muli %i, %i overflow<nsw, nuw> {x = 1} : i32",
			`%0 = "arith.muli"(%arg2, %arg2) {overflowFlags = #arith.overflow<nsw, nuw>, x = 1 : i64} : (i32, i32) -> i32`},
		{"%0 = arith.divsi %i, %i : i32", `%0 = "arith.divsi"(%arg2, %arg2) : (i32, i32) -> i32`},
		{"%0 = arith.maximumf %f, %f : f32", `%0 = "arith.maximumf"(%arg0, %arg0) : (f32, f32) -> f32`},
		{"%0 = arith.cmpf ult, %t, %t : tensor<4xf32>",
			`%0 = "arith.cmpf"(%arg1, %arg1) {predicate = 11 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>`},
		{"%0 = arith.cmpi uge, %n, %n : index", `%0 = "arith.cmpi"(%arg3, %arg3) {predicate = 9 : i64} : (index, index) -> i1`},
		{"%0 = math.absf %t : tensor<4xf32>", `%0 = "math.absf"(%arg1) : (tensor<4xf32>) -> tensor<4xf32>`},
		{"%0 = math.tanh %f fastmath<fast> : f32", `%0 = "math.tanh"(%arg0) {fastmath = #arith.fastmath<fast>} : (f32) -> f32`},
		{"%0 = math.powf %f, %f : f32", `%0 = "math.powf"(%arg0, %arg0) : (f32, f32) -> f32`},
		{"%0 = math.fma %f, %f, %f : f32", `%0 = "math.fma"(%arg0, %arg0, %arg0) : (f32, f32, f32) -> f32`},
		{"%0 = arith.negf %f : f32", `%0 = "arith.negf"(%arg0) : (f32) -> f32`},
		{"%0 = arith.index_cast %n : index to i32", `%0 = "arith.index_cast"(%arg3) : (index) -> i32`},
		{"%0 = arith.sitofp %i : i32 to f32", `%0 = "arith.sitofp"(%arg2) : (i32) -> f32`},
		{"%c = arith.constant true\n  %0 = arith.select %c, %f, %f : f32", `%1 = "arith.select"(%0, %arg0, %arg0) : (i1, f32, f32) -> f32`},
		{"%0 = tensor.empty() : tensor<2x3xf32>", `%0 = "tensor.empty"() : () -> tensor<2x3xf32>`},
		{"%0 = tensor.empty(%n, %n) : tensor<?x4x?xi8>", `%0 = "tensor.empty"(%arg3, %arg3) : (index, index) -> tensor<?x4x?xi8>`},
		{"%0 = util.unfoldable_constant dense<2> : tensor<4xi32>",
			`%0 = "util.unfoldable_constant"() {value = dense<2> : tensor<4xi32>} : () -> tensor<4xi32>`},
		{"%0 = util.unfoldable_constant 5 : i32", `%0 = "util.unfoldable_constant"() {value = 5 : i32} : () -> i32`},
		{"%0 = util.optimization_barrier %t : tensor<4xf32>", `%0 = "util.optimization_barrier"(%arg1) : (tensor<4xf32>) -> tensor<4xf32>`},
		{"%0:2 = util.optimization_barrier %f, %i : f32, i32", `%0:2 = "util.optimization_barrier"(%arg0, %arg2) : (f32, i32) -> (f32, i32)`},
		{"check.expect_true(%i) : i32", `"check.expect_true"(%arg2) : (i32) -> ()`},
		{"check.expect_false(%i) : i32", `"check.expect_false"(%arg2) : (i32) -> ()`},
		{"check.expect_all_true(%i) : i32", `"check.expect_all_true"(%arg2) : (i32) -> ()`},
		{"check.expect_eq(%t, %t) : tensor<4xf32>", `"check.expect_eq"(%arg1, %arg1) : (tensor<4xf32>, tensor<4xf32>) -> ()`},
		{"check.expect_eq<%d>(%t, %t) : tensor<4xf32>",
			`"check.expect_eq"(%arg4, %arg1, %arg1) : (!hal.device, tensor<4xf32>, tensor<4xf32>) -> ()`},
		{"check.expect_eq_const(%i, 3 : i32) : i32", `"check.expect_eq_const"(%arg2) {value = 3 : i32} : (i32) -> ()`},
		{"check.expect_almost_eq(%t, %t, rtol 1.0e-3) : tensor<4xf32>",
			`"check.expect_almost_eq"(%arg1, %arg1) {rtol = 1.000000e-03 : f32} : (tensor<4xf32>, tensor<4xf32>) -> ()`},
		{"check.expect_almost_eq_const(%t, dense<1.0> : tensor<4xf32>, atol 1.0e-2, rtol 0.0) : tensor<4xf32>",
			`"check.expect_almost_eq_const"(%arg1) {atol = 1.000000e-02 : f32, rtol = 0.000000e+00 : f32, value = dense<1.000000e+00> : tensor<4xf32>} : (tensor<4xf32>) -> ()`},
		{"%0 = func.call @g(%f) : (f32) -> f32", `%0 = "func.call"(%arg0) {callee = @g} : (f32) -> f32`},
		{"call @h() : () -> ()", `"func.call"() {callee = @h} : () -> ()`},
	}
	for _, c := range cases {
		src := "func.func @f(%f: f32, %t: tensor<4xf32>, %i: i32, %n: index, %d: !hal.device) {\n  " + c.in + "\n  return\n}"
		m, err := Parse("c.mlir", []byte(src))
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		body := m.Body().Ops[0].Regions[0].Blocks[0].Ops
		got := strings.TrimSpace(body[len(body)-2].String())
		if got != c.want {
			t.Errorf("%s:\n got  %s\n want %s", c.in, got, c.want)
		}
	}
}

// TestRegisterHook extends a copy of the default registry with a custom
// syntax using most of the OpParser API, as a dialect package would.
func TestRegisterHook(t *testing.T) {
	reg := Default().Clone()
	reg.Register("test.loop", func(p *OpParser, st *ir.OperationState) error {
		// test.loop "label" %lb to %ub step 2 [^bb] mode<fast> (iter %acc : f32) -> f32 { region }
		label, err := p.ParseString()
		if err != nil {
			return err
		}
		st.AddAttr("label", ir.Str(label))
		lb, err := p.ParseOperand()
		if err != nil {
			return err
		}
		if err := p.ExpectKeyword("to"); err != nil {
			return err
		}
		ub, err := p.ParseOperand()
		if err != nil {
			return err
		}
		if p.OptionalKeyword("step") {
			step, err := p.ParseInteger()
			if err != nil {
				return err
			}
			st.AddAttr("step", ir.IntAttr(step, ir.Index))
		}
		if p.OptionalKeyword("mode") {
			body, err := p.ParseAngleBody()
			if err != nil {
				return err
			}
			st.AddAttr("mode", &ir.OpaqueAttr{Text: "#test.mode" + body})
		}
		if err := p.Expect("("); err != nil {
			return err
		}
		if err := p.ExpectKeyword("iter"); err != nil {
			return err
		}
		acc, err := p.ParseArgument(true, false)
		if err != nil {
			return err
		}
		if err := p.Expect(")"); err != nil {
			return err
		}
		results, err := p.ParseOptionalArrowTypeList()
		if err != nil {
			return err
		}
		if len(results) != p.NumResults() {
			return p.Errorf("'%s' binds %d results but declares %d", p.Name(), p.NumResults(), len(results))
		}
		st.ResultTypes = results
		if err := p.ResolveOperands(st, []Operand{lb, ub}, []ir.Type{ir.Index, ir.Index}); err != nil {
			return err
		}
		r, ok, err := p.ParseOptionalRegion([]Argument{acc})
		if err != nil || !ok {
			return err
		}
		st.Regions = append(st.Regions, r)
		return p.ParseOptionalAttrDictWithKeyword(st)
	})
	src := `func.func @f(%lb: index, %ub: index) -> f32 {
  %r = test.loop "outer" %lb to %ub step 2 mode<fast> (iter %acc: f32) -> f32 {
    "test.yield"(%acc) : (f32) -> ()
  } attributes {note}
  return %r : f32
}`
	m, err := ParseWithOptions([]byte(src), Options{Filename: "h.mlir", Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.TrimSpace(m.Body().Ops[0].Regions[0].Blocks[0].Ops[0].String())
	want := `%0 = "test.loop"(%arg0, %arg1) ({
^bb1(%arg2: f32):
  "test.yield"(%arg2) : (f32) -> ()
}) {label = "outer", mode = #test.mode<fast>, note, step = 2 : index} : (index, index) -> f32`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// The default registry is untouched.
	_, err = Parse("h.mlir", []byte(src))
	if err == nil || !strings.Contains(err.Error(), "unknown op 'test.loop'") {
		t.Errorf("default registry error: %v", err)
	}
	if _, ok := Default().Lookup("check.expect_eq"); !ok {
		t.Error("check.expect_eq not registered")
	}
	if len(Default().Names()) < 50 {
		t.Errorf("only %d default syntaxes", len(Default().Names()))
	}
}

// TestPanickingHookIsAnError checks that a ParseFunc that panics produces a
// diagnostic instead of crashing the process.
func TestPanickingHookIsAnError(t *testing.T) {
	reg := NewRegistry()
	reg.Register("test.boom", func(p *OpParser, st *ir.OperationState) error {
		var m map[string]int
		m["x"] = 1 // nil map write
		return nil
	})
	_, err := ParseWithOptions([]byte("test.boom"), Options{Filename: "p.mlir", Registry: reg})
	if err == nil || !strings.HasPrefix(err.Error(), "p.mlir:1:10: error: internal parser error: assignment to entry in nil map") {
		t.Errorf("got %v", err)
	}
}
