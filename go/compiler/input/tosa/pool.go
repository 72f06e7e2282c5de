package tosa

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// tosaPool lowers max_pool2d and avg_pool2d (NHWC, kernel, stride, pad
// [top, bottom, left, right]). max pads with the lowest value; avg sums
// the window (minus input_zp) in the accumulator type and divides by the
// number of input (not padding) elements: a float division, or for
// integers the spec's reciprocal_scale + apply_scale_32, plus output_zp,
// clipped.
func (r *rewriter) tosaPool(b *ir.Builder, op *ir.Operation, rt *ir.RankedTensorType, isMax bool) error {
	in := op.Operands[0]
	it := in.Type.(*ir.RankedTensorType)
	if len(it.Dims) != 4 || len(rt.Dims) != 4 {
		return ir.OpErrorf(op, "needs NHWC input and result")
	}
	kernel, stride, pad := core.IntsOf(op, "kernel"), fill1n(core.IntsOf(op, "stride"), 2, 1), fill1n(core.IntsOf(op, "pad"), 4, 0)
	if len(kernel) != 2 {
		return ir.OpErrorf(op, "needs a 2-element kernel")
	}
	for i := 0; i < 2; i++ {
		span := it.Dims[i+1] + pad[2*i] + pad[2*i+1] - kernel[i]
		if stride[i] <= 0 || span < 0 || span/stride[i]+1 != rt.Dims[i+1] || rt.Dims[0] != it.Dims[0] || rt.Dims[3] != it.Dims[3] {
			return ir.OpErrorf(op, "has a result shape %v that does not match its input %v, kernel %v, pad %v and stride %v", rt.Dims, it.Dims, kernel, pad, stride)
		}
	}
	elem := it.Elem
	isF := ir.IsFloat(elem)
	izp, err := tosaZP(op, 1, "input_zp")
	if err != nil {
		return err
	}
	ozp, err := tosaZP(op, 2, "output_zp")
	if err != nil {
		return err
	}
	var pv *ir.Value
	switch {
	case isMax && isF:
		pv = b.Constant(ir.FloatAttrOf(math.Inf(-1), elem.(*ir.FloatType)))
	case isMax:
		lo, _ := intRange(elem, false)
		pv = b.Constant(ir.IntAttr(lo, elem))
	case isF:
		pv = b.Constant(ir.FloatAttrOf(0, elem.(*ir.FloatType)))
	default:
		pv = b.Constant(ir.IntAttr(izp, elem))
	}
	pin := padded(b, in, []int64{0, pad[0], pad[2], 0}, []int64{0, pad[1], pad[3], 0}, pv)
	batch := func(int) *ir.Value { return linalg.Dim(b, in, 0) }
	// Loops: n, oh, ow, c, kh, kw.
	im := &ir.AffineMap{NumDims: 6, Results: []ir.AffineExpr{&ir.AffineDimExpr{Pos: 0}, affLin(1, 4, stride[0], 1), affLin(2, 5, stride[1], 1), &ir.AffineDimExpr{Pos: 3}}}
	km := linalg.DimMap(6, 4, 5)
	om := linalg.DimMap(6, 0, 1, 2, 3)
	its := []linalg.Iterator{linalg.Parallel, linalg.Parallel, linalg.Parallel, linalg.Parallel, linalg.Reduction, linalg.Reduction}
	// The window shape is an (unused) input so the kernel loops have sizes.
	win := b.Create("tensor.empty", nil, []ir.Type{ir.Tensor(kernel, elem)}).Result(0)
	if isMax {
		mx := "arith.maxsi"
		if isF {
			mx = "arith.maximumf"
			if tosaString(op, "nan_mode") == "IGNORE" {
				mx = "arith.maxnumf"
			}
		}
		init := core.FillLike(b, rt, pv, batch)
		g := linalg.BuildGeneric(b, []*ir.Value{pin, win}, []*ir.Value{init}, []*ir.AffineMap{im, km, om}, its, func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
			return []*ir.Value{bb.Create(mx, []*ir.Value{a[2], a[0]}, []ir.Type{elem}).Result(0)}
		})
		r.Replace(op, g.Results)
		return nil
	}
	acc := accType(op, elem)
	if !isF {
		acc = ir.I32
	}
	sum := core.FillLike(b, ir.Tensor(rt.Dims, acc), b.Constant(core.ScalarAttr(acc, 0)), batch)
	g := linalg.BuildGeneric(b, []*ir.Value{pin, win}, []*ir.Value{sum}, []*ir.AffineMap{im, km, om}, its, func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		if isF {
			return []*ir.Value{bb.Create("arith.addf", []*ir.Value{a[2], core.Cast(bb, a[0], acc)}, []ir.Type{acc}).Result(0)}
		}
		x := core.BinOp(bb, "arith.subi", core.ExtendInt(bb, a[0], acc, false), core.IntConst(bb, izp, acc))
		return []*ir.Value{core.BinOp(bb, "arith.addi", a[2], x)}
	})
	ih, iw := it.Dims[1], it.Dims[2]
	out := core.EmptyFor(b, rt, batch)
	lo, hi := intRange(elem, isUnsignedType(elem))
	avg := linalg.BuildGeneric(b, g.Results, []*ir.Value{out}, []*ir.AffineMap{linalg.Identity(4), linalg.Identity(4)}, core.Parallel(4), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		// count = valid rows × valid columns of the window.
		valid := func(d int, s, p, k, size int64) *ir.Value {
			start := core.BinOp(bb, "arith.subi", core.BinOp(bb, "arith.muli", core.LoopIndex(bb, d), bb.Constant(ir.IntAttr(s, ir.Index))), bb.Constant(ir.IntAttr(p, ir.Index)))
			end := core.BinOp(bb, "arith.minsi", core.BinOp(bb, "arith.addi", start, bb.Constant(ir.IntAttr(k, ir.Index))), bb.Constant(ir.IntAttr(size, ir.Index)))
			start = core.BinOp(bb, "arith.maxsi", start, bb.Constant(ir.IntAttr(0, ir.Index)))
			return core.BinOp(bb, "arith.subi", end, start)
		}
		cnt := core.BinOp(bb, "arith.muli", valid(1, stride[0], pad[0], kernel[0], ih), valid(2, stride[1], pad[2], kernel[1], iw))
		cnt = core.BinOp(bb, "arith.maxsi", cnt, bb.Constant(ir.IntAttr(1, ir.Index)))
		if isF {
			c := bb.Create("arith.index_cast", []*ir.Value{cnt}, []ir.Type{ir.I64}).Result(0)
			cf := bb.Create("arith.sitofp", []*ir.Value{c}, []ir.Type{acc}).Result(0)
			v := bb.Create("arith.divf", []*ir.Value{a[0], cf}, []ir.Type{acc}).Result(0)
			return []*ir.Value{core.Cast(bb, v, elem)}
		}
		// reciprocal_scale(count): k = 32 - clz(count - 1),
		// multiplier = (((1 << 30) + 1) << k) / count, shift = 30 + k.
		i64 := ir.I64
		c := bb.Create("arith.index_cast", []*ir.Value{cnt}, []ir.Type{i64}).Result(0)
		cm1 := core.CastTo(bb, "arith.trunci", core.BinOp(bb, "arith.subi", c, core.IntConst(bb, 1, i64)), ir.I32)
		k := core.BinOp(bb, "arith.subi", core.IntConst(bb, 32, i64), core.ExtendInt(bb, un(bb, "math.ctlz", cm1), i64, true))
		num := core.BinOp(bb, "arith.shli", core.IntConst(bb, (1<<30)+1, i64), k)
		mult := core.BinOp(bb, "arith.divsi", num, c)
		shift := core.BinOp(bb, "arith.addi", core.IntConst(bb, 30, i64), k)
		v := applyScale(bb, core.ExtendInt(bb, a[0], i64, false), mult, shift, false)
		v = core.BinOp(bb, "arith.addi", v, core.IntConst(bb, ozp, i64))
		return []*ir.Value{core.CastTo(bb, "arith.trunci", clip(bb, v, lo, hi), elem)}
	})
	r.Replace(op, avg.Results)
	return nil
}

