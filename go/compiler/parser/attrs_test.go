package parser

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gree-ml/gree/go/compiler/ir"
)

func TestParseAttributeRoundTrip(t *testing.T) {
	cases := []struct{ in, want string }{
		{"42", "42 : i64"},
		{"-7 : i8", "-7 : i8"},
		{"255 : i8", "-1 : i8"},
		{"255 : ui8", "255 : ui8"},
		{"0x10 : i32", "16 : i32"},
		{"-1 : i1", "1 : i1"},
		{"-1 : si1", "-1 : si1"},
		{"dense<[true, false]> : tensor<2xsi1>", "dense<[-1, 0]> : tensor<2xsi1>"},
		{"1e-400 : f64", "0.000000e+00 : f64"},
		{"1e10 : f16", "0x7C00 : f16"},
		{"18446744073709551615 : ui64", "18446744073709551615 : ui64"},
		{"3 : index", "3 : index"},
		{"1.5", "1.500000e+00 : f64"},
		{"0.1 : f32", "1.000000e-01 : f32"},
		{"0.1 : f64", "1.000000e-01 : f64"},
		{"0.3 : f64", "3.000000e-01 : f64"},
		{"0.1234567890123 : f64", "1.234567890123e-01 : f64"},
		{"16777217.0 : f32", "1.6777216e+07 : f32"},
		{"0.1 : f16", "9.997559e-02 : f16"},
		{"0.1 : bf16", "1.000977e-01 : bf16"},
		{"2 : f32", "2.000000e+00 : f32"},
		{"0x7FC00000 : f32", "0x7FC00000 : f32"},
		{"0xFF800000 : f32", "0xFF800000 : f32"},
		{"0x7C00 : f16", "0x7C00 : f16"},
		{"0x3C00 : f16", "1.000000e+00 : f16"},
		{"0x7F : f8E4M3FN", "0x7F : f8E4M3FN"},
		{"448.0 : f8E4M3FN", "4.480000e+02 : f8E4M3FN"},
		{"true", "true"},
		{"unit", "unit"},
		{`"s\n"`, `"s\n"`},
		{`"s" : i32`, `"s" : i32`},
		{"@a::@b::@\"c d\"", "@a::@b::@\"c d\""},
		{"[1, [true], {}]", "[1 : i64, [true], {}]"},
		{"{b = 1, a, \"x y\" = \"z\"}", "{a, b = 1 : i64, \"x y\" = \"z\"}"},
		{"i32", "i32"},
		{"tensor<2xf32>", "tensor<2xf32>"},
		{"(i32) -> i32", "(i32) -> i32"},
		{"!hal.device", "!hal.device"},
		{"#arith.fastmath<fast>", "#arith.fastmath<fast>"},
		{"#foo.bar", "#foo.bar"},
		{"#tosa<a b>", "#tosa<a b>"},
		{"array<i64: 1, -2>", "array<i64: 1, -2>"},
		{"array<i1: true, false>", "array<i1: true, false>"},
		{"array<f32: 0.5>", "array<f32: 5.000000e-01>"},
		{"array<i8>", "array<i8>"},
		{"strided<[?, 1], offset: 0>", "strided<[?, 1], offset: 0>"},
		{"distinct[0]<42 : i32>", "distinct[0]<42 : i32>"},
		{"affine_map<(d0, d1) -> (d1, d0)>", "affine_map<(d0, d1) -> (d1, d0)>"},
		{"affine_map<(i)[n] -> (i * 2 - n, -i, i - (n + 1))>", "affine_map<(d0)[s0] -> (d0 * 2 - s0, d0 * -1, d0 - (s0 + 1))>"},
		{"affine_map<() -> (2 + 3 * 4)>", "affine_map<() -> (14)>"},
		{"dense<1> : tensor<3xi8>", "dense<1> : tensor<3xi8>"},
		{"dense<[1, 2]> : tensor<2xi8>", "dense<[1, 2]> : tensor<2xi8>"},
		{"dense<[[1.0], [2.0]]> : tensor<2x1xf32>", "dense<[[1.000000e+00], [2.000000e+00]]> : tensor<2x1xf32>"},
		{"dense<[[1, 2]]> : vector<1x2xi64>", "dense<[[1, 2]]> : vector<1x2xi64>"},
		{"dense<[]> : tensor<0xf32>", "dense<> : tensor<0xf32>"},
		{"dense<> : tensor<2x0xi8>", "dense<> : tensor<2x0xi8>"},
		{"dense<5> : tensor<i32>", "dense<5> : tensor<i32>"},
		{"dense<[5]> : tensor<1xi32>", "dense<[5]> : tensor<1xi32>"},
		{"dense<\"0x0100000002000000\"> : tensor<2xi32>", "dense<[1, 2]> : tensor<2xi32>"},
		{"dense<\"0x00FF\"> : tensor<2xi8>", "dense<[0, -1]> : tensor<2xi8>"},
		{"dense<\"0x003C\"> : tensor<3xf16>", "dense<1.000000e+00> : tensor<3xf16>"},
		{"dense<\"0x0100\"> : tensor<2xi1>", "dense<[true, false]> : tensor<2xi1>"},
		{"dense<[0x7FC00000, 1.0]> : tensor<2xf32>", "dense<[0x7FC00000, 1.000000e+00]> : tensor<2xf32>"},
		{"dense<(1, -2)> : tensor<2xcomplex<i16>>", "dense<(1, -2)> : tensor<2xcomplex<i16>>"},
		{"dense<[true, false]> : tensor<2xi1>", "dense<[true, false]> : tensor<2xi1>"},
		{"dense<[1, 0]> : tensor<2xi1>", "dense<[true, false]> : tensor<2xi1>"},
	}
	for _, c := range cases {
		got, err := ParseAttribute(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if got.String() != c.want {
			t.Errorf("%s: printed %s, want %s", c.in, got, c.want)
			continue
		}
		again, err := ParseAttribute(got.String())
		if err != nil || again.String() != c.want {
			t.Errorf("%s: reparse of %s gives %v, %v", c.in, c.want, again, err)
		}
	}
}

func mustAttr(t *testing.T, s string) ir.Attribute {
	t.Helper()
	a, err := ParseAttribute(s)
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return a
}

func TestDenseValues(t *testing.T) {
	ints := mustAttr(t, "dense<[[1, 254], [3, 255]]> : tensor<2x2xui8>").(*ir.DenseElementsAttr)
	if ints.Splat || ints.NumElements() != 4 || ints.Floats != nil {
		t.Fatalf("unexpected %+v", ints)
	}
	if diff := cmp.Diff([]int64{1, 254, 3, 255}, ints.Ints); diff != "" {
		t.Errorf("ints (-want +got):\n%s", diff)
	}
	signed := mustAttr(t, "dense<[1, -2, 255]> : tensor<3xi8>").(*ir.DenseElementsAttr)
	if diff := cmp.Diff([]int64{1, -2, -1}, signed.Ints); diff != "" {
		t.Errorf("i8 (-want +got):\n%s", diff)
	}
	splat := mustAttr(t, "dense<0.1> : tensor<1000x1000xf32>").(*ir.DenseElementsAttr)
	if !splat.Splat || len(splat.Floats) != 1 || splat.FloatAt(999999) != float64(float32(0.1)) {
		t.Errorf("splat %v %v", splat.Splat, splat.Floats)
	}
	hex := mustAttr(t, `dense<"0x0000803F000000C0"> : tensor<2xf32>`).(*ir.DenseElementsAttr)
	if diff := cmp.Diff([]float64{1, -2}, hex.Floats); diff != "" {
		t.Errorf("hex (-want +got):\n%s", diff)
	}
	cplx := mustAttr(t, "dense<[(1.0, 2.0), (3.0, 4.0)]> : tensor<2xcomplex<f64>>").(*ir.DenseElementsAttr)
	if re, im := cplx.ComplexAt(1); re != 3 || im != 4 || cplx.FloatAt(0) != 1 {
		t.Errorf("complex %v %v", re, im)
	}
	nan := mustAttr(t, "dense<0x7FC00000> : tensor<2xf32>").(*ir.DenseElementsAttr)
	if !math.IsNaN(nan.FloatAt(1)) {
		t.Errorf("nan %v", nan.Floats)
	}
	bf := mustAttr(t, "dense<[1.0, 3.14159]> : tensor<2xbf16>").(*ir.DenseElementsAttr)
	if bf.Floats[1] != 3.140625 {
		t.Errorf("bf16 rounding: %v", bf.Floats[1])
	}
	arr := mustAttr(t, "array<i64: 4, -5>").(*ir.DenseArrayAttr)
	if diff := cmp.Diff([]int64{4, -5}, arr.Ints); diff != "" || arr.Len() != 2 {
		t.Errorf("dense array (-want +got):\n%s", diff)
	}
	raw, err := hex.Bytes()
	if err != nil || len(raw) != 8 || raw[3] != 0x3F {
		t.Errorf("bytes %x %v", raw, err)
	}
}

func TestDenseResource(t *testing.T) {
	src := `"t.t"() {a = dense_resource<blob> : tensor<3xi16>, b = dense_resource<missing> : tensor<2xf32>,
	          c = dense_resource<"q key"> : tensor<f32>} : () -> ()
{-#
  dialect_resources: {
    builtin: {
      blob: "0x02000000010002000300",
      "q key": "0x040000000000803F"
    },
    other: { flag: true, text: "hello" }
  },
  external_resources: { mlir_reproducer: { pipeline: "builtin.module(x)" } }
#-}`
	m, err := Parse("r.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	op := m.Body().Ops[0]
	a := op.Attr("a").(*ir.DenseResourceAttr)
	if a.Resource.Alignment != 2 {
		t.Errorf("alignment %d", a.Resource.Alignment)
	}
	els, err := a.Elements()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int64{1, 2, 3}, els.Ints); diff != "" {
		t.Errorf("blob (-want +got):\n%s", diff)
	}
	if _, err := op.Attr("b").(*ir.DenseResourceAttr).Elements(); err == nil {
		t.Error("missing blob decoded")
	}
	c, err := op.Attr("c").(*ir.DenseResourceAttr).Elements()
	if err != nil || c.FloatAt(0) != 1 {
		t.Errorf("quoted key: %v %v", c, err)
	}
	if r := m.Resource("other", "flag"); r == nil || r.Value != "true" {
		t.Errorf("other dialect resource %+v", r)
	}
	printed := m.String()
	m2, err := Parse("r2.mlir", []byte(printed))
	if err != nil {
		t.Fatalf("%v\n%s", err, printed)
	}
	if m2.String() != printed {
		t.Errorf("resource round trip differs:\n%s\nvs\n%s", printed, m2.String())
	}
}

func TestAffineMapEval(t *testing.T) {
	a := mustAttr(t, "affine_map<(d0, d1)[s0] -> (d0, s0 + d1, d0 floordiv 3, d0 ceildiv 3, d0 mod 3, d1 - d0 * 2)>")
	m := a.(*ir.AffineMapAttr).Map
	if m.NumDims != 2 || m.NumSymbols != 1 || len(m.Results) != 6 {
		t.Fatalf("map %s", m)
	}
	got, err := m.Eval([]int64{-7, 5}, []int64{10})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int64{-7, 15, -3, -2, 2, 19}, got); diff != "" {
		t.Errorf("eval (-want +got):\n%s", diff)
	}
	if _, err := m.Eval([]int64{1}, []int64{0}); err == nil {
		t.Error("wrong arity accepted")
	}
	zero := mustAttr(t, "affine_map<(d0)[s0] -> (d0 mod s0)>").(*ir.AffineMapAttr).Map
	if _, err := zero.Eval([]int64{4}, []int64{0}); err == nil {
		t.Error("mod by zero accepted")
	}
	if !mustAttr(t, "affine_map<(a, b) -> (a, b)>").(*ir.AffineMapAttr).Map.IsIdentity() {
		t.Error("identity not recognized")
	}
}

func TestAttrAliases(t *testing.T) {
	src := `#map = affine_map<(d0) -> (d0)>
#maps = [#map, #map]
#target = #hal.executable.target<"vmvx", "vmvx-bytecode-fb">
"t.t"() {m = #maps, d = #hal.device.target<"local", [#target]>, s = "#target"} : () -> ()`
	m, err := Parse("a.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	op := m.Body().Ops[0]
	if got := op.Attr("m").String(); got != "[affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>]" {
		t.Errorf("m = %s", got)
	}
	if got := op.Attr("d").String(); got != `#hal.device.target<"local", [#hal.executable.target<"vmvx", "vmvx-bytecode-fb">]>` {
		t.Errorf("d = %s", got)
	}
	if got := op.Attr("s").String(); got != `"#target"` {
		t.Errorf("s = %s", got)
	}
}
