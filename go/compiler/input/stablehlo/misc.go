package stablehlo

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// hloReducePrecision rounds floats to exponent_bits/mantissa_bits as XLA
// does: round the mantissa to nearest even, then flush exponents below
// the format's range to signed zero and above it to signed infinity; NaN
// stays NaN. f16/bf16 go through f32 (exact: the reduced value fits).
func (r *rewriter) hloReducePrecision(b *ir.Builder, op *ir.Operation) error {
	eb, ok1 := op.Attr("exponent_bits").(*ir.IntegerAttr)
	mb, ok2 := op.Attr("mantissa_bits").(*ir.IntegerAttr)
	ft, ok3 := ir.ElementTypeOf(op.Operands[0].Type).(*ir.FloatType)
	if !ok1 || !ok2 || !ok3 || eb.Value < 1 || mb.Value < 0 {
		return ir.OpErrorf(op, "needs float elements, exponent_bits ≥ 1 and mantissa_bits ≥ 0")
	}
	work := ir.F32
	srcExp, srcMant := int64(8), int64(23)
	if ft.Kind == ir.KindF64 {
		work, srcExp, srcMant = ir.F64, 11, 52
	} else if ft.Kind != ir.KindF32 && ft.Kind != ir.KindF16 && ft.Kind != ir.KindBF16 {
		return ir.OpErrorf(op, "on %v elements is not supported by gree", ft)
	}
	nbits := 1 + srcExp + srcMant
	it := &ir.IntegerType{Width: int(nbits)}
	return r.hloGeneric(b, op, func(bb *ir.Builder, args []*ir.Value, elem ir.Type) *ir.Value {
		g := ib{bb}
		c := func(v int64) *ir.Value { return g.c(v, it) }
		x := core.Cast(bb, args[0], work)
		bits := g.cast("arith.bitcast", x, it)
		if mb.Value < srcMant {
			shift := srcMant - mb.Value
			last := int64(1) << shift
			lastBit := g.op("arith.shrui", g.op("arith.andi", bits, c(last)), c(shift))
			bias := g.add(lastBit, c(last>>1-1))
			bits = g.op("arith.andi", g.add(bits, bias), c(^(last - 1)))
		}
		if eb.Value < srcExp {
			expMask := (int64(1)<<srcExp - 1) << srcMant
			bias := int64(1)<<(srcExp-1) - 1
			rbias := int64(1)<<(eb.Value-1) - 1
			e := g.op("arith.andi", bits, c(expMask))
			over := core.Cmp(bb, "arith.cmpi", 8, e, c((bias+rbias)<<srcMant))  // ugt
			under := core.Cmp(bb, "arith.cmpi", 7, e, c((bias-rbias)<<srcMant)) // ule
			sign := g.op("arith.andi", bits, c(int64(-1)<<(nbits-1)))
			inf := g.op("arith.ori", sign, c(expMask))
			sel := func(cnd, a, x *ir.Value) *ir.Value {
				return bb.Create("arith.select", []*ir.Value{cnd, a, x}, []ir.Type{it}).Result(0)
			}
			bits = sel(over, inf, sel(under, sign, bits))
		}
		y := g.cast("arith.bitcast", bits, work)
		f := fb{bb, work}
		y = f.sel(f.cmp(fUNO, x, x), x, y)
		return core.Cast(bb, y, elem)
	})
}

// hloMap converts stablehlo.map (all dimensions, as StableHLO requires):
// an element-wise generic whose body is the region on scalars.
func (r *rewriter) hloMap(b *ir.Builder, op *ir.Operation, rt *ir.RankedTensorType) error {
	blk := core.RegionBlock(op)
	if blk == nil || len(blk.Args) != len(op.Operands) {
		return ir.OpErrorf(op, "has a malformed body")
	}
	n := len(rt.Dims)
	var maps []*ir.AffineMap
	for range op.Operands {
		maps = append(maps, linalg.Identity(n))
	}
	maps = append(maps, linalg.Identity(n))
	out := linalg.EmptyLike(b, op.Operands[0], rt.Elem)
	var err error
	g := linalg.BuildGeneric(b, op.Operands, []*ir.Value{out}, maps, core.Parallel(n), func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		vals, e := hloScalarBody(bb, blk, args[:len(op.Operands)])
		if e != nil || len(vals) != 1 {
			if e == nil {
				e = ir.OpErrorf(op, "has a body that does not return one value")
			}
			err = e
			return args[len(args)-1:]
		}
		return vals
	})
	if err != nil {
		return err
	}
	r.Replace(op, g.Results)
	return nil
}

