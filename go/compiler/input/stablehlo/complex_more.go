package stablehlo

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// realPart reads component comp (0 real, 1 imaginary) of a pair tensor
// (or a real tensor itself, whose imaginary part is zero).
func (r *rewriter) realPart(b *ir.Builder, v *ir.Value, comp int64) *ir.Value {
	t := v.Type.(*ir.RankedTensorType)
	if !r.Pairs[v] {
		if comp == 0 {
			return v
		}
		return zeroFilled(b, t)
	}
	n := len(t.Dims) - 1
	rt := ir.Tensor(t.Dims[:n], t.Elem)
	re, im := pairMaps(n, n)
	m := re
	if comp == 1 {
		m = im
	}
	out := b.Create("tensor.empty", nil, []ir.Type{rt}).Result(0)
	return linalg.BuildGeneric(b, []*ir.Value{v}, []*ir.Value{out}, []*ir.AffineMap{m, linalg.Identity(n)}, core.Parallel(n), core.YieldArg(0, rt)).Result(0)
}

// pairOfParts interleaves real and imaginary tensors into a pair tensor.
func pairOfParts(b *ir.Builder, re, im *ir.Value) *ir.Value {
	t := re.Type.(*ir.RankedTensorType)
	n := len(t.Dims)
	pt := ir.Tensor(append(append([]int64{}, t.Dims...), 2), t.Elem)
	out := b.Create("tensor.empty", nil, []ir.Type{pt}).Result(0)
	in := linalg.DimMap(n+1, seq(n)...)
	return linalg.BuildGeneric(b, []*ir.Value{re, im}, []*ir.Value{out}, []*ir.AffineMap{in, in, linalg.Identity(n + 1)}, core.Parallel(n+1), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		first := core.CmpI(bb, core.PredEQ, core.LoopIndex(bb, n), bb.Constant(ir.IntAttr(0, ir.Index)))
		return []*ir.Value{bb.Create("arith.select", []*ir.Value{first, a[0], a[1]}, []ir.Type{t.Elem}).Result(0)}
	}).Result(0)
}

// complexDot is a complex dot/dot_general as four real ones:
// (ar·br − ai·bi) + i(ar·bi + ai·br).
func (r *rewriter) complexDot(b *ir.Builder, op *ir.Operation) error {
	rt, et, ok := complexTensor(op.Results[0].Type)
	if !ok || !ir.HasStaticShape(rt) {
		return ir.OpErrorf(op, "needs a static complex result")
	}
	realT := ir.Tensor(rt.Dims, et)
	lr, li := r.realPart(b, op.Operands[0], 0), r.realPart(b, op.Operands[0], 1)
	rr, ri := r.realPart(b, op.Operands[1], 0), r.realPart(b, op.Operands[1], 1)
	var dots []*ir.Operation
	mk := func(x, y *ir.Value) *ir.Value {
		d := b.Create(op.Name, []*ir.Value{x, y}, []ir.Type{realT}, op.Attrs...)
		dots = append(dots, d)
		return d.Result(0)
	}
	rrr, iii, rri, irr := mk(lr, rr), mk(li, ri), mk(lr, ri), mk(li, rr)
	n := len(rt.Dims)
	id := linalg.Identity(n)
	comb := func(x, y *ir.Value, name string) *ir.Value {
		out := b.Create("tensor.empty", nil, []ir.Type{realT}).Result(0)
		return linalg.BuildGeneric(b, []*ir.Value{x, y}, []*ir.Value{out}, []*ir.AffineMap{id, id, id}, core.Parallel(n), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
			return []*ir.Value{bb.Create(name, a[:2], []ir.Type{et}).Result(0)}
		}).Result(0)
	}
	res := pairOfParts(b, comb(rrr, iii, "arith.subf"), comb(rri, irr, "arith.addf"))
	r.replacePairs(op, []*ir.Value{res})
	// Convert the real dots in place; their users (above) follow.
	for _, d := range dots {
		db := ir.NewBuilder(d.Loc)
		db.SetInsertionPointBefore(d)
		if err := r.stablehlo(db, d); err != nil {
			return err
		}
	}
	return nil
}

