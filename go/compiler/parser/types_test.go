package parser

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gree-ml/gree/go/compiler/ir"
)

func TestParseTypeRoundTrip(t *testing.T) {
	cases := []struct{ in, want string }{
		{"i1", "i1"}, {"si8", "si8"}, {"ui64", "ui64"}, {"i128", "i128"}, {"index", "index"}, {"none", "none"},
		{"f16", "f16"}, {"bf16", "bf16"}, {"f64", "f64"}, {"f8E4M3FNUZ", "f8E4M3FNUZ"}, {"f4E2M1FN", "f4E2M1FN"},
		{"complex<f32>", "complex<f32>"},
		{"tensor<2x?x3xf32>", "tensor<2x?x3xf32>"},
		{"tensor< 2 x 3 x f32 >", "tensor<2x3xf32>"},
		{"tensor<0xf32>", "tensor<0xf32>"},
		{"tensor<f32>", "tensor<f32>"},
		{"tensor<*xi8>", "tensor<*xi8>"},
		{"tensor<4xf32, #enc.x<1>>", "tensor<4xf32, #enc.x<1>>"},
		{"tensor<2xcomplex<f64>>", "tensor<2xcomplex<f64>>"},
		{"vector<[4]x8xf32>", "vector<[4]x8xf32>"},
		{"vector<i1>", "vector<i1>"},
		{"memref<4x?xf32, 1>", "memref<4x?xf32, 1>"},
		{"memref<*xf32, 3>", "memref<*xf32, 3>"},
		{"memref<4xf32, affine_map<(d0) -> (d0 + 1)>>", "memref<4xf32, affine_map<(d0) -> (d0 + 1)>>"},
		{"tuple<>", "tuple<>"},
		{"tuple<i32, tensor<2xf32>>", "tuple<i32, tensor<2xf32>>"},
		{"() -> ()", "() -> ()"},
		{"(i32) -> (f32)", "(i32) -> f32"},
		{"(i32, f32) -> (f32, i32)", "(i32, f32) -> (f32, i32)"},
		{"(i32) -> ((i32) -> i32)", "(i32) -> ((i32) -> i32)"},
		{"!hal.buffer_view", "!hal.buffer_view"},
		{"!torch.vtensor<[1,3],f32>", "!torch.vtensor<[1,3],f32>"},
		{"!foo.bar<\"a>b\", (i32) -> i32>", "!foo.bar<\"a>b\", (i32) -> i32>"},
	}
	for _, c := range cases {
		got, err := ParseType(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if got.String() != c.want {
			t.Errorf("%s: printed %s, want %s", c.in, got, c.want)
		}
		again, err := ParseType(got.String())
		if err != nil || !again.Equal(got) {
			t.Errorf("%s: reparse gives %v, %v", c.in, again, err)
		}
	}
}

func TestParseTypeStructure(t *testing.T) {
	tt, err := ParseType("tensor<2x?xf32>")
	if err != nil {
		t.Fatal(err)
	}
	rt := tt.(*ir.RankedTensorType)
	if diff := cmp.Diff([]int64{2, ir.DynamicSize}, rt.Dims); diff != "" {
		t.Error(diff)
	}
	if !rt.Elem.Equal(ir.F32) || ir.HasStaticShape(rt) {
		t.Errorf("elem %s static %v", rt.Elem, ir.HasStaticShape(rt))
	}
	vt, _ := ParseType("vector<4x[8]xi8>")
	if diff := cmp.Diff([]bool{false, true}, vt.(*ir.VectorType).Scalable); diff != "" {
		t.Error(diff)
	}
	mt, _ := ParseType("memref<4xf32, strided<[1], offset: 2>, #gpu.address_space<workgroup>>")
	m := mt.(*ir.MemRefType)
	if m.Layout.String() != "strided<[1], offset: 2>" || m.MemorySpace.String() != "#gpu.address_space<workgroup>" {
		t.Errorf("memref layout %v space %v", m.Layout, m.MemorySpace)
	}
	ot, _ := ParseType("!hal.buffer_view")
	if ot.(*ir.OpaqueType).Dialect() != "hal" {
		t.Errorf("dialect %q", ot.(*ir.OpaqueType).Dialect())
	}
	if a, b := mustType(t, "tensor<4xf32>"), mustType(t, "tensor<4xf16>"); a.Equal(b) {
		t.Error("tensor<4xf32> equals tensor<4xf16>")
	}
}

func mustType(t *testing.T, s string) ir.Type {
	t.Helper()
	ty, err := ParseType(s)
	if err != nil {
		t.Fatal(err)
	}
	return ty
}

func TestTypeAliases(t *testing.T) {
	m, err := Parse("a.mlir", []byte("!t = tensor<4xf32>\n!u = tuple<!t, !t>\n\"t.t\"() : () -> (!t, !u)"))
	if err != nil {
		t.Fatal(err)
	}
	res := m.Body().Ops[0].Results
	if res[0].Type.String() != "tensor<4xf32>" || res[1].Type.String() != "tuple<tensor<4xf32>, tensor<4xf32>>" {
		t.Errorf("got %s, %s", res[0].Type, res[1].Type)
	}
}