// tosaTransposeConv lowers transpose_conv2d (input NHWC, weight [OC, KH,
// KW, IC], out_pad [top, bottom, left, right], stride): output[n, oy, ox,
// oc] sums over ky, kx, ic the inputs at iy = (oy - out_pad_top - ky) /
// stride_y where that divides exactly and lands inside the input.
func (r *rewriter) tosaTransposeConv(b *ir.Builder, op *ir.Operation, rt *ir.RankedTensorType) error {
	if len(op.Operands) < 3 {
		return ir.OpErrorf(op, "expects input, weight and bias operands")
	}
	in, w, bias := op.Operands[0], op.Operands[1], op.Operands[2]
	it, wt := in.Type.(*ir.RankedTensorType), w.Type.(*ir.RankedTensorType)
	if len(it.Dims) != 4 || len(wt.Dims) != 4 || len(rt.Dims) != 4 {
		return ir.OpErrorf(op, "needs rank-4 input, weight and result")
	}
	opad := fill1n(core.IntsOf(op, "out_pad"), 4, 0)
	stride := fill1n(core.IntsOf(op, "stride"), 2, 1)
	if rt.Dims[0] != it.Dims[0] || rt.Dims[3] != wt.Dims[0] || wt.Dims[3] != it.Dims[3] ||
		rt.Dims[1] != (it.Dims[1]-1)*stride[0]+opad[0]+opad[1]+wt.Dims[1] || rt.Dims[2] != (it.Dims[2]-1)*stride[1]+opad[2]+opad[3]+wt.Dims[2] {
		return ir.OpErrorf(op, "has a result shape %v that does not match its input %v, weight %v, out_pad %v and stride %v", rt.Dims, it.Dims, wt.Dims, opad, stride)
	}
	izp, err := tosaZP(op, 3, "input_zp")
	if err != nil {
		return err
	}
	wzp, err := tosaZP(op, 4, "weight_zp")
	if err != nil {
		return err
	}
	// The transposed convolution is a stride-1 correlation of the input
	// spread out by the stride (holes and borders hold the zero point)
	// with the spatially flipped weight, run as im2col + GEMM:
	// E[t] = in[(t - lo)/s] for lo = KH-1+out_pad_top, out[o] = Σ_k
	// E[o + k]·w[KH-1-k].
	kh, kw := wt.Dims[1], wt.Dims[2]
	ed := []int64{it.Dims[0], rt.Dims[1] + kh - 1, rt.Dims[2] + kw - 1, it.Dims[3]}
	var fillv *ir.Value
	if ft, ok := it.Elem.(*ir.FloatType); ok {
		fillv = b.Constant(ir.FloatAttrOf(0, ft))
	} else {
		fillv = b.Constant(ir.IntAttr(izp, it.Elem))
	}
	batch := func(int) *ir.Value { return linalg.Dim(b, in, 0) }
	e := core.EmptyFor(b, ir.Tensor(ed, it.Elem), batch)
	offs := []core.Mixed{{Static: 0}, {Static: kh - 1 + opad[0]}, {Static: kw - 1 + opad[2]}, {Static: 0}}
	strides := []core.Mixed{{Static: 1}, {Static: stride[0]}, {Static: stride[1]}, {Static: 1}}
	sizes := []core.Mixed{{Static: it.Dims[0]}, {Static: it.Dims[1]}, {Static: it.Dims[2]}, {Static: it.Dims[3]}}
	if it.Dims[0] < 0 {
		sizes[0] = core.Mixed{Dyn: batch(0)}
	}
	spread := core.PlaceInto(b, e, in, nil, offs, strides, sizes, func(*ir.Builder, []*ir.Value, []*ir.Value) *ir.Value { return fillv }).Result(0)
	flipMap := &ir.AffineMap{NumDims: 4, Results: []ir.AffineExpr{
		&ir.AffineDimExpr{Pos: 0},
		ir.AffineBinary(ir.AffineAdd, ir.AffineBinary(ir.AffineMul, &ir.AffineDimExpr{Pos: 1}, &ir.AffineConstantExpr{Value: -1}), &ir.AffineConstantExpr{Value: kh - 1}),
		ir.AffineBinary(ir.AffineAdd, ir.AffineBinary(ir.AffineMul, &ir.AffineDimExpr{Pos: 2}, &ir.AffineConstantExpr{Value: -1}), &ir.AffineConstantExpr{Value: kw - 1}),
		&ir.AffineDimExpr{Pos: 3}}}
	we := b.Create("tensor.empty", nil, []ir.Type{wt}).Result(0)
	flipped := linalg.BuildGeneric(b, []*ir.Value{w}, []*ir.Value{we}, []*ir.AffineMap{flipMap, linalg.Identity(4)}, core.Parallel(4), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		return a[:1]
	}).Result(0)
	col := im2col(b, spread, rt.Dims[1:3], []int64{kh, kw}, []int64{1, 1}, []int64{1, 1})
	wm := reshapeTo(b, flipped, ir.Tensor([]int64{wt.Dims[0], kh * kw * wt.Dims[3]}, wt.Elem))
	res := core.GemmABt(b, col, wm, bias, accType(op, rt.Elem), izp, wzp)
	res = castResult(b, res, ir.Tensor(res.Type.(*ir.RankedTensorType).Dims, rt.Elem))
	r.Replace(op, []*ir.Value{reshapeLike(b, res, rt, batch)})
	return nil
}
