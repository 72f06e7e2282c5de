package tosa

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// tosaResize implements RESIZE as the spec computes it: for output
// (oy, ox), y = oy·scale_y_d + offset_y, iy = floor(y / scale_y_n), the
// remainder ry = y - iy·scale_y_n; the neighbours iy0 = max(iy, 0) and
// iy1 = min(iy+1, IH-1) (same for x). NEAREST_NEIGHBOR takes iy1 when
// 2·ry ≥ scale_y_n. BILINEAR weights the four neighbours by (1-dy, dy) ×
// (1-dx, dx), with dy = ry/scale_y_n for floats, and by (scale_n - r, r)
// in integers (the result is then scaled by scale_y_n·scale_x_n).
func (r *rewriter) tosaResize(b *ir.Builder, op *ir.Operation, rt *ir.RankedTensorType) error {
	in := op.Operands[0]
	it := in.Type.(*ir.RankedTensorType)
	if len(it.Dims) != 4 || len(rt.Dims) != 4 {
		return ir.OpErrorf(op, "needs NHWC input and result")
	}
	scale, err := tosaList(op, "scale", 1)
	if err != nil {
		return err
	}
	offset, err := tosaList(op, "offset", 2)
	if err != nil {
		return err
	}
	if len(scale) != 4 || len(offset) != 2 || scale[0] <= 0 || scale[1] <= 0 || scale[2] <= 0 || scale[3] <= 0 {
		return ir.OpErrorf(op, "needs scale [y_n, y_d, x_n, x_d] with positive numerators and a 2-element offset")
	}
	border := []int64{0, 0}
	if len(op.Operands) > 3 || op.Attr("border") != nil {
		if border, err = tosaList(op, "border", 3); err != nil {
			return err
		}
	}
	ih, iw := it.Dims[1], it.Dims[2]
	if len(border) != 2 || (ih-1)*scale[0]-offset[0]+border[0] < 0 || ((ih-1)*scale[0]-offset[0]+border[0])/scale[1]+1 != rt.Dims[1] ||
		((iw-1)*scale[2]-offset[1]+border[1])/scale[3]+1 != rt.Dims[2] {
		return ir.OpErrorf(op, "has a result shape %v that does not match its scale %v, offset %v and border %v", rt.Dims, scale, offset, border)
	}
	mode := tosaString(op, "mode")
	bilinear := mode == "BILINEAR"
	if !bilinear && mode != "NEAREST_NEIGHBOR" && mode != "NEAREST" {
		return ir.OpErrorf(op, "has an unknown mode '%s'", mode)
	}
	elem, oelem := it.Elem, rt.Elem
	isF := ir.IsFloat(elem)
	out := core.EmptyFor(b, rt, func(int) *ir.Value { return linalg.Dim(b, in, 0) })
	g := linalg.BuildGeneric(b, nil, []*ir.Value{out}, []*ir.AffineMap{linalg.Identity(4)}, core.Parallel(4), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
		ci := func(v int64) *ir.Value { return bb.Constant(ir.IntAttr(v, ir.Index)) }
		// coord returns i0, i1 and the remainder for one axis.
		coord := func(d int, num, den, off, size int64) (*ir.Value, *ir.Value, *ir.Value) {
			y := core.BinOp(bb, "arith.addi", core.BinOp(bb, "arith.muli", core.LoopIndex(bb, d), ci(den)), ci(off))
			q := core.BinOp(bb, "arith.divsi", y, ci(num))
			rem := core.BinOp(bb, "arith.remsi", y, ci(num))
			neg := core.CmpI(bb, core.PredSLT, rem, ci(0))
			q = sel(bb, neg, core.BinOp(bb, "arith.subi", q, ci(1)), q)
			rem = sel(bb, neg, core.BinOp(bb, "arith.addi", rem, ci(num)), rem)
			i0 := core.BinOp(bb, "arith.minsi", core.BinOp(bb, "arith.maxsi", q, ci(0)), ci(size-1))
			i1 := core.BinOp(bb, "arith.maxsi", core.BinOp(bb, "arith.minsi", core.BinOp(bb, "arith.addi", q, ci(1)), ci(size-1)), ci(0))
			return i0, i1, rem
		}
		y0, y1, ry := coord(1, scale[0], scale[1], offset[0], ih)
		x0, x1, rx := coord(2, scale[2], scale[3], offset[1], iw)
		read := func(y, x *ir.Value) *ir.Value {
			return bb.Create("tensor.extract", []*ir.Value{in, core.LoopIndex(bb, 0), y, x, core.LoopIndex(bb, 3)}, []ir.Type{elem}).Result(0)
		}
		if !bilinear {
			// 2·r ≥ n picks the upper neighbour (dy ≥ 0.5 for floats).
			up := func(rm *ir.Value, num int64) *ir.Value {
				return core.CmpI(bb, core.PredSGE, core.BinOp(bb, "arith.muli", rm, ci(2)), ci(num))
			}
			y := sel(bb, up(ry, scale[0]), y1, y0)
			x := sel(bb, up(rx, scale[2]), x1, x0)
			return []*ir.Value{core.Cast(bb, read(y, x), oelem)}
		}
		v00, v01, v10, v11 := read(y0, x0), read(y0, x1), read(y1, x0), read(y1, x1)
		if isF {
			ft := elem
			toF := func(v *ir.Value, den int64) *ir.Value {
				i := bb.Create("arith.index_cast", []*ir.Value{v}, []ir.Type{ir.I64}).Result(0)
				f := bb.Create("arith.sitofp", []*ir.Value{i}, []ir.Type{ft}).Result(0)
				return bb.Create("arith.divf", []*ir.Value{f, cFloat(bb, float64(den), ft)}, []ir.Type{ft}).Result(0)
			}
			dy, dx := toF(ry, scale[0]), toF(rx, scale[2])
			one := cFloat(bb, 1, ft)
			mul := func(a, c *ir.Value) *ir.Value {
				return bb.Create("arith.mulf", []*ir.Value{a, c}, []ir.Type{ft}).Result(0)
			}
			add := func(a, c *ir.Value) *ir.Value {
				return bb.Create("arith.addf", []*ir.Value{a, c}, []ir.Type{ft}).Result(0)
			}
			sub := func(a, c *ir.Value) *ir.Value {
				return bb.Create("arith.subf", []*ir.Value{a, c}, []ir.Type{ft}).Result(0)
			}
			uy, ux := sub(one, dy), sub(one, dx)
			acc := mul(mul(v00, uy), ux)
			acc = add(acc, mul(mul(v01, uy), dx))
			acc = add(acc, mul(mul(v10, dy), ux))
			acc = add(acc, mul(mul(v11, dy), dx))
			return []*ir.Value{core.Cast(bb, acc, oelem)}
		}
		at := oelem
		toI := func(v *ir.Value) *ir.Value {
			return bb.Create("arith.index_cast", []*ir.Value{v}, []ir.Type{at}).Result(0)
		}
		dy, dx := toI(ry), toI(rx)
		uy := core.BinOp(bb, "arith.subi", core.IntConst(bb, scale[0], at), dy)
		ux := core.BinOp(bb, "arith.subi", core.IntConst(bb, scale[2], at), dx)
		term := func(v, wy, wx *ir.Value) *ir.Value {
			return core.BinOp(bb, "arith.muli", core.BinOp(bb, "arith.muli", core.ExtendInt(bb, v, at, false), wy), wx)
		}
		acc := term(v00, uy, ux)
		acc = core.BinOp(bb, "arith.addi", acc, term(v01, uy, dx))
		acc = core.BinOp(bb, "arith.addi", acc, term(v10, dy, ux))
		acc = core.BinOp(bb, "arith.addi", acc, term(v11, dy, dx))
		return []*ir.Value{acc}
	})
	r.Replace(op, g.Results)
	return nil
}
