package stablehlo

import (
	"strings"

	"github.com/gree-ml/gree/go/compiler/ir"
)

// hlo builds StableHLO ops (in their generic-form attributes) at b.
type hlo struct {
	b    *ir.Builder
	elem ir.Type
}

func (h hlo) op(name string, ins []*ir.Value, t ir.Type, attrs ...ir.NamedAttr) *ir.Value {
	return h.b.Create("stablehlo."+name, ins, []ir.Type{t}, attrs...).Result(0)
}

func (h hlo) zeros(dims ...int64) *ir.Value {
	t := ir.Tensor(dims, h.elem)
	return h.op("constant", nil, t, ir.Named("value", ir.DenseSplat(t, 0.0)))
}

func (h hlo) i32(v int64) *ir.Value {
	t := ir.Tensor([]int64{}, ir.I32)
	return h.op("constant", nil, t, ir.Named("value", &ir.DenseElementsAttr{Type: t, Ints: []int64{v}}))
}

// indexTensor turns the loop index into a tensor<i32>.
func (h hlo) indexTensor(i *ir.Value) *ir.Value {
	x := h.b.Create("arith.index_cast", []*ir.Value{i}, []ir.Type{ir.I32}).Result(0)
	return h.b.Create("tensor.from_elements", []*ir.Value{x}, []ir.Type{ir.Tensor([]int64{}, ir.I32)}).Result(0)
}

func (h hlo) slice(x *ir.Value, at []*ir.Value, sizes ...int64) *ir.Value {
	return h.op("dynamic_slice", append([]*ir.Value{x}, at...), ir.Tensor(sizes, ir.ElementTypeOf(x.Type)),
		ir.Named("slice_sizes", ir.I64Array(sizes...)))
}

func (h hlo) reshape(x *ir.Value, dims ...int64) *ir.Value {
	return h.op("reshape", []*ir.Value{x}, ir.Tensor(dims, ir.ElementTypeOf(x.Type)))
}

func (h hlo) transpose(x *ir.Value) *ir.Value {
	d := x.Type.(*ir.RankedTensorType).Dims
	return h.op("transpose", []*ir.Value{x}, ir.Tensor([]int64{d[1], d[0]}, ir.ElementTypeOf(x.Type)),
		ir.Named("permutation", ir.I64Array(1, 0)))
}

func (h hlo) bcast(x *ir.Value, dims []int64, to ...int64) *ir.Value {
	return h.op("broadcast_in_dim", []*ir.Value{x}, ir.Tensor(to, ir.ElementTypeOf(x.Type)),
		ir.Named("broadcast_dimensions", ir.I64Array(dims...)))
}

// dot contracts dimension lc of a with dimension rc of b.
func (h hlo) dot(a, b *ir.Value, lc, rc int64, res ...int64) *ir.Value {
	dn := &ir.OpaqueAttr{Text: "#stablehlo.dot<lhs_contracting_dimensions = " + formatList(lc) +
		", rhs_contracting_dimensions = " + formatList(rc) + ">"}
	return h.op("dot_general", []*ir.Value{a, b}, ir.Tensor(res, h.elem), ir.Named("dot_dimension_numbers", dn))
}

func (h hlo) bin(name string, a, b *ir.Value) *ir.Value { return h.op(name, []*ir.Value{a, b}, a.Type) }

func (h hlo) cmp(dir, kind string, a, b *ir.Value) *ir.Value {
	return h.op("compare", []*ir.Value{a, b}, ir.WithElementType(a.Type, ir.I1),
		ir.Named("comparison_direction", &ir.OpaqueAttr{Text: "#stablehlo<comparison_direction " + dir + ">"}),
		ir.Named("compare_type", &ir.OpaqueAttr{Text: "#stablehlo<comparison_type " + kind + ">"}))
}

func (h hlo) sel(p, a, b *ir.Value) *ir.Value { return h.op("select", []*ir.Value{p, a, b}, a.Type) }

func (h hlo) iota(dim int64, dims ...int64) *ir.Value {
	return h.op("iota", nil, ir.Tensor(dims, ir.I32), ir.Named("iota_dimension", ir.IntAttr(dim, ir.I64)))
}

func formatList(v int64) string { return formatInt64s([]int64{v}) }

func formatInt64s(vs []int64) string {
	var sb strings.Builder
	sb.WriteString("[")
	for i, v := range vs {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(ir.FormatInt(v, ir.I64))
	}
	sb.WriteString("]")
	return sb.String()
}

func (h hlo) zerosLike(v *ir.Value) *ir.Value {
	return h.zeros(v.Type.(*ir.RankedTensorType).Dims...)
}

// scalar is a rank-0 constant of the element type.
func (h hlo) scalar(v float64) *ir.Value {
	t := ir.Tensor([]int64{}, h.elem)
	return h.op("constant", nil, t, ir.Named("value", ir.DenseSplat(t, v)))
}

// reduce reduces a 1-D tensor to a scalar with the binary op name.
func (h hlo) reduce(name string, x, init *ir.Value) *ir.Value {
	et := init.Type
	r := h.b.CreateWithRegions("stablehlo.reduce", []*ir.Value{x, init}, []ir.Type{et}, 1, ir.Named("dimensions", ir.I64Array(0)))
	blk := ir.NewBlock()
	p, q := blk.AddArgument(et, h.b.Loc), blk.AddArgument(et, h.b.Loc)
	r.Regions[0].AddBlock(blk)
	bb := ir.AtEnd(blk, h.b.Loc)
	v := bb.Create("stablehlo."+name, []*ir.Value{p, q}, []ir.Type{et}).Result(0)
	bb.Create("stablehlo.return", []*ir.Value{v}, nil)
	return r.Result(0)
}
