package input

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// ONNX control flow and quantization.

func init() {
	onnxReg(onnxIf, "If")
	onnxReg(onnxQuantize, "QuantizeLinear")
	onnxReg(onnxDequantize, "DequantizeLinear")
}

// onnxIf becomes scf.if on the scalar condition; the branch regions move
// into it (their ops are converted after it, their terminators become
// scf.yield).
func onnxIf(o *onnxOp) ([]*ir.Value, error) {
	if len(o.op.Regions) != 2 {
		return nil, o.errorf("needs then and else branches")
	}
	cond := o.in(0)
	ct := tt(cond)
	if ct == nil || !isBool(ct.Elem) {
		return nil, o.errorf("needs a boolean condition")
	}
	var ix []*ir.Value
	for range ct.Dims {
		ix = append(ix, o.b.Constant(ir.IntAttr(0, ir.Index)))
	}
	c := o.b.Create("tensor.extract", append([]*ir.Value{cond}, ix...), []ir.Type{ir.I1}).Result(0)
	var rts []ir.Type
	for i, t := range o.rts {
		if t == nil {
			return nil, o.errorf("result %d is not a tensor", i)
		}
		rts = append(rts, t)
	}
	ifOp := o.b.CreateWithRegions("scf.if", []*ir.Value{c}, rts, 2)
	// The importer orders regions by attribute name: else_branch first.
	for i, r := range o.op.Regions {
		for _, blk := range r.Blocks {
			ifOp.Regions[1-i].AddBlock(blk)
		}
		r.Blocks = nil
	}
	return ifOp.Results, nil
}

// quantAxisMap reads a per-axis (1-D) or per-tensor (0-D or one element)
// parameter inside loops over rank n.
func quantAxisMap(o *onnxOp, p *ir.Value, n int) (*ir.AffineMap, error) {
	m := &ir.AffineMap{NumDims: n}
	pt := tt(p)
	if len(pt.Dims) == 0 {
		return m, nil
	}
	if pt.Dims[0] == 1 && len(pt.Dims) == 1 {
		m.Results = []ir.AffineExpr{cstExpr(0)}
		return m, nil
	}
	ax, err := o.normAxis(o.attrInt("axis", 1), n)
	if err != nil {
		return nil, err
	}
	if len(pt.Dims) == 1 {
		m.Results = []ir.AffineExpr{dimExpr(ax)}
		return m, nil
	}
	// Blocked: the parameter has the input's rank; block_size consecutive
	// elements along the axis share one entry.
	bs := o.attrInt("block_size", 0)
	if len(pt.Dims) != n || bs <= 0 {
		return nil, o.errorf("has a %d-D scale or zero point without a block_size", len(pt.Dims))
	}
	for i := 0; i < n; i++ {
		if i == ax {
			m.Results = append(m.Results, ir.AffineBinary(ir.AffineFloorDiv, dimExpr(i), cstExpr(bs)))
		} else {
			m.Results = append(m.Results, dimExpr(i))
		}
	}
	return m, nil
}

// onnxQuantize: y = saturate(roundeven(x / scale) + zero_point).
func onnxQuantize(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, scale, zp, rt := o.in(0), o.in(1), o.in(2), o.rts[0]
	n := len(rt.Dims)
	toFloat := ir.IsFloat(rt.Elem)
	limit := map[string]float64{"f8E4M3FN": 448, "f8E4M3FNUZ": 240, "f8E5M2": 57344, "f8E5M2FNUZ": 57344}[rt.Elem.String()]
	if toFloat && limit == 0 {
		return nil, o.errorf("to %s is not supported by gree yet", rt.Elem)
	}
	saturate := o.attrInt("saturate", 1) != 0
	sm, err := quantAxisMap(o, scale, n)
	if err != nil {
		return nil, err
	}
	ins, maps := []*ir.Value{x, scale}, []*ir.AffineMap{linalg.Identity(n), sm}
	if zp != nil {
		zm, err := quantAxisMap(o, zp, n)
		if err != nil {
			return nil, err
		}
		ins, maps = append(ins, zp), append(maps, zm)
	}
	uns := o.runs[0]
	w := width(rt.Elem)
	var lo, hi float64
	if !toFloat {
		lo, hi = float64(minInt(rt.Elem)), float64(maxInt(rt.Elem))
		if uns {
			lo, hi = 0, math.Ldexp(1, w)-1
		}
	}
	y := mapGenericMaps(o.b, ins, maps, rt, func(s sc, a []*ir.Value) *ir.Value {
		f := sc{s.b, ir.F32}
		xv := castScalar(s.b, a[0], ir.F32, false, false)
		sv := castScalar(s.b, a[1], ir.F32, false, false)
		if toFloat {
			// 8-bit float results: x / scale + zero point, saturated
			// unless saturate = 0.
			q := f.op("arith.divf", xv, sv)
			if zp != nil {
				q = f.add(q, castScalar(s.b, a[2], ir.F32, false, false))
			}
			if saturate {
				q = f.op("arith.minimumf", f.op("arith.maximumf", q, f.c(-limit)), f.c(limit))
			}
			return castScalar(s.b, q, rt.Elem, false, false)
		}
		q := f.op("math.roundeven", f.op("arith.divf", xv, sv))
		if zp != nil {
			q = f.add(q, castScalar(s.b, a[2], ir.F32, uns, false))
		}
		q = f.min(f.max(q, f.c(lo), false), f.c(hi), false)
		return castScalar(s.b, q, rt.Elem, false, uns)
	})
	return []*ir.Value{y}, nil
}

// onnxDequantize: y = (x - zero_point) * scale.
func onnxDequantize(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, scale, zp, rt := o.in(0), o.in(1), o.in(2), o.rts[0]
	n := len(rt.Dims)
	sm, err := quantAxisMap(o, scale, n)
	if err != nil {
		return nil, err
	}
	ins, maps := []*ir.Value{x, scale}, []*ir.AffineMap{linalg.Identity(n), sm}
	if zp != nil {
		zm, err := quantAxisMap(o, zp, n)
		if err != nil {
			return nil, err
		}
		ins, maps = append(ins, zp), append(maps, zm)
	}
	uns := o.isUnsigned(x)
	y := mapGenericMaps(o.b, ins, maps, rt, func(s sc, a []*ir.Value) *ir.Value {
		f := sc{s.b, ir.F32}
		v := castScalar(s.b, a[0], ir.F32, uns, false)
		if zp != nil {
			v = f.sub(v, castScalar(s.b, a[2], ir.F32, uns, false))
		}
		v = f.mul(v, castScalar(s.b, a[1], ir.F32, false, false))
		return castScalar(s.b, v, rt.Elem, false, false)
	})
	return []*ir.Value{y}, nil
}
