package parser

import (
	"strings"
	"testing"
)

// errorCases are inputs that must fail with exactly this diagnostic.
var errorCases = []struct {
	name, src, want string
}{
	// Ops.
	{"unknown custom op", "func.func @f() {\n  %0 = arith.frob %a : f32\n}",
		`t.mlir:2:8: error: unknown op 'arith.frob' (no custom syntax registered; use the generic form "arith.frob"(...))`},
	{"missing colon", "func.func @f(%a: f32) {\n  %0 = arith.addf %a, %a f32\n  return\n}",
		"t.mlir:2:26: error: expected ':', found 'f32'"},
	{"generic without type", `"t.t"()`, "t.mlir:1:8: error: expected ':', found end of input"},
	{"empty generic name", `""() : () -> ()`, "t.mlir:1:1: error: empty operation name"},
	{"no op after results", "%0 =",
		`t.mlir:1:5: error: expected an operation name (a custom op name, or a generic "dialect.op" in quotes), found end of input`},
	{"operand count vs type", `"t.t"() : (i32) -> ()`, "t.mlir:1:11: error: 't.t' has 0 operands but its type lists 1 operand types"},
	{"result count vs names", "func.func @f() {\n  %0:2 = arith.constant 1 : i32\n  return\n}",
		"t.mlir:2:3: error: operation 'arith.constant' defines 1 results but 2 names were given"},
	{"unknown predicate", "func.func @f() {\n  %b = arith.cmpf bogus, %x, %x : f32\n  return\n}",
		"t.mlir:2:19: error: unknown predicate 'bogus' for 'arith.cmpf' (expected one of false, oeq, ogt, oge, olt, ole, one, ord, ueq, ugt, uge, ult, ule, une, uno, true)"},
	{"check tolerance keyword", "func.func @f(%x: tensor<2xf32>) {\n  check.expect_almost_eq_const(%x, dense<1.0> : tensor<2xf32>, tol 1.0) : tensor<2xf32>\n  return\n}",
		"t.mlir:2:68: error: expected 'atol' or 'rtol' in 'check.expect_almost_eq_const', found 'tol'"},
	{"tensor.empty sizes", "func.func @f() {\n  %e = tensor.empty() : tensor<?xf32>\n  return\n}",
		"t.mlir:2:23: error: 'tensor.empty' has 0 size operands but 'tensor<?xf32>' has 1 dynamic dimensions"},
	{"unclosed flags", "func.func @f() {\n  %x = arith.constant 1 : i32\n  %y = arith.addi %x, %x overflow<nsw : i32\n  return\n}",
		"t.mlir:3:34: error: '<' is not closed: found '}' first, at t.mlir:5:1"},
	{"unnamed args with body", "func.func @f(i32) {\n  return\n}",
		"t.mlir:1:19: error: a function with a body needs named arguments ('%arg0: type')"},
	{"module with two blocks", "module {\n^bb0:\n  \"t.t\"() : () -> ()\n^bb1:\n  \"t.t\"() : () -> ()\n}",
		"t.mlir:1:8: error: 'builtin.module' expects a single block without arguments"},

	// SSA values and blocks.
	{"undeclared value", "func.func @f() {\n  %0 = arith.addf %a, %b : f32\n  return\n}",
		"t.mlir:2:19: error: use of undeclared SSA value '%a'"},
	{"type mismatch with definition", "func.func @f(%a: f32) {\n  %0 = arith.addf %a, %a : i32\n  return\n}",
		"t.mlir:2:19: error: use of value '%a' expects different type than prior uses: 'i32' vs 'f32'"},
	{"redefinition", "func.func @f(%a: f32) {\n  %0 = arith.addf %a, %a : f32\n  %0 = arith.addf %a, %a : f32\n  return\n}",
		"t.mlir:3:3: error: redefinition of SSA value '%0'"},
	{"value across isolation", "%0 = \"t.d\"() : () -> i32\nfunc.func @f() {\n  \"t.u\"(%0) : (i32) -> ()\n  return\n}",
		"t.mlir:3:9: error: use of undeclared SSA value '%0'"},
	{"bad result number", "%0 = \"t.d\"() : () -> i32\n\"t.u\"(%0#3) : (i32) -> ()",
		"t.mlir:2:7: error: reference to result #3 of '%0', which has only 1 results"},
	{"argument with number", "func.func @f(%a#1: i32) {\n  return\n}",
		"t.mlir:1:14: error: argument name '%a#1' cannot have a result number"},
	{"result name with number", `%a#1 = "t.t"() : () -> i32`,
		"t.mlir:1:1: error: result name '%a#1' cannot have a result number; write '%a:N' to name N results"},
	{"undefined block", "\"t.t\"() ({\n  \"t.br\"()[^missing] : () -> ()\n}) : () -> ()",
		"t.mlir:2:12: error: reference to an undefined block '^missing'"},
	{"label after named args", "func.func @f(%a: i32) {\n^bb0:\n  return\n}",
		"t.mlir:2:1: error: invalid block label '^bb0' in a region whose entry arguments are already declared"},

	// Verifier.
	{"missing terminator", "func.func @f() -> i32 {\n  %c = arith.constant 1 : i32\n}",
		"t.mlir:2:3: error: 'arith.constant' op is not a terminator, but ends a block of 'func.func' (expected a terminator after it)"},
	{"terminator not last", "func.func @f() -> i32 {\n  %c = arith.constant 1 : i32\n  return %c : i32\n  %d = arith.constant 1 : i32\n}",
		"t.mlir:3:3: error: 'func.return' op must be the last operation in the parent block"},
	{"return type", "func.func @f() -> i32 {\n  %c = arith.constant 1.0 : f32\n  return %c : f32\n}",
		"t.mlir:3:3: error: 'func.return' op type of return operand #0 (f32) does not match function result type (i32)"},
	{"use before def", "func.func @f() {\n  \"t.use\"(%v) : (i32) -> ()\n  %v = \"t.def\"() : () -> i32\n  return\n}",
		"t.mlir:2:3: error: 't.use' op operand #0 does not dominate this use"},

	// Types.
	{"unclosed tensor", `"t.t"() : () -> tensor<4xf32`, "t.mlir:1:29: error: expected '>', found end of input"},
	{"missing x", `"t.t"() : () -> tensor<4f32>`, "t.mlir:1:25: error: expected 'x' after a dimension size"},
	{"zero width", `"t.t"() : () -> i0`, "t.mlir:1:17: error: invalid integer width in 'i0' (1 to 16777215 bits)"},
	{"too wide", `"t.t"() : () -> i16777216`, "t.mlir:1:17: error: invalid integer width in 'i16777216' (1 to 16777215 bits)"},
	{"dynamic vector", `"t.t"() : () -> vector<?xf32>`, "t.mlir:1:17: error: vector dimensions must be static"},
	{"undefined type alias", `"t.t"() : () -> !undefined_alias`, "t.mlir:1:17: error: undefined type alias '!undefined_alias'"},

	// Attributes.
	{"undefined attr alias", `"t.t"() {a = #undefined} : () -> ()`, "t.mlir:1:14: error: undefined attribute alias '#undefined'"},
	{"duplicate key", `"t.t"() {a = 1, a = 2} : () -> ()`, "t.mlir:1:17: error: duplicate key 'a' in dictionary attribute"},
	{"unterminated string", `"t.t"() {a = "unterminated} : () -> ()`, `t.mlir:1:14: error: expected '"' to end the string literal`},
	{"bad escape", `"t.t"() {a = "bad \q escape"} : () -> ()`, "t.mlir:1:14: error: unknown escape 'q' in string literal"},
	{"stray character", `"t.t"() : () -> () $`, "t.mlir:1:20: error: unexpected character '$'"},
	{"float for int", "func.func @f() {\n  %0 = arith.constant 1.5 : i32\n  return\n}",
		"t.mlir:2:23: error: expected an integer literal for type 'i32', found '1.5'"},
	{"int out of range", "func.func @f() {\n  %0 = arith.constant 300 : i8\n  return\n}",
		"t.mlir:2:23: error: integer literal '300' is out of range for type 'i8'"},
	{"negative unsigned", "func.func @f() {\n  %0 = arith.constant -1 : ui8\n  return\n}",
		"t.mlir:2:23: error: integer literal '-1' is out of range for type 'ui8'"},
	{"negated hex float", `"t.t"() {x = -0x7F : f32} : () -> ()`,
		"t.mlir:1:14: error: a hexadecimal float literal (a bit pattern) cannot be negated"},
	{"hex float too wide", `"t.t"() {x = 0x1FFFF : f16} : () -> ()`,
		"t.mlir:1:14: error: hexadecimal literal '0x1FFFF' does not fit the 16 bits of 'f16'"},
	{"float overflow", `"t.t"() {x = 1e400} : () -> ()`,
		"t.mlir:1:14: error: float literal '1e400' is out of range for type 'f64' (gree holds float values as float64)"},
	{"dense shape", "func.func @f() {\n  %0 = arith.constant dense<[1, 2, 3]> : tensor<2xi32>\n  return\n}",
		"t.mlir:2:23: error: dense literal has shape [3] but its type 'tensor<2xi32>' has shape [2]"},
	{"dense ragged", "func.func @f() {\n  %0 = arith.constant dense<[[1, 2], [3]]> : tensor<2x2xi32>\n  return\n}",
		"t.mlir:2:29: error: dense literal is not rectangular: sub-lists of shapes [2] and [1]"},
	{"dense hex size", "func.func @f() {\n  %0 = arith.constant dense<\"0x0102\"> : tensor<4xi32>\n  return\n}",
		"t.mlir:2:23: error: raw data of 2 bytes does not fit tensor<4xi32> (want 16 bytes of 4-byte elements, or one element for a splat)"},
	{"dense dynamic", "func.func @f() {\n  %0 = arith.constant dense<1.0> : tensor<?xf32>\n  return\n}",
		"t.mlir:2:36: error: dense attribute type must be a statically shaped tensor or vector, found 'tensor<?xf32>'"},
	{"dense bool for int", `"t.t"() {x = dense<true> : tensor<2xi32>} : () -> ()`,
		"t.mlir:1:20: error: 'true' is a bool literal, but the type is 'i32' (expected i1)"},
	{"dense complex for int", `"t.t"() {x = dense<(1, 2)> : tensor<2xi32>} : () -> ()`,
		"t.mlir:1:21: error: complex element for non-complex type 'i32'"},
	{"dense string", `"t.t"() {x = dense<"abc"> : tensor<2xi32>} : () -> ()`,
		`t.mlir:1:20: error: dense string elements are not supported (only "0x…" hex data)`},
	{"affine undeclared", `"t.t"() {m = affine_map<(d0) -> (d1)>} : () -> ()`,
		"t.mlir:1:34: error: use of undeclared affine identifier 'd1'"},
	{"unbalanced dialect body", `"t.t"() {x = #foo.bar<(>} : () -> ()`,
		"t.mlir:1:23: error: '(' is not closed: found '>' first, at t.mlir:1:24"},
	{"nesting", `"t.t"() {x = ` + strings.Repeat("[", 600) + `} : () -> ()`,
		"t.mlir:1:526: error: nesting is too deep (more than 512 levels)"},

	// Aliases, locations, metadata.
	{"alias with dot", "#map.x = affine_map<() -> ()>",
		"t.mlir:1:1: error: alias '#map.x' contains a '.', which is reserved for dialect attributes"},
	{"alias redefined", "#a = 1\n#a = 2", "t.mlir:2:1: error: redefinition of attribute alias '#a'"},
	{"loc alias not a location", "#a = 1\n\"t.t\"() : () -> () loc(#a)", "t.mlir:2:24: error: '#a' is not a location (it is '1 : i64')"},
	{"undefined loc alias", `"t.t"() : () -> () loc(#nowhere)`, "t.mlir:1:24: error: undefined location alias '#nowhere'"},
	{"short blob", `{-# dialect_resources: { builtin: { r: "0x01" } } #-}`,
		`t.mlir:1:40: error: resource 'r': malformed blob (want "0x", a 4-byte alignment and the data in hex)`},
	{"unknown metadata", "{-# other: {} #-}",
		"t.mlir:1:5: error: unknown file metadata key 'other' (expected 'dialect_resources' or 'external_resources')"},
}

