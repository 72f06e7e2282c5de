package tosa

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// tosaFFT lowers fft2d (real and imaginary [N,H,W] inputs, inverse
// attribute) and rfft2d (real [N,H,W] input, [N,H,W/2+1] outputs) to the
// spec's direct DFT: one generic over (n, oy, ox, iy, ix) with two
// outputs, the angle a = ±2π·((iy·oy mod H)/H + (ix·ox mod W)/W), and
//
//	real += re·cos a + im·sin a,  imag += -re·sin a + im·cos a.
func (r *rewriter) tosaFFT(b *ir.Builder, op *ir.Operation, real bool) error {
	nin := 2
	if real {
		nin = 1
	}
	if len(op.Operands) != nin || len(op.Results) != 2 {
		return ir.OpErrorf(op, "expects %d inputs and 2 results", nin)
	}
	it, ok := op.Operands[0].Type.(*ir.RankedTensorType)
	rt, ok2 := op.Results[0].Type.(*ir.RankedTensorType)
	if !ok || !ok2 || len(it.Dims) != 3 || !ir.HasStaticShape(it) || !ir.HasStaticShape(rt) || !ir.IsFloat(it.Elem) {
		return ir.OpErrorf(op, "needs static float [N,H,W] tensors")
	}
	N, H, W := it.Dims[0], it.Dims[1], it.Dims[2]
	ow := W
	if real {
		ow = W/2 + 1
	}
	if rt.Dims[0] != N || rt.Dims[1] != H || rt.Dims[2] != ow {
		return ir.OpErrorf(op, "needs [%d,%d,%d] results (found %v)", N, H, ow, rt.Dims)
	}
	sign := 1.0
	if tosaBool(op, "inverse") {
		sign = -1
	}
	elem := it.Elem
	zero := b.Constant(core.ScalarAttr(elem, 0))
	re0 := fillTensor(b, rt, zero)
	im0 := fillTensor(b, rt, zero)
	im := linalg.DimMap(5, 0, 3, 4)
	om := linalg.DimMap(5, 0, 1, 2)
	maps := []*ir.AffineMap{im}
	if !real {
		maps = append(maps, im)
	}
	maps = append(maps, om, om)
	its := []linalg.Iterator{0, 0, 0, linalg.Reduction, linalg.Reduction}
	g := linalg.BuildGeneric(b, op.Operands, []*ir.Value{re0, im0}, maps, its, func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		ci := func(v int64) *ir.Value { return bb.Constant(ir.IntAttr(v, ir.Index)) }
		frac := func(i, o int, size int64) *ir.Value {
			k := core.BinOp(bb, "arith.remui", core.BinOp(bb, "arith.muli", core.LoopIndex(bb, i), core.LoopIndex(bb, o)), ci(size))
			f := bb.Create("arith.index_cast", []*ir.Value{k}, []ir.Type{ir.I64}).Result(0)
			f = bb.Create("arith.sitofp", []*ir.Value{f}, []ir.Type{elem}).Result(0)
			return bb.Create("arith.divf", []*ir.Value{f, cFloat(bb, float64(size), elem)}, []ir.Type{elem}).Result(0)
		}
		fop := func(name string, x, y *ir.Value) *ir.Value {
			return bb.Create(name, []*ir.Value{x, y}, []ir.Type{elem}).Result(0)
		}
		t := fop("arith.addf", frac(3, 1, H), frac(4, 2, W))
		ang := fop("arith.mulf", cFloat(bb, sign*2*math.Pi, elem), t)
		c, s := un(bb, "math.cos", ang), un(bb, "math.sin", ang)
		re := a[0]
		accRe, accIm := a[len(a)-2], a[len(a)-1]
		nr := fop("arith.mulf", re, c)
		ni := un(bb, "arith.negf", fop("arith.mulf", re, s))
		if !real {
			imv := a[1]
			nr = fop("arith.addf", nr, fop("arith.mulf", imv, s))
			ni = fop("arith.addf", ni, fop("arith.mulf", imv, c))
		}
		return []*ir.Value{fop("arith.addf", accRe, nr), fop("arith.addf", accIm, ni)}
	})
	r.Replace(op, g.Results)
	return nil
}