// complexReduce converts a reduce of one complex operand whose body is
// made of complex element-wise ops (sums, products, …): a generic with
// two outputs, the real and imaginary accumulators, so each step sees
// whole complex values; the two are then interleaved into a pair.
func (r *rewriter) complexReduce(b *ir.Builder, op *ir.Operation) error {
	blk := core.RegionBlock(op)
	rt, et, ok := complexTensor(op.Results[0].Type)
	if !ok || blk == nil || len(op.Operands) != 2 || len(op.Results) != 1 || len(blk.Args) != 2 || !ir.HasStaticShape(rt) {
		return ir.OpErrorf(op, "with complex elements is supported by gree for one operand and static shapes only")
	}
	for _, o := range blk.Ops {
		name := trimHLO(o.Name)
		if o.Name != "stablehlo.return" && !complexScalarKnown(name, len(o.Operands)) {
			return ir.OpErrorf(o, "in a complex reduction body is not supported by gree yet")
		}
	}
	in, init := op.Operands[0], op.Operands[1]
	it := in.Type.(*ir.RankedTensorType) // pair tensor
	n := len(it.Dims) - 1
	red := map[int]bool{}
	for _, d := range core.IntsOf(op, "dimensions") {
		red[int(d)] = true
	}
	om := &ir.AffineMap{NumDims: n}
	its := make([]linalg.Iterator, n)
	for i := 0; i < n; i++ {
		if red[i] {
			its[i] = linalg.Reduction
		} else {
			om.Results = append(om.Results, &ir.AffineDimExpr{Pos: i})
		}
	}
	realT := ir.Tensor(rt.Dims, et)
	k := len(rt.Dims)
	fillPart := func(comp int64) *ir.Value {
		part := r.realPart(b, init, comp) // rank 0
		e := b.Create("tensor.empty", nil, []ir.Type{realT}).Result(0)
		return linalg.BuildGeneric(b, []*ir.Value{part}, []*ir.Value{e}, []*ir.AffineMap{{NumDims: k}, linalg.Identity(k)}, core.Parallel(k), core.YieldArg(0, realT)).Result(0)
	}
	re, im := pairMaps(n, n)
	var err error
	g := linalg.BuildGeneric(b, []*ir.Value{in, in}, []*ir.Value{fillPart(0), fillPart(1)}, []*ir.AffineMap{re, im, om, om}, its,
		func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
			f := fb{bb, et}
			vals := map[*ir.Value]complexValue{blk.Args[0]: {a[2], a[3]}, blk.Args[1]: {a[0], a[1]}}
			for _, o := range blk.Ops {
				var xs []complexValue
				for _, v := range o.Operands {
					xs = append(xs, vals[v])
				}
				if o.Name == "stablehlo.return" {
					return []*ir.Value{xs[0].re, xs[0].im}
				}
				y, ok := f.complexScalar(trimHLO(o.Name), xs)
				if !ok || y.re == nil || y.im == nil {
					err = ir.OpErrorf(o, "in a complex reduction body is not supported by gree yet")
					return a[2:]
				}
				vals[o.Results[0]] = y
			}
			err = ir.OpErrorf(op, "has a body without stablehlo.return")
			return a[2:]
		})
	if err != nil {
		return err
	}
	r.replacePairs(op, []*ir.Value{pairOfParts(b, g.Result(0), g.Result(1))})
	return nil
}

// complexPad pads the real and imaginary parts separately (stablehlo.pad
// takes a scalar padding value, which a pair is not).
func (r *rewriter) complexPad(b *ir.Builder, op *ir.Operation) error {
	rt, et, ok := complexTensor(op.Results[0].Type)
	if !ok || len(op.Operands) != 2 {
		return ir.OpErrorf(op, "needs a complex operand and padding value")
	}
	realT := ir.Tensor(rt.Dims, et)
	var pads []*ir.Operation
	part := func(comp int64) *ir.Value {
		p := b.Create(op.Name, []*ir.Value{r.realPart(b, op.Operands[0], comp), r.realPart(b, op.Operands[1], comp)}, []ir.Type{realT}, op.Attrs...)
		pads = append(pads, p)
		return p.Result(0)
	}
	re, im := part(0), part(1)
	r.replacePairs(op, []*ir.Value{pairOfParts(b, re, im)})
	for _, p := range pads {
		pb := ir.NewBuilder(p.Loc)
		pb.SetInsertionPointBefore(p)
		if err := r.stablehlo(pb, p); err != nil {
			return err
		}
	}
	return nil
}

// componentwiseOps move complex data without mixing the components: the
// op runs on the real and the imaginary parts separately.
var componentwiseOps = map[string]bool{
	"stablehlo.gather": true, "stablehlo.dynamic_gather": true, "stablehlo.dynamic_slice": true,
	"stablehlo.dynamic_update_slice": true, "stablehlo.torch_index_select": true,
	"stablehlo.real_dynamic_slice": true, "stablehlo.dynamic_broadcast_in_dim": true,
	"stablehlo.dynamic_reshape": true, "stablehlo.dynamic_pad": true,
}

// complexComponentwise runs op once per component: pair operands become
// their real or imaginary part, complex results real ones.
func (r *rewriter) complexComponentwise(b *ir.Builder, op *ir.Operation) error {
	rt, et, ok := complexTensor(op.Results[0].Type)
	if !ok || len(op.Results) != 1 || len(op.Regions) != 0 || !ir.HasStaticShape(rt) {
		return ir.OpErrorf(op, "with complex elements is not supported by gree yet (static shapes only)")
	}
	var parts []*ir.Operation
	part := func(comp int64) *ir.Value {
		var ops []*ir.Value
		for _, v := range op.Operands {
			if r.Pairs[v] {
				v = r.realPart(b, v, comp)
			}
			ops = append(ops, v)
		}
		p := b.Create(op.Name, ops, []ir.Type{ir.Tensor(rt.Dims, et)}, op.Attrs...)
		parts = append(parts, p)
		return p.Result(0)
	}
	re, im := part(0), part(1)
	r.replacePairs(op, []*ir.Value{pairOfParts(b, re, im)})
	for _, p := range parts {
		pb := ir.NewBuilder(p.Loc)
		pb.SetInsertionPointBefore(p)
		if err := r.stablehlo(pb, p); err != nil {
			return err
		}
	}
	return nil
}