func TestErrors(t *testing.T) {
	for _, c := range errorCases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("t.mlir", []byte(c.src))
			if err == nil {
				t.Fatalf("no error; want %s", c.want)
			}
			if err.Error() != c.want {
				t.Errorf("got  %s\nwant %s", err, c.want)
			}
		})
	}
}

// TestSplitErrorLines checks that a diagnostic in a later chunk of a split
// file carries the line number in the whole file.
func TestSplitErrorLines(t *testing.T) {
	src := "func.func @a() {\n  return\n}\n\n// -----\n\nfunc.func @b() {\n  %0 = arith.frob\n}\n// -----\n\"t.t\"() : () -> ()\n"
	chunks := SplitInputFile([]byte(src))
	if len(chunks) != 3 {
		t.Fatalf("got %d chunks, want 3", len(chunks))
	}
	if chunks[0].Line != 1 || chunks[1].Line != 6 || chunks[2].Line != 11 {
		t.Errorf("chunk lines %d %d %d, want 1 6 11", chunks[0].Line, chunks[1].Line, chunks[2].Line)
	}
	if _, err := ParseChunk("s.mlir", chunks[0]); err != nil {
		t.Errorf("chunk 0: %v", err)
	}
	_, err := ParseChunk("s.mlir", chunks[1])
	want := `s.mlir:8:8: error: unknown op 'arith.frob' (no custom syntax registered; use the generic form "arith.frob"(...))`
	if err == nil || err.Error() != want {
		t.Errorf("chunk 1: got %v, want %s", err, want)
	}
	m, err := ParseChunk("s.mlir", chunks[2])
	if err != nil {
		t.Fatalf("chunk 2: %v", err)
	}
	if got := m.Body().Ops[0].Loc.String(); got != `loc("s.mlir":11:1)` {
		t.Errorf("chunk 2 op location %s", got)
	}
}
