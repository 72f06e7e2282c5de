package parser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/ir"
)

// fuzzSeeds are small inputs that reach the corners of the grammar.
var fuzzSeeds = []string{
	"",
	"func.func @f() { return }",
	`%0 = "a.b"() : () -> (i32, f32)`,
	"#map = affine_map<(d0)[s0] -> (d0 floordiv 2 + s0 mod 3 - d0 ceildiv 4)>",
	`"t.t"() {a = dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>, b = dense<"0x01020304"> : tensor<4xi8>} : () -> ()`,
	`"t.t"() {a = dense<(1.0, 2.0)> : tensor<complex<f32>>, b = array<f32: 1.0>, c = 0x7F800000 : f32} : () -> ()`,
	"!t = !foo.bar<\"x\", [1, 2], (i32) -> i32>\n\"t.t\"() : () -> !t",
	`"t.t"() ({ ^bb0(%a: i32): "t.u"(%a)[^bb1] : (i32) -> () ^bb1: "t.v"() : () -> () }) : () -> () loc(#l)` + "\n#l = loc(\"f\":1:2)",
	"{-# dialect_resources: { builtin: { r: \"0x0400000001000000\" } } #-}",
	`"t.t"() {r = dense_resource<r> : tensor<1xi32>} : () -> ()`,
	"module @m attributes {x} { func.func private @d(i32) -> (f32 {a}) }",
	"%0 = arith.cmpi slt, %a, %b : tensor<4xi32>",
	"check.expect_almost_eq_const(%r, dense<1.0> : tensor<2xf32>, atol 1.0e-2) : tensor<2xf32>",
	"tensor<2x?x[4]xvector<4xf32>>",
	"\"t.t\"() : () -> tensor<4xf32, #enc<{a = [1]}>>\n// -----\n\"t.u\"() : () -> memref<*xf32, 3>",
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	files, _ := filepath.Glob("testdata/*.mlir")
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(string(b))
		}
	}
	for _, c := range errorCases {
		f.Add(c.src)
	}
	f.Fuzz(checkParseProperties)
}

// checkParseProperties is the property FuzzParse checks: the parser never
// fails internally, every diagnostic has a position, and whatever parses
// prints to text that parses back and prints the same.
func checkParseProperties(t *testing.T, src string) {
	m, err := Parse("fuzz.mlir", []byte(src))
	if err != nil {
		if strings.Contains(err.Error(), "internal parser error") {
			t.Fatalf("parser failed internally on %q: %v", src, err)
		}
		if !strings.HasPrefix(err.Error(), "fuzz.mlir:") && !strings.HasPrefix(err.Error(), "<unknown>") {
			t.Fatalf("diagnostic without a location for %q: %v", src, err)
		}
		return
	}
	var sb strings.Builder
	if err := m.Print(&sb, ir.PrintOptions{Locations: true}); err != nil {
		t.Fatal(err)
	}
	first := sb.String()
	m2, err := Parse("printed.mlir", []byte(first))
	if err != nil {
		t.Fatalf("input %q parsed, but its print does not: %v\n%s", src, err, first)
	}
	sb.Reset()
	_ = m2.Print(&sb, ir.PrintOptions{Locations: true})
	if sb.String() != first {
		t.Fatalf("round trip of %q is not stable:\n%s\nvs\n%s", src, first, sb.String())
	}
}

// TestRoundTripOddities runs the fuzz property on valid corner cases that
// random mutation rarely reaches.
func TestRoundTripOddities(t *testing.T) {
	for _, src := range []string{
		`"t.t"() ({}) : () -> ()`,
		`"t.t"() ({ ^bb0: }, { ^x(%a: i32): "t.u"(%a) : (i32) -> () }) : () -> ()`,
		`"t.t"() ({ ^e: "t.br"()[^b] : () -> () ^b: "t.end"() : () -> () }) : () -> ()`,
		`%0:3 = "t.m"() : () -> (i1, i2, i3)` + "\n" + `"t.u"(%0#2, %0#0) : (i3, i1) -> ()`,
		`"t.t"() {a = !foo<"x // y">, b = #foo<"y">, c = "\C3\A9\01", d = @"sym with space", "k k" = loc(fused[])} : () -> ()`,
		`"t.t"() {a = 5 : i128, b = -1 : si1, c = 1 : ui1, e = dense<[true]> : tensor<1xui1>} : () -> ()`,
		`"t.t"() {a = 0x7FF0000000000000 : f64, b = 0xFF : f8E8M0FNU, c = 0x80 : f8E4M3FNUZ, d = 1.0e10 : f4E2M1FN} : () -> ()`,
		`"t.t"() {a = dense<0x7E00> : tensor<2xf16>, b = dense<[(0x7FC00000, 1.0)]> : tensor<1xcomplex<f32>>} : () -> ()`,
		`"t.t"() {a = dense<> : tensor<0x2xcomplex<i8>>, b = array<f64>, c = affine_map<()[s0] -> ()>} : () -> ()`,
		`"t.t"() : () -> (memref<?xf32, affine_map<(d0)[s0] -> (d0 + s0)>, "space">, tensor<*xf32>, vector<[1]xi1>)`,
		"\"t.t\"() : () -> () loc(#a)\n#b = loc(\"b\":1:1)\n#a = loc(callsite(#b at fused<#b>[#b]))",
		"module @m {\n}\n{-# dialect_resources: { builtin: { r: \"0x08000000\" }, x: { k: \"v\" } } #-}",
	} {
		t.Run("", func(t *testing.T) {
			if _, err := Parse("odd.mlir", []byte(src)); err != nil {
				t.Fatalf("%q: %v", src, err)
			}
			checkParseProperties(t, src)
		})
	}
}
