package core

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// dimsOf returns the sizes of tensor v as mixed values.
func dimsOf(b *ir.Builder, v *ir.Value) []Mixed {
	t := v.Type.(*ir.RankedTensorType)
	out := make([]Mixed, len(t.Dims))
	for i, d := range t.Dims {
		if d >= 0 {
			out[i] = Mixed{Static: d}
		} else {
			out[i] = Mixed{Dyn: linalg.Dim(b, v, i)}
		}
	}
	return out
}

// Ones returns n static sizes (or strides) of 1.
func Ones(n int) []Mixed {
	out := make([]Mixed, n)
	for i := range out {
		out[i] = Mixed{Static: 1}
	}
	return out
}

// EmptyFor creates a tensor.empty of result type t; dynamic sizes come
// from size(i) for each dynamic dimension i.
func EmptyFor(b *ir.Builder, t *ir.RankedTensorType, size func(i int) *ir.Value) *ir.Value {
	var dyn []*ir.Value
	for i, d := range t.Dims {
		if d < 0 {
			dyn = append(dyn, size(i))
		}
	}
	return b.Create("tensor.empty", dyn, []ir.Type{t}).Result(0)
}

func (r *Rewriter) pad(b *ir.Builder, op *ir.Operation) error {
	seg := segments(op)
	if len(seg) != 3 {
		return ir.OpErrorf(op, "has malformed operands")
	}
	src := seg[0][0]
	low, ok1 := mixedList(op, "static_low", seg[1])
	high, ok2 := mixedList(op, "static_high", seg[2])
	blk := RegionBlock(op)
	if !ok1 || !ok2 || blk == nil {
		return ir.OpErrorf(op, "has malformed padding")
	}
	rt := op.Results[0].Type.(*ir.RankedTensorType)
	sizes := dimsOf(b, src)
	out := EmptyFor(b, rt, func(i int) *ir.Value {
		s := BinOp(b, "arith.addi", idx(b, sizes[i]), idx(b, low[i]))
		return BinOp(b, "arith.addi", s, idx(b, high[i]))
	})
	g := PlaceInto(b, out, src, nil, low, Ones(len(low)), sizes, func(bb *ir.Builder, _ []*ir.Value, ix []*ir.Value) *ir.Value {
		return cloneBody(bb, blk, ix)[0]
	})
	r.Replace(op, g.Results)
	return nil
}

// Concat converts tensor.concat: each non-empty operand is placed into
// the result at its offset along the concatenated dimension. A concat
// whose pieces are contiguous ranges of its result stays (the host
// program copies them into place: linalg.ContiguousConcat).
func (r *Rewriter) Concat(b *ir.Builder, op *ir.Operation) error {
	if _, ok := linalg.ContiguousConcat(op); ok {
		return nil
	}
	da, ok := op.Attr("dim").(*ir.IntegerAttr)
	if !ok || len(op.Operands) == 0 {
		return ir.OpErrorf(op, "needs a dimension and inputs")
	}
	d := int(da.Value)
	rt := op.Results[0].Type.(*ir.RankedTensorType)
	first := op.Operands[0]
	acc := EmptyFor(b, rt, func(i int) *ir.Value {
		if i != d {
			return linalg.Dim(b, first, i)
		}
		var sum *ir.Value
		for _, v := range op.Operands {
			s := idx(b, dimsOf(b, v)[d])
			if sum == nil {
				sum = s
			} else {
				sum = BinOp(b, "arith.addi", sum, s)
			}
		}
		return sum
	})
	off := Mixed{Static: 0}
	for _, v := range op.Operands {
		if hasStaticZeroDim(v.Type) {
			// An empty piece adds nothing (and its kernel would read
			// element 0 of an empty buffer).
			continue
		}
		offs := make([]Mixed, len(rt.Dims))
		for i := range offs {
			offs[i] = Mixed{Static: 0}
		}
		offs[d] = off
		sizes := dimsOf(b, v)
		g := PlaceInto(b, linalg.EmptyLike(b, acc, rt.Elem), v, []*ir.Value{acc}, offs, Ones(len(offs)), sizes,
			func(bb *ir.Builder, args []*ir.Value, _ []*ir.Value) *ir.Value { return args[0] })
		acc = g.Result(0)
		if off.Dyn == nil && sizes[d].Dyn == nil {
			off = Mixed{Static: off.Static + sizes[d].Static}
		} else {
			off = Mixed{Dyn: BinOp(b, "arith.addi", idx(b, off), idx(b, sizes[d]))}
		}
	}
	r.Replace(op, []*ir.Value{acc})
	return nil
}

func (r *Rewriter) splat(b *ir.Builder, op *ir.Operation) error {
	rt := op.Results[0].Type.(*ir.RankedTensorType)
	out := b.Create("tensor.empty", op.Operands[1:], []ir.Type{rt}).Result(0)
	n := len(rt.Dims)
	g := linalg.BuildGeneric(b, op.Operands[:1], []*ir.Value{out}, []*ir.AffineMap{{NumDims: n}, linalg.Identity(n)}, Parallel(n), YieldArg(0, rt))
	r.Replace(op, g.Results)
	return nil
}

func (r *Rewriter) generate(b *ir.Builder, op *ir.Operation) error {
	rt := op.Results[0].Type.(*ir.RankedTensorType)
	blk := RegionBlock(op)
	if blk == nil {
		return ir.OpErrorf(op, "has no body")
	}
	out := b.Create("tensor.empty", op.Operands, []ir.Type{rt}).Result(0)
	n := len(rt.Dims)
	g := linalg.BuildGeneric(b, nil, []*ir.Value{out}, []*ir.AffineMap{linalg.Identity(n)}, Parallel(n), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
		var ix []*ir.Value
		for j := 0; j < n; j++ {
			ix = append(ix, LoopIndex(bb, j))
		}
		return cloneBody(bb, blk, ix)
	})
	r.Replace(op, g.Results)
	return nil
}

// hasStaticZeroDim reports a ranked tensor type with a static size-0
// dimension (a tensor with no elements).
func hasStaticZeroDim(t ir.Type) bool {
	rt, ok := t.(*ir.RankedTensorType)
	if !ok {
		return false
	}
	for _, d := range rt.Dims {
		if d == 0 {
			return true
		}
	}
	return false
}

// ForLoop builds scf.for i = 0 to n carrying inits; body returns the
// next values of the carried ones.
func ForLoop(b *ir.Builder, n int64, inits []*ir.Value, body func(bb *ir.Builder, i *ir.Value, carried []*ir.Value) []*ir.Value) []*ir.Value {
	c := func(v int64) *ir.Value { return b.Constant(ir.IntAttr(v, ir.Index)) }
	var ts []ir.Type
	for _, v := range inits {
		ts = append(ts, v.Type)
	}
	loop := b.CreateWithRegions("scf.for", append([]*ir.Value{c(0), c(n), c(1)}, inits...), ts, 1)
	blk := ir.NewBlock()
	iv := blk.AddArgument(ir.Index, b.Loc)
	var carried []*ir.Value
	for _, t := range ts {
		carried = append(carried, blk.AddArgument(t, b.Loc))
	}
	loop.Regions[0].AddBlock(blk)
	bb := ir.AtEnd(blk, b.Loc)
	bb.Create("scf.yield", body(bb, iv, carried), nil)
	return loop.Results
}
