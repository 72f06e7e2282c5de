package parser

import (
	"strings"
	"testing"
)

// scfSig is the signature the scf cases are parsed in.
const scfSig = "%lb: index, %ub: index, %f: f32, %c: i1, %n: i32"

// TestScfForms checks the generic form of scf and cf ops written in custom
// syntax, including the implicit scf.yield MLIR adds.
func TestScfForms(t *testing.T) {
	checkForms(t, scfSig, []struct{ in, want string }{
		{"%0 = scf.for %i = %lb to %ub step %lb iter_args(%acc = %f) -> (f32) {\n  scf.yield %acc : f32\n} {tag}",
			`%0 = "scf.for"(%arg0, %arg1, %arg0, %arg2) ({
^bb1(%arg5: index, %arg6: f32):
  "scf.yield"(%arg6) : (f32) -> ()
}) {tag} : (index, index, index, f32) -> f32`},
		{"scf.for unsigned %i = %n to %n step %n : i32 {\n}",
			`"scf.for"(%arg4, %arg4, %arg4) ({
^bb1(%arg5: i32):
  "scf.yield"() : () -> ()
}) {unsignedCmp} : (i32, i32, i32) -> ()`},
		{"scf.for %i = %lb to %ub step %lb {\n  %x = arith.addi %i, %i : index\n}",
			`"scf.for"(%arg0, %arg1, %arg0) ({
^bb1(%arg5: index):
  %0 = "arith.addi"(%arg5, %arg5) : (index, index) -> index
  "scf.yield"() : () -> ()
}) : (index, index, index) -> ()`},
		{"scf.if %c {\n}",
			`"scf.if"(%arg3) ({
  "scf.yield"() : () -> ()
}, {
}) : (i1) -> ()`},
		{"%0 = scf.if %c -> f32 {\n  scf.yield %f : f32\n} else {\n  scf.yield %f : f32\n}",
			`%0 = "scf.if"(%arg3) ({
  "scf.yield"(%arg2) : (f32) -> ()
}, {
  "scf.yield"(%arg2) : (f32) -> ()
}) : (i1) -> f32`},
		{"%0 = scf.while (%x = %n) : (i32) -> i32 {\n  scf.condition(%c) %x : i32\n} do {\n^bb0(%y: i32):\n  scf.yield %y : i32\n} attributes {w}",
			`%0 = "scf.while"(%arg4) ({
^bb1(%arg5: i32):
  "scf.condition"(%arg3, %arg5) : (i1, i32) -> ()
}, {
^bb2(%arg6: i32):
  "scf.yield"(%arg6) : (i32) -> ()
}) {w} : (i32) -> i32`},
		{"scf.while : () -> () {\n  scf.condition(%c)\n} do {\n  scf.yield\n}",
			`"scf.while"() ({
  "scf.condition"(%arg3) : (i1) -> ()
}, {
  "scf.yield"() : () -> ()
}) : () -> ()`},
		{"%0 = scf.execute_region -> f32 no_inline {\n  scf.yield %f : f32\n}",
			`%0 = "scf.execute_region"() ({
  "scf.yield"(%arg2) : (f32) -> ()
}) {no_inline} : () -> f32`},
		{"scf.index_switch %lb\ncase 3 {\n}\ndefault {\n}",
			`"scf.index_switch"(%arg0) ({
  "scf.yield"() : () -> ()
}, {
  "scf.yield"() : () -> ()
}) {cases = array<i64: 3>} : (index) -> ()`},
		{"cf.assert %c, \"must hold\"", `"cf.assert"(%arg3) {msg = "must hold"} : (i1) -> ()`},
	})
}

// TestCfBranches checks cf.br and cf.cond_br with successor operands.
func TestCfBranches(t *testing.T) {
	src := `func.func @f(%c: i1, %f: f32) -> f32 {
  cf.cond_br %c, ^a(%f, %f : f32, f32), ^b
^a(%x: f32, %y: f32):
  cf.br ^b {w}
^b:
  return %f : f32
}`
	m, err := Parse("cf.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got := printModule(t, m, false)
	for _, want := range []string{
		`"cf.cond_br"(%arg0, %arg1, %arg1)[^bb1, ^bb2] {operandSegmentSizes = array<i32: 1, 2, 0>} : (i1, f32, f32) -> ()`,
		`"cf.br"()[^bb2] {w} : () -> ()`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %s in\n%s", want, got)
		}
	}
	roundTrip(t, m)
}

// TestScfErrors checks the diagnostics of malformed scf syntax.
func TestScfErrors(t *testing.T) {
	for _, c := range []struct{ in, msg string }{
		{"scf.for %i = %lb to %ub {\n}", "2:27: error: expected 'step', found '{'"},
		{"scf.for %i = %lb to %ub step %lb iter_args(%a = %f) {\n}", "2:55: error: expected '->' and the result types after 'iter_args(…)'"},
		{"scf.for %i = %lb to %ub step %lb iter_args(%a = %f) -> (f32, f32) {\n}", "2:11: error: mismatch in number of loop-carried values (1) and defined values (2)"},
		{"scf.for %i = %n to %n step %n {\n}", "2:16: error: use of value '%n' expects different type than prior uses: 'index' vs 'i32'"},
		{"scf.if %f {\n}", "2:10: error: use of value '%f' expects different type than prior uses: 'i1' vs 'f32'"},
		{"%0 = scf.if %c -> f32 {\n  scf.yield %f : f32\n} otherwise {\n}", "4:3: error: unknown op 'otherwise'"},
		{"scf.while (%x = %n) : () -> () {\n}", "2:25: error: expected as many input types as operands (expected 1 got 0)"},
		{"scf.while : () -> () {\n  scf.condition(%c)\n} {\n}", "4:3: error: expected 'do', found '{'"},
		{"scf.index_switch %lb\ncase 1 {\n}", "5:3: error: expected 'default', found 'return'"},
		{"cf.br ^nowhere", "2:9: error: reference to an undefined block '^nowhere'"},
	} {
		src := "func.func @f(" + scfSig + ") {\n  " + c.in + "\n  return\n}"
		_, err := Parse("s.mlir", []byte(src))
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s:\n got  %v\n want …%s", c.in, err, c.msg)
		}
	}
}