// hloBatchNormTraining normalizes over every dimension but feature_index
// with the batch's mean and (biased) variance, returning the output, the
// mean and the variance.
func (r *rewriter) hloBatchNormTraining(b *ir.Builder, op *ir.Operation) error {
	fi, ok := op.Attr("feature_index").(*ir.IntegerAttr)
	eps, ok2 := op.Attr("epsilon").(*ir.FloatAttr)
	xt, ok3 := op.Operands[0].Type.(*ir.RankedTensorType)
	if !ok || !ok2 || !ok3 || len(op.Operands) != 3 || len(op.Results) != 3 || !ir.HasStaticShape(xt) {
		return ir.OpErrorf(op, "needs a static float operand, scale, offset, feature_index and epsilon")
	}
	ft, ok := xt.Elem.(*ir.FloatType)
	if !ok {
		return ir.OpErrorf(op, "needs float elements")
	}
	n, f := len(xt.Dims), int(fi.Value)
	count := float64(1)
	for i, d := range xt.Dims {
		if i != f {
			count *= float64(d)
		}
	}
	its := make([]linalg.Iterator, n)
	for i := range its {
		if i != f {
			its[i] = linalg.Reduction
		}
	}
	featT := ir.Tensor([]int64{xt.Dims[f]}, ft)
	fm := linalg.DimMap(n, f)
	x := op.Operands[0]
	// Sums accumulate in f32 at least (f64 stays f64).
	acc := ft
	if core.Width(ft) < 32 {
		acc = ir.F32
	}
	accT := ir.Tensor([]int64{xt.Dims[f]}, acc)
	sum := linalg.BuildGeneric(b, []*ir.Value{x}, []*ir.Value{zeroFilled(b, accT)}, []*ir.AffineMap{linalg.Identity(n), fm}, its, func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		return []*ir.Value{fb{bb, acc}.add(a[1], core.Cast(bb, a[0], acc))}
	})
	mean := linalg.BuildGeneric(b, sum.Results, []*ir.Value{b.Create("tensor.empty", nil, []ir.Type{accT}).Result(0)}, []*ir.AffineMap{linalg.Identity(1), linalg.Identity(1)}, core.Parallel(1), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		return []*ir.Value{fb{bb, acc}.div(a[0], fb{bb, acc}.c(count))}
	})
	sq := linalg.BuildGeneric(b, []*ir.Value{x, mean.Result(0)}, []*ir.Value{zeroFilled(b, accT)}, []*ir.AffineMap{linalg.Identity(n), fm, fm}, its, func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		g := fb{bb, acc}
		d := g.sub(core.Cast(bb, a[0], acc), a[1])
		return []*ir.Value{g.add(a[2], g.mul(d, d))}
	})
	vr := linalg.BuildGeneric(b, sq.Results, []*ir.Value{b.Create("tensor.empty", nil, []ir.Type{accT}).Result(0)}, []*ir.AffineMap{linalg.Identity(1), linalg.Identity(1)}, core.Parallel(1), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		return []*ir.Value{fb{bb, acc}.div(a[0], fb{bb, acc}.c(count))}
	})
	outT := ir.Tensor(xt.Dims, ft)
	out := linalg.BuildGeneric(b, []*ir.Value{x, op.Operands[1], op.Operands[2], mean.Result(0), vr.Result(0)}, []*ir.Value{b.Create("tensor.empty", nil, []ir.Type{outT}).Result(0)},
		[]*ir.AffineMap{linalg.Identity(n), fm, fm, fm, fm, linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
			g := fb{bb, acc}
			d := g.sub(core.Cast(bb, a[0], acc), a[3])
			inv := g.math("rsqrt", g.add(a[4], g.c(eps.Value)))
			y := g.add(g.mul(g.mul(d, inv), core.Cast(bb, a[1], acc)), core.Cast(bb, a[2], acc))
			return []*ir.Value{core.Cast(bb, y, ft)}
		})
	narrow := func(v *ir.Value) *ir.Value {
		if acc == ft {
			return v
		}
		return linalg.BuildGeneric(b, []*ir.Value{v}, []*ir.Value{b.Create("tensor.empty", nil, []ir.Type{featT}).Result(0)}, []*ir.AffineMap{linalg.Identity(1), linalg.Identity(1)}, core.Parallel(1), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
			return []*ir.Value{core.Cast(bb, a[0], ft)}
		}).Result(0)
	}
	r.Replace(op, []*ir.Value{out.Result(0), narrow(mean.Result(0)), narrow(vr.Result(0))})
	return nil
}

// hloGetTupleElement forwards the operand of the stablehlo.tuple it reads
// (tuples exist only between a tuple op and its element reads).
func (r *rewriter) hloGetTupleElement(op *ir.Operation) error {
	src := op.Operands[0].Owner()
	idx, ok := op.Attr("index").(*ir.IntegerAttr)
	if src == nil || src.Name != "stablehlo.tuple" || !ok || idx.Value < 0 || int(idx.Value) >= len(src.Operands) {
		return ir.OpErrorf(op, "reads a tuple that is not built by stablehlo.tuple in the same function (gree does not carry tuples)")
	}
	r.Replace(op, []*ir.Value{src.Operands[idx.Value]})
	if !r.Used(src.Results[0]) {
		src.Erase()
	}
	return nil
}

