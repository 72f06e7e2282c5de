package linalg

import (
	"github.com/gree-ml/gree/go/compiler/ir"
)

// BodyFunc builds a generic's body: args are the block arguments (one
// scalar per operand, inputs first); it returns the values to yield.
type BodyFunc func(b *ir.Builder, args []*ir.Value) []*ir.Value

// BuildGeneric creates a linalg.generic at b's insertion point.
func BuildGeneric(b *ir.Builder, inputs, outputs []*ir.Value, maps []*ir.AffineMap, its []Iterator, body BodyFunc) *ir.Operation {
	mapAttrs := make([]ir.Attribute, len(maps))
	for i, m := range maps {
		mapAttrs[i] = &ir.AffineMapAttr{Map: m}
	}
	itAttrs := make([]ir.Attribute, len(its))
	for i, it := range its {
		itAttrs[i] = &ir.OpaqueAttr{Text: "#linalg.iterator_type<" + it.String() + ">"}
	}
	var results []ir.Type
	for _, o := range outputs {
		results = append(results, o.Type)
	}
	operands := append(append([]*ir.Value{}, inputs...), outputs...)
	op := b.CreateWithRegions(GenericName, operands, results, 1,
		ir.Named("indexing_maps", ir.Array(mapAttrs...)),
		ir.Named("iterator_types", ir.Array(itAttrs...)),
		ir.Named("operandSegmentSizes", &ir.DenseArrayAttr{Elem: ir.Int(32), Ints: []int64{int64(len(inputs)), int64(len(outputs))}}),
	)
	blk := ir.NewBlock()
	op.Regions[0].AddBlock(blk)
	var args []*ir.Value
	for _, v := range operands {
		args = append(args, blk.AddArgument(ir.ElementTypeOf(v.Type), b.Loc))
	}
	bb := ir.AtEnd(blk, b.Loc)
	ys := body(bb, args)
	bb.Create("linalg.yield", ys, nil)
	return op
}

// CloneBody returns a BodyFunc that clones body (a generic's region with
// one yielded value) onto the new generic's arguments, in order.
func CloneBody(body *ir.Block) BodyFunc {
	return func(b *ir.Builder, args []*ir.Value) []*ir.Value {
		m := ir.Mapping{}
		for k, a := range body.Args {
			m[a] = args[k]
		}
		for _, o := range body.Ops {
			if o.Name == "linalg.yield" {
				return []*ir.Value{m.Lookup(o.Operands[0])}
			}
			b.Clone(o, m)
		}
		return nil
	}
}

// EmptyLike creates a tensor.empty with the shape of v (using tensor.dim
// for dynamic dimensions) and element type elem.
func EmptyLike(b *ir.Builder, v *ir.Value, elem ir.Type) *ir.Value {
	t := v.Type.(*ir.RankedTensorType)
	var dyn []*ir.Value
	for i, d := range t.Dims {
		if d < 0 {
			dyn = append(dyn, Dim(b, v, i))
		}
	}
	return b.Create("tensor.empty", dyn, []ir.Type{ir.Tensor(t.Dims, elem)}).Result(0)
}

// Dim creates tensor.dim %v, i.
func Dim(b *ir.Builder, v *ir.Value, i int) *ir.Value {
	c := b.Constant(ir.IntAttr(int64(i), ir.Index))
	return b.Create("tensor.dim", []*ir.Value{v, c}, []ir.Type{ir.Index}).Result(0)
}
