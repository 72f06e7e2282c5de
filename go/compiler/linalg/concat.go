package linalg

import "github.com/gree-ml/gree/go/compiler/ir"

// ConcatName is tensor.concat, kept as an op (not a generic) when its
// pieces are contiguous byte ranges of its result (ContiguousConcat): the
// host program then allocates the result once and copies each piece into
// place, where a generic would select among all pieces for every element.
const ConcatName = "tensor.concat"

// ContiguousConcat reports whether op is a tensor.concat that the host
// program can write by copying each operand's bytes, in order, into its
// result: static shapes, every dimension before the concatenated one of
// size 1 (so each piece is one contiguous range), whole-byte element types
// and no empty piece. It returns the concatenated dimension.
func ContiguousConcat(op *ir.Operation) (int, bool) {
	if op.Name != ConcatName || len(op.Operands) == 0 || len(op.Results) != 1 {
		return 0, false
	}
	da, ok := op.Attr("dim").(*ir.IntegerAttr)
	if !ok {
		return 0, false
	}
	rt, ok := op.Results[0].Type.(*ir.RankedTensorType)
	d := int(da.Value)
	if !ok || !ir.HasStaticShape(rt) || d < 0 || d >= len(rt.Dims) || !byteSized(rt.Elem) {
		return 0, false
	}
	for i := 0; i < d; i++ {
		if rt.Dims[i] != 1 {
			return 0, false
		}
	}
	for _, v := range op.Operands {
		t, ok := v.Type.(*ir.RankedTensorType)
		if !ok || !ir.HasStaticShape(t) || len(t.Dims) != len(rt.Dims) || t.Dims[d] == 0 {
			return 0, false
		}
	}
	return d, true
}

// ContiguousConcatOf builds tensor.concat of ins along d into rt when
// ContiguousConcat would keep it, else returns nil (the caller builds its
// generic form).
func ContiguousConcatOf(b *ir.Builder, ins []*ir.Value, d int, rt *ir.RankedTensorType) *ir.Value {
	op := ir.NewOperation(&ir.OperationState{Name: ConcatName, Loc: b.Loc, Operands: ins, ResultTypes: []ir.Type{rt},
		Attrs: []ir.NamedAttr{ir.Named("dim", ir.IntAttr(int64(d), ir.I64))}})
	if _, ok := ContiguousConcat(op); !ok || len(ins) < 2 {
		return nil
	}
	return b.Insert(op).Result(0)
}

// byteSized reports element types stored as whole bytes of 1, 2, 4 or 8
// (not i1, sub-byte or complex types).
func byteSized(t ir.Type) bool {
	switch e := t.(type) {
	case *ir.IntegerType:
		return e.Width == 8 || e.Width == 16 || e.Width == 32 || e.Width == 64
	case *ir.FloatType:
		w := e.Kind.Width()
		return w == 8 || w == 16 || w == 32 || w == 64
	}
	return false
}
