package core

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// softmax decomposes linalg.softmax along dimension d into
// max-reduce, exp(x - max), sum-reduce and a division.
func (r *Rewriter) softmax(b *ir.Builder, op *ir.Operation, ins, outs []*ir.Value) error {
	da, ok := op.Attr("dimension").(*ir.IntegerAttr)
	if !ok || len(ins) != 1 {
		return ir.OpErrorf(op, "needs one input and a dimension")
	}
	x := ins[0]
	xt := x.Type.(*ir.RankedTensorType)
	ft, ok := xt.Elem.(*ir.FloatType)
	if !ok {
		return ir.OpErrorf(op, "needs floating-point elements")
	}
	d := int(da.Value)
	n := len(xt.Dims)
	if d < 0 || d >= n {
		return ir.OpErrorf(op, "dimension %d is out of range", d)
	}
	// The reduced shape and its init tensors.
	var rdims []int64
	var dyn []*ir.Value
	redMap := &ir.AffineMap{NumDims: n}
	its := make([]linalg.Iterator, n)
	for i, s := range xt.Dims {
		if i == d {
			its[i] = linalg.Reduction
			continue
		}
		rdims = append(rdims, s)
		redMap.Results = append(redMap.Results, &ir.AffineDimExpr{Pos: i})
		if s < 0 {
			dyn = append(dyn, linalg.Dim(b, x, i))
		}
	}
	rt := ir.Tensor(rdims, ft)
	filled := func(v float64) *ir.Value {
		e := b.Create("tensor.empty", dyn, []ir.Type{rt}).Result(0)
		c := b.Constant(ir.FloatAttrOf(v, ft))
		rn := len(rdims)
		return linalg.BuildGeneric(b, []*ir.Value{c}, []*ir.Value{e}, []*ir.AffineMap{{NumDims: rn}, linalg.Identity(rn)}, Parallel(rn), YieldArg(0, rt)).Result(0)
	}
	id := linalg.Identity(n)
	bin := func(name string) linalg.BodyFunc {
		return func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
			return []*ir.Value{bb.Create(name, []*ir.Value{a[1], a[0]}, []ir.Type{ft}).Result(0)}
		}
	}
	mx := linalg.BuildGeneric(b, []*ir.Value{x}, []*ir.Value{filled(math.Inf(-1))}, []*ir.AffineMap{id, redMap}, its, bin("arith.maximumf")).Result(0)
	empty := linalg.EmptyLike(b, x, ft)
	ex := linalg.BuildGeneric(b, []*ir.Value{x, mx}, []*ir.Value{empty}, []*ir.AffineMap{id, redMap, id}, Parallel(n), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		s := bb.Create("arith.subf", []*ir.Value{a[0], a[1]}, []ir.Type{ft}).Result(0)
		return []*ir.Value{bb.Create("math.exp", []*ir.Value{s}, []ir.Type{ft}).Result(0)}
	}).Result(0)
	sum := linalg.BuildGeneric(b, []*ir.Value{ex}, []*ir.Value{filled(0)}, []*ir.AffineMap{id, redMap}, its, bin("arith.addf")).Result(0)
	res := linalg.BuildGeneric(b, []*ir.Value{ex, sum}, outs[:1], []*ir.AffineMap{id, redMap, id}, Parallel(n), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		return []*ir.Value{bb.Create("arith.divf", []*ir.Value{a[0], a[1]}, []ir.Type{ft}).Result(0)}
	})
	r.Replace(op, res.Results)
	return nil
}