// hloTuple keeps a tuple whose only readers are get_tuple_element (they
// forward its operands); any other use is an error.
func (r *rewriter) hloTuple(op *ir.Operation) error {
	var bad *ir.Operation
	r.Fn.Walk(func(o *ir.Operation) bool {
		for _, x := range o.Operands {
			if x == op.Results[0] && o.Name != "stablehlo.get_tuple_element" {
				bad = o
			}
		}
		return bad == nil
	})
	if bad != nil {
		return ir.OpErrorf(bad, "uses a tuple value, which gree does not carry (only stablehlo.get_tuple_element may read a tuple)")
	}
	if !r.Used(op.Results[0]) {
		op.Erase()
	}
	return nil
}

// hloBatchNormGrad computes the gradients of batch normalization over
// every dimension but feature_index (StableHLO's batch_norm_grad), given
// the forward pass's mean and variance:
//
//	x̂ = (x - mean)/√(var + ε), g_offset = Σ dy, g_scale = Σ dy·x̂,
//	dx = scale/√(var + ε) · (dy - g_offset/N - x̂·g_scale/N)
func (r *rewriter) hloBatchNormGrad(b *ir.Builder, op *ir.Operation) error {
	fi, ok := op.Attr("feature_index").(*ir.IntegerAttr)
	eps, ok2 := op.Attr("epsilon").(*ir.FloatAttr)
	xt, ok3 := op.Operands[0].Type.(*ir.RankedTensorType)
	if !ok || !ok2 || !ok3 || len(op.Operands) != 5 || len(op.Results) != 3 || !ir.HasStaticShape(xt) {
		return ir.OpErrorf(op, "needs a static float operand, scale, mean, variance, grad_output, feature_index and epsilon")
	}
	ft, ok := xt.Elem.(*ir.FloatType)
	if !ok || fi.Value < 0 || int(fi.Value) >= len(xt.Dims) {
		return ir.OpErrorf(op, "needs float elements and a feature_index within the operand's rank")
	}
	n, f := len(xt.Dims), int(fi.Value)
	count := float64(1)
	its := make([]linalg.Iterator, n)
	for i, d := range xt.Dims {
		if i != f {
			count *= float64(d)
			its[i] = linalg.Reduction
		}
	}
	acc := ft
	if core.Width(ft) < 32 {
		acc = ir.F32
	}
	accT := ir.Tensor([]int64{xt.Dims[f]}, acc)
	fm := linalg.DimMap(n, f)
	x, scale, mean, variance, dy := op.Operands[0], op.Operands[1], op.Operands[2], op.Operands[3], op.Operands[4]
	// x̂ and the two sums, in one reduction with two outputs.
	norm := func(g fb, xv, m, v *ir.Value) *ir.Value {
		return g.mul(g.sub(core.Cast(g.bb, xv, acc), core.Cast(g.bb, m, acc)), g.math("rsqrt", g.add(core.Cast(g.bb, v, acc), g.c(eps.Value))))
	}
	sums := linalg.BuildGeneric(b, []*ir.Value{x, mean, variance, dy}, []*ir.Value{zeroFilled(b, accT), zeroFilled(b, accT)},
		[]*ir.AffineMap{linalg.Identity(n), fm, fm, linalg.Identity(n), fm, fm}, its, func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
			g := fb{bb, acc}
			d := core.Cast(bb, a[3], acc)
			return []*ir.Value{g.add(a[4], d), g.add(a[5], g.mul(d, norm(g, a[0], a[1], a[2])))}
		})
	gOffset, gScale := sums.Result(0), sums.Result(1)
	outT := ir.Tensor(xt.Dims, ft)
	dx := linalg.BuildGeneric(b, []*ir.Value{x, scale, mean, variance, dy, gOffset, gScale}, []*ir.Value{b.Create("tensor.empty", nil, []ir.Type{outT}).Result(0)},
		[]*ir.AffineMap{linalg.Identity(n), fm, fm, fm, linalg.Identity(n), fm, fm, linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
			g := fb{bb, acc}
			xh := norm(g, a[0], a[2], a[3])
			inv := g.math("rsqrt", g.add(core.Cast(bb, a[3], acc), g.c(eps.Value)))
			t := g.sub(g.sub(core.Cast(bb, a[4], acc), g.div(a[5], g.c(count))), g.mul(xh, g.div(a[6], g.c(count))))
			return []*ir.Value{core.Cast(bb, g.mul(g.mul(core.Cast(bb, a[1], acc), inv), t), ft)}
		})
	featT := ir.Tensor([]int64{xt.Dims[f]}, ft)
	narrow := func(v *ir.Value) *ir.Value {
		if acc == ft {
			return v
		}
		return linalg.BuildGeneric(b, []*ir.Value{v}, []*ir.Value{b.Create("tensor.empty", nil, []ir.Type{featT}).Result(0)}, []*ir.AffineMap{linalg.Identity(1), linalg.Identity(1)}, core.Parallel(1), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
			return []*ir.Value{core.Cast(bb, a[0], ft)}
		}).Result(0)
	}
	r.Replace(op, []*ir.Value{dx.Result(0), narrow(gScale), narrow(gOffset)})
	return nil
}
