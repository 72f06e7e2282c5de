package input

import (
	"math"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/parser"
)

// demoted parses src, converts it to the core program and applies opts.
func demoted(t *testing.T, src string, opts DemoteOptions) *ir.Module {
	t.Helper()
	m, err := parser.Parse("t.mlir", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if err := Run(m); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := Demote(m, opts); err != nil {
		t.Fatalf("Demote: %v\n%s", err, m)
	}
	return m
}

// demoteErr parses src, converts it and returns Demote's error.
func demoteErr(t *testing.T, src string, opts DemoteOptions) error {
	t.Helper()
	m, err := parser.Parse("t.mlir", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if err := Run(m); err != nil {
		t.Fatalf("Run: %v", err)
	}
	return Demote(m, opts)
}

func opsNamed(m *ir.Module, name string) []*ir.Operation {
	var out []*ir.Operation
	m.Op.Walk(func(op *ir.Operation) bool {
		if op.Name == name {
			out = append(out, op)
		}
		return true
	})
	return out
}

func funcType(t *testing.T, m *ir.Module, name string) string {
	t.Helper()
	fn := m.Lookup(name)
	if fn == nil {
		t.Fatalf("no function @%s", name)
	}
	return fn.Attr("function_type").(*ir.TypeAttr).Type.String()
}

// constFloats returns the float elements of every arith.constant, in
// order.
func constFloats(m *ir.Module) []float64 {
	var out []float64
	for _, op := range opsNamed(m, "arith.constant") {
		switch a := op.Attr("value").(type) {
		case *ir.FloatAttr:
			out = append(out, a.Value)
		case *ir.DenseElementsAttr:
			out = append(out, a.Floats...)
		}
	}
	return out
}

func TestDemoteF64ToF32(t *testing.T) {
	src := `
func.func @main(%a: tensor<3xf64>, %s: f64) -> (tensor<3xf64>, f64) {
  %c = arith.constant dense<[0.1, 1.0e300, -1.0e300]> : tensor<3xf64>
  %k = arith.constant 0.3 : f64
  %0 = arith.mulf %a, %c : tensor<3xf64>
  %1 = arith.addf %s, %k : f64
  %2 = math.exp %0 : tensor<3xf64>
  return %2, %1 : tensor<3xf64>, f64
}`
	m := demoted(t, src, DemoteOptions{F64ToF32: true})
	if got, want := funcType(t, m, "main"), "(tensor<3xf32>, f32) -> (tensor<3xf32>, f32)"; got != want {
		t.Errorf("signature %s, want %s", got, want)
	}
	if text := m.String(); strings.Contains(text, "f64") {
		t.Errorf("f64 left in the program:\n%s", text)
	}
	// Rounded toward zero, as IREE converts constants; out-of-range values
	// become the largest finite f32.
	want := []float64{
		float64(math.Nextafter32(0.1, 0)), math.MaxFloat32, -math.MaxFloat32,
		float64(math.Nextafter32(0.3, 0)),
	}
	got := constFloats(m)
	if len(got) != len(want) {
		t.Fatalf("constants %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("constant %d = %v, want %v", i, got[i], want[i])
		}
	}
	for _, op := range opsNamed(m, "arith.constant") {
		if a, ok := op.Attr("value").(ir.TypedAttr); ok && !ir.TypesEqual(a.AttrType(), op.Results[0].Type) {
			t.Errorf("constant of type %s gives %s", a.AttrType(), op.Results[0].Type)
		}
	}
}

func TestDemoteNoFlagsIsNoOp(t *testing.T) {
	src := `
func.func @main(%a: tensor<3xf64>, %b: tensor<3xi64>) -> (tensor<3xf64>, tensor<3xi64>) {
  %c = arith.constant dense<0.1> : tensor<3xf64>
  %0 = arith.addf %a, %c : tensor<3xf64>
  return %0, %b : tensor<3xf64>, tensor<3xi64>
}`
	m, err := parser.Parse("t.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := Run(m); err != nil {
		t.Fatal(err)
	}
	before := m.String()
	if err := Demote(m, DemoteOptions{}); err != nil {
		t.Fatal(err)
	}
	if after := m.String(); after != before {
		t.Errorf("Demote without flags changed the program:\n%s\nto\n%s", before, after)
	}
}

func TestDemoteIdentityCastsDisappear(t *testing.T) {
	src := `
func.func @main(%x: tensor<4xf32>, %i: tensor<4xi32>, %h: f16) -> (tensor<4xf32>, tensor<4xi32>, f64) {
  %e = arith.extf %x : tensor<4xf32> to tensor<4xf64>
  %y = arith.mulf %e, %e : tensor<4xf64>
  %t = arith.truncf %y : tensor<4xf64> to tensor<4xf32>
  %w = arith.extsi %i : tensor<4xi32> to tensor<4xi64>
  %z = arith.addi %w, %w : tensor<4xi64>
  %n = arith.trunci %z : tensor<4xi64> to tensor<4xi32>
  %hx = arith.extf %h : f16 to f64
  return %t, %n, %hx : tensor<4xf32>, tensor<4xi32>, f64
}`
	m := demoted(t, src, DemoteOptions{F64ToF32: true, I64ToI32: true})
	if got, want := funcType(t, m, "main"), "(tensor<4xf32>, tensor<4xi32>, f16) -> (tensor<4xf32>, tensor<4xi32>, f32)"; got != want {
		t.Errorf("signature %s, want %s", got, want)
	}
	for _, name := range []string{"arith.truncf", "arith.extsi", "arith.trunci"} {
		if ops := opsNamed(m, name); len(ops) != 0 {
			t.Errorf("%d %s left:\n%s", len(ops), name, m)
		}
	}
	// f16 → f64 is still a widening: it becomes f16 → f32.
	ext := opsNamed(m, "arith.extf")
	if len(ext) != 1 || ext[0].Operands[0].Type.String() != "f16" || ext[0].Results[0].Type.String() != "f32" {
		t.Errorf("want one extf f16 -> f32, got %d:\n%s", len(ext), m)
	}
	if mul := opsNamed(m, "arith.mulf"); len(mul) != 1 || mul[0].Results[0].Type.String() != "f32" {
		t.Errorf("mulf not on f32:\n%s", m)
	}
}

func TestDemoteI64ToI32(t *testing.T) {
	src := `
func.func @main(%a: tensor<3xi64>, %n: i64) -> (tensor<3xi64>, tensor<3xi1>, index) {
  %c = arith.constant dense<[4294967297, -1, 2147483648]> : tensor<3xi64>
  %0 = arith.muli %a, %c : tensor<3xi64>
  %1 = arith.cmpi slt, %0, %c : tensor<3xi64>
  %k = arith.constant 4294967301 : i64
  %2 = arith.addi %n, %k : i64
  %3 = arith.index_cast %2 : i64 to index
  return %0, %1, %3 : tensor<3xi64>, tensor<3xi1>, index
}`
	m := demoted(t, src, DemoteOptions{I64ToI32: true})
	if got, want := funcType(t, m, "main"), "(tensor<3xi32>, i32) -> (tensor<3xi32>, tensor<3xi1>, index)"; got != want {
		t.Errorf("signature %s, want %s", got, want)
	}
	var ints []int64
	for _, op := range opsNamed(m, "arith.constant") {
		switch a := op.Attr("value").(type) {
		case *ir.IntegerAttr:
			if a.Type.String() == "i32" {
				ints = append(ints, a.Value)
			}
		case *ir.DenseElementsAttr:
			ints = append(ints, a.Ints...)
		}
	}
	// Signless integers wrap to 32 bits.
	if want := []int64{1, -1, math.MinInt32, 5}; !equalInts(ints, want) {
		t.Errorf("constants %v, want %v\n%s", ints, want, m)
	}
	// Op parameters typed i64 (comparison predicates) keep their type.
	for _, op := range opsNamed(m, "arith.cmpi") {
		if p := op.Attr("predicate").(*ir.IntegerAttr); p.Type.String() != "i64" {
			t.Errorf("predicate became %s", p.Type)
		}
	}
	if ic := opsNamed(m, "arith.index_cast"); len(ic) != 1 || ic[0].Operands[0].Type.String() != "i32" || ic[0].Results[0].Type.String() != "index" {
		t.Errorf("index_cast not i32 -> index:\n%s", m)
	}
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestDemoteI64KeepsStructuralAttrs: StableHLO's i64 parameters
// (dimensions, permutations, sort dimensions) describe the op, not values,
// and stay as they are; the values become i32.
func TestDemoteI64KeepsStructuralAttrs(t *testing.T) {
	src := `
func.func @main(%a: tensor<2x3xi64>) -> (tensor<3x2xi64>, tensor<2xi64>, tensor<6xi64>, tensor<2x3xi64>) {
  %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xi64>) -> tensor<3x2xi64>
  %z = stablehlo.constant dense<0> : tensor<i64>
  %r = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x3xi64>, tensor<i64>) -> tensor<2xi64>
  %f = stablehlo.reshape %a : (tensor<2x3xi64>) -> tensor<6xi64>
  %s = "stablehlo.sort"(%a) ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %lt = stablehlo.compare LT, %x, %y : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) {dimension = 1 : i64} : (tensor<2x3xi64>) -> tensor<2x3xi64>
  return %t, %r, %f, %s : tensor<3x2xi64>, tensor<2xi64>, tensor<6xi64>, tensor<2x3xi64>
}`
	m := demoted(t, src, DemoteOptions{I64ToI32: true})
	if got, want := funcType(t, m, "main"), "(tensor<2x3xi32>) -> (tensor<3x2xi32>, tensor<2xi32>, tensor<6xi32>, tensor<2x3xi32>)"; got != want {
		t.Errorf("signature %s, want %s", got, want)
	}
	sorts := opsNamed(m, "iree_linalg_ext.sort")
	if len(sorts) != 1 {
		t.Fatalf("want one iree_linalg_ext.sort:\n%s", m)
	}
	for _, op := range sorts {
		if d := op.Attr("dimension").(*ir.IntegerAttr); d.Type.String() != "i64" || d.Value != 1 {
			t.Errorf("sort dimension became %s", d)
		}
	}
	m.Op.Walk(func(op *ir.Operation) bool {
		for _, r := range op.Results {
			if strings.Contains(r.Type.String(), "i64") {
				t.Errorf("%s still gives %s", op.Name, r.Type)
			}
		}
		if op.Name == "linalg.index" {
			if d := op.Attr("dim").(*ir.IntegerAttr); d.Type.String() != "i64" && d.Type.String() != "index" {
				t.Errorf("linalg.index dim became %s", d)
			}
		}
		return true
	})
}

func TestDemoteGlobals(t *testing.T) {
	src := `
util.global private mutable @g = dense<[1.0, 0.1]> : tensor<2xf64>
util.global private @s = 0.1 : f64
util.global private @n = dense<[-1, 4294967296]> : tensor<2xi64>
func.func @main() -> (tensor<2xf64>, f64, tensor<2xi64>) {
  %0 = util.global.load @g : tensor<2xf64>
  %1 = util.global.load @s : f64
  %2 = util.global.load @n : tensor<2xi64>
  %3 = arith.addf %0, %0 : tensor<2xf64>
  util.global.store %3, @g : tensor<2xf64>
  return %0, %1, %2 : tensor<2xf64>, f64, tensor<2xi64>
}`
	m := demoted(t, src, DemoteOptions{F64ToF32: true, I64ToI32: true})
	if got, want := funcType(t, m, "main"), "() -> (tensor<2xf32>, f32, tensor<2xi32>)"; got != want {
		t.Errorf("signature %s, want %s", got, want)
	}
	tenth := float64(math.Nextafter32(0.1, 0))
	g := m.Lookup("g")
	if ty := g.Attr("type").(*ir.TypeAttr).Type.String(); ty != "tensor<2xf32>" {
		t.Errorf("global type %s", ty)
	}
	if iv := g.Attr("initial_value").(*ir.DenseElementsAttr); iv.Type.String() != "tensor<2xf32>" || iv.Floats[0] != 1 || iv.Floats[1] != tenth {
		t.Errorf("initial value %s", iv)
	}
	if s := m.Lookup("s").Attr("initial_value").(*ir.FloatAttr); s.Type.String() != "f32" || s.Value != tenth {
		t.Errorf("scalar global %s", s)
	}
	if n := m.Lookup("n").Attr("initial_value").(*ir.DenseElementsAttr); n.Type.String() != "tensor<2xi32>" || !equalInts(n.Ints, []int64{-1, 0}) {
		t.Errorf("integer global %s", n)
	}
}

// TestDemoteComplex converts complex element types and values (on the
// program as parsed: Run carries complex tensors as pairs of reals).
func TestDemoteComplex(t *testing.T) {
	src := `
util.global private @g = dense<[(1.0, 0.1), (2.5, -1.0e300)]> : tensor<2xcomplex<f64>>
func.func @f() -> (tensor<2xcomplex<f64>>, f64) {
  %0 = util.global.load @g : tensor<2xcomplex<f64>>
  %c = "complex.constant"() {value = [1.5 : f64, 0.1 : f64]} : () -> complex<f64>
  %r = "complex.re"(%c) : (complex<f64>) -> f64
  return %0, %r : tensor<2xcomplex<f64>>, f64
}`
	m, err := parser.Parse("t.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := Demote(m, DemoteOptions{F64ToF32: true}); err != nil {
		t.Fatal(err)
	}
	if got, want := funcType(t, m, "f"), "() -> (tensor<2xcomplex<f32>>, f32)"; got != want {
		t.Errorf("signature %s, want %s", got, want)
	}
	tenth := float64(math.Nextafter32(0.1, 0))
	iv := m.Lookup("g").Attr("initial_value").(*ir.DenseElementsAttr)
	if want := []float64{1, tenth, 2.5, -math.MaxFloat32}; iv.Type.String() != "tensor<2xcomplex<f32>>" || len(iv.Floats) != 4 ||
		iv.Floats[0] != want[0] || iv.Floats[1] != want[1] || iv.Floats[2] != want[2] || iv.Floats[3] != want[3] {
		t.Errorf("initial value %s (%v)", iv, iv.Floats)
	}
	c := opsNamed(m, "complex.constant")[0]
	if c.Results[0].Type.String() != "complex<f32>" {
		t.Errorf("result %s", c.Results[0].Type)
	}
	parts := c.Attr("value").(*ir.ArrayAttr).Elems
	if p := parts[1].(*ir.FloatAttr); p.Type.String() != "f32" || p.Value != tenth {
		t.Errorf("imaginary part %s", p)
	}
}

// TestDemoteStableHLOComplex: a StableHLO program on complex<f64> (which
// Run lowers to pairs of reals) is all f32 afterwards.
func TestDemoteStableHLOComplex(t *testing.T) {
	src := `
func.func @main(%re: tensor<2xf64>, %im: tensor<2xf64>) -> tensor<2xf64> {
  %c = stablehlo.complex %re, %im : tensor<2xcomplex<f64>>
  %k = stablehlo.constant dense<[(1.0, 2.0), (0.1, -0.5)]> : tensor<2xcomplex<f64>>
  %m = stablehlo.multiply %c, %k : tensor<2xcomplex<f64>>
  %r = stablehlo.imag %m : (tensor<2xcomplex<f64>>) -> tensor<2xf64>
  return %r : tensor<2xf64>
}`
	m := demoted(t, src, DemoteOptions{F64ToF32: true})
	if got, want := funcType(t, m, "main"), "(tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>"; got != want {
		t.Errorf("signature %s, want %s", got, want)
	}
	if text := m.String(); strings.Contains(text, "f64") {
		t.Errorf("f64 left:\n%s", text)
	}
}

func TestDemoteCheckConstAndResource(t *testing.T) {
	src := `
func.func @main() {
  %a = arith.constant dense_resource<blob> : tensor<2xf64>
  %b = util.optimization_barrier %a : tensor<2xf64>
  check.expect_almost_eq_const(%b, dense<[1.5, -2.0]> : tensor<2xf64>) : tensor<2xf64>
  return
}
{-#
  dialect_resources: {
    builtin: {
      blob: "0x08000000000000000000F83F00000000000000C0"
    }
  }
#-}`
	m := demoted(t, src, DemoteOptions{F64ToF32: true})
	if text := m.String(); strings.Contains(text, "f64") {
		t.Fatalf("f64 left:\n%s", text)
	}
	c := opsNamed(m, "arith.constant")[0].Attr("value").(*ir.DenseElementsAttr)
	if c.Type.String() != "tensor<2xf32>" || c.Floats[0] != 1.5 || c.Floats[1] != -2 {
		t.Errorf("resource constant became %s", c)
	}
	chk := opsNamed(m, "check.expect_almost_eq_const")[0]
	if v := chk.Attr("value").(*ir.DenseElementsAttr); v.Type.String() != "tensor<2xf32>" {
		t.Errorf("expected value %s", v)
	}
}

func TestDemoteF32ToF16AndPromotions(t *testing.T) {
	src := `
func.func @main(%x: tensor<2xf32>, %h: tensor<2xf16>, %b: tensor<2xbf16>) -> (tensor<2xbf16>, tensor<2xf32>, tensor<2xf32>) {
  %c = arith.constant dense<[70000.0, 0.1]> : tensor<2xf32>
  %0 = arith.addf %x, %c : tensor<2xf32>
  %1 = arith.truncf %0 : tensor<2xf32> to tensor<2xbf16>
  %2 = arith.extf %h : tensor<2xf16> to tensor<2xf32>
  %3 = arith.extf %b : tensor<2xbf16> to tensor<2xf32>
  return %1, %2, %3 : tensor<2xbf16>, tensor<2xf32>, tensor<2xf32>
}`
	m := demoted(t, src, DemoteOptions{F32ToF16: true})
	if got, want := funcType(t, m, "main"), "(tensor<2xf16>, tensor<2xf16>, tensor<2xbf16>) -> (tensor<2xbf16>, tensor<2xf16>, tensor<2xf16>)"; got != want {
		t.Errorf("signature %s, want %s", got, want)
	}
	// 70000 is beyond f16: toward zero it is the largest finite f16.
	if got := constFloats(m); len(got) != 2 || got[0] != 65504 || got[1] != 0.0999755859375 {
		t.Errorf("constants %v", got)
	}
	// f16 → bf16 (the truncation, once f32 is f16) and bf16 → f16 (the
	// extension) go through f32.
	var casts []string
	m.Op.Walk(func(op *ir.Operation) bool {
		if op.Name == "arith.extf" || op.Name == "arith.truncf" {
			casts = append(casts, op.Name+" "+ir.ElementTypeOf(op.Operands[0].Type).String()+"->"+ir.ElementTypeOf(op.Results[0].Type).String())
		}
		return true
	})
	want := "arith.extf f16->f32,arith.truncf f32->bf16,arith.extf bf16->f32,arith.truncf f32->f16"
	if got := strings.Join(casts, ","); got != want {
		t.Errorf("casts %s, want %s\n%s", got, want, m)
	}

	m = demoted(t, src, DemoteOptions{F16ToF32: true, BF16ToF32: true})
	if got, want := funcType(t, m, "main"), "(tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)"; got != want {
		t.Errorf("promoted signature %s, want %s", got, want)
	}
	if n := len(opsNamed(m, "arith.extf")) + len(opsNamed(m, "arith.truncf")); n != 0 {
		t.Errorf("%d casts left after promotion:\n%s", n, m)
	}
}

// TestDemoteOrder: the conversions apply in IREE's order, so f64 → f32 →
// f16 with both demotions.
func TestDemoteOrder(t *testing.T) {
	src := `
func.func @main(%a: tensor<2xf64>, %b: tensor<2xf32>) -> (tensor<2xf64>, tensor<2xf32>) {
  return %a, %b : tensor<2xf64>, tensor<2xf32>
}`
	m := demoted(t, src, DemoteOptions{F64ToF32: true, F32ToF16: true})
	if got, want := funcType(t, m, "main"), "(tensor<2xf16>, tensor<2xf16>) -> (tensor<2xf16>, tensor<2xf16>)"; got != want {
		t.Errorf("signature %s, want %s", got, want)
	}
}

func TestDemoteErrors(t *testing.T) {
	cases := []struct {
		src  string
		opts DemoteOptions
		want string
	}{
		{`
func.func private @ext(f64) -> f64
func.func @main(%a: f64) -> f64 {
  %0 = func.call @ext(%a) : (f64) -> f64
  return %0 : f64
}`, DemoteOptions{F64ToF32: true}, "'func.func' op is an external function of type (f64) -> f64: --iree-input-demote-f64-to-f32 cannot change its signature"},
		{`
func.func @main(%a: f64) -> i64 {
  %0 = arith.bitcast %a : f64 to i64
  return %0 : i64
}`, DemoteOptions{F64ToF32: true}, "'arith.bitcast' op with --iree-input-demote-f64-to-f32 would bitcast f32 to i64 (different widths)"},
	}
	for _, c := range cases {
		err := demoteErr(t, c.src, c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "t.mlir:") {
			t.Errorf("got %v, want an error containing %q", err, c.want)
		}
	}
	// With both demotions the bitcast is f32 → i32 again.
	m := demoted(t, `
func.func @main(%a: f64) -> i64 {
  %0 = arith.bitcast %a : f64 to i64
  return %0 : i64
}`, DemoteOptions{F64ToF32: true, I64ToI32: true})
	if got, want := funcType(t, m, "main"), "(f32) -> i32"; got != want {
		t.Errorf("signature %s, want %s", got, want)
	}
}

func TestTowardZeroAndTruncInt(t *testing.T) {
	for _, c := range []struct {
		k    ir.FloatKind
		v, w float64
	}{
		{ir.KindF32, 0.1, float64(math.Nextafter32(0.1, 0))},
		{ir.KindF32, -0.1, -float64(math.Nextafter32(0.1, 0))},
		{ir.KindF32, 0.5, 0.5},
		{ir.KindF32, 1e-50, 0},
		{ir.KindF32, math.Inf(-1), math.Inf(-1)},
		{ir.KindF32, 1e39, math.MaxFloat32},
		{ir.KindF16, 65519, 65504},
		{ir.KindF16, -1e6, -65504},
		{ir.KindF16, 1.0009765625 + 1e-9, 1.0009765625},
		{ir.KindF16, 1.0019, 1.0009765625},
	} {
		if got := towardZero(c.k, c.v); got != c.w {
			t.Errorf("towardZero(%v, %v) = %v, want %v", c.k, c.v, got, c.w)
		}
	}
	if got := towardZero(ir.KindF32, math.NaN()); !math.IsNaN(got) {
		t.Errorf("NaN became %v", got)
	}
	si, ui, i := &ir.IntegerType{Width: 32, Signedness: ir.Signed}, &ir.IntegerType{Width: 32, Signedness: ir.Unsigned}, ir.I32
	for _, c := range []struct {
		v int64
		t *ir.IntegerType
		w int64
	}{
		{1 << 40, si, math.MaxInt32},
		{-1 << 40, si, math.MinInt32},
		{-5, si, -5},
		{-1, ui, math.MaxUint32}, // ui64 max saturates
		{1 << 40, ui, math.MaxUint32},
		{7, ui, 7},
		{1<<32 + 3, i, 3},
		{1 << 31, i, math.MinInt32},
	} {
		if got := truncInt(c.v, c.t); got != c.w {
			t.Errorf("truncInt(%d, %s) = %d, want %d", c.v, c.t, got, c.w)
		}
	}
}

// TestCheckTypes: the final consistency check catches ops whose types no
// longer agree.
func TestCheckTypes(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`func.func @f(%a: f32, %b: f64) -> f32 {
  %0 = "arith.addf"(%a, %b) : (f32, f64) -> f32
  return %0 : f32
}`, "'arith.addf' op mixes types f32 and f64"},
		{`func.func @g(%a: f64) -> f64 {
  return %a : f64
}
func.func @f(%a: f32) -> f32 {
  %0 = "func.call"(%a) {callee = @g} : (f32) -> f32
  return %0 : f32
}`, "'func.call' op does not match the type of its callee ((f64) -> f64)"},
		{`util.global private @v : tensor<2xf64>
func.func @f() -> tensor<2xf32> {
  %0 = "util.global.load"() {global = @v} : () -> tensor<2xf32>
  return %0 : tensor<2xf32>
}`, "'util.global.load' op has type tensor<2xf32>, but the global has type tensor<2xf64>"},
		{`func.func @f() -> f32 {
  %0 = "arith.constant"() {value = 1.0 : f64} : () -> f32
  return %0 : f32
}`, "'arith.constant' op has a value of type f64 but a result of type f32"},
	} {
		m, err := parser.Parse("t.mlir", []byte(c.src))
		if err != nil {
			t.Fatalf("parse: %v", err)
		}
		if err := checkTypes(m); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}
