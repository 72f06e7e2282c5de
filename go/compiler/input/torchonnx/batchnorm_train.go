package torchonnx

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// batchNormTraining is BatchNormalization with training_mode=1: x is
// normalized with its own per-channel mean and (population) variance over
// every dimension but 1, and the optional results are the running
// statistics input·momentum + batch·(1-momentum).
func (o *onnxOp) batchNormTraining() ([]*ir.Value, error) {
	x, rt := o.in(0), o.rts[0]
	xt := tt(x)
	n := len(xt.Dims)
	if n < 2 || len(o.ins) < 5 || len(o.rts) > 3 {
		return nil, o.errorf("in training mode needs x of rank >= 2, scale, B, mean and var, and at most 3 results")
	}
	elem := rt.Elem
	if !ir.IsFloat(elem) || !ir.TypesEqual(rt, xt) {
		return nil, o.errorf("in training mode needs a float result of x's type")
	}
	C := xt.Dims[1]
	for i := 1; i < 5; i++ {
		if t := tt(o.in(i)); t == nil || len(t.Dims) != 1 || t.Dims[0] != C {
			return nil, o.errorf("in training mode needs rank-1 inputs of %d channels (input %d)", C, i)
		}
	}
	for _, t := range o.rts[1:] {
		if t == nil || len(t.Dims) != 1 || t.Dims[0] != C {
			return nil, o.errorf("in training mode needs rank-1 running statistics of %d channels", C)
		}
	}
	red := map[int]bool{}
	count := int64(1)
	for i, d := range xt.Dims {
		if i != 1 {
			red[i] = true
			count *= d
		}
	}
	add := func(s sc, a, v *ir.Value) *ir.Value { return s.add(a, v) }
	cm := &ir.AffineMap{NumDims: n, Results: []ir.AffineExpr{dimExpr(1)}}
	id := linalg.Identity(n)
	ct := ir.Tensor([]int64{C}, elem)
	scale := func(v *ir.Value) *ir.Value {
		return mapGeneric(o.b, []*ir.Value{v}, ct, func(bb *ir.Builder, a []*ir.Value) *ir.Value {
			s := sc{bb, elem}
			return s.div(a[0], s.c(float64(count)), false)
		})
	}
	mean := scale(reduceDims(o.b, x, red, elem, 0, nil, add))
	sq := mapGenericMaps(o.b, []*ir.Value{x, mean}, []*ir.AffineMap{id, cm}, xt, func(s sc, a []*ir.Value) *ir.Value {
		d := s.sub(a[0], a[1])
		return s.mul(d, d)
	})
	vr := scale(reduceDims(o.b, sq, red, elem, 0, nil, add))
	eps := o.attrFloat("epsilon", 1e-5)
	cv := func(s sc, v *ir.Value) *ir.Value { return castScalar(s.b, v, s.t, false, false) }
	y := mapGenericMaps(o.b, []*ir.Value{x, mean, vr, o.in(1), o.in(2)}, []*ir.AffineMap{id, cm, cm, cm, cm}, rt, func(s sc, a []*ir.Value) *ir.Value {
		inv := s.op("math.rsqrt", s.add(a[2], s.c(eps)))
		return s.add(s.mul(s.mul(s.sub(a[0], a[1]), inv), cv(s, a[3])), cv(s, a[4]))
	})
	res := []*ir.Value{y}
	mom := o.attrFloat("momentum", 0.9)
	for k, batch := range []*ir.Value{mean, vr} {
		if len(o.rts) <= 1+k {
			break
		}
		rtk := o.rts[1+k]
		res = append(res, mapGeneric(o.b, []*ir.Value{o.in(3 + k), batch}, rtk, func(bb *ir.Builder, a []*ir.Value) *ir.Value {
			s := sc{bb, rtk.Elem}
			return s.add(s.mul(cv(s, a[0]), s.c(mom)), s.mul(cv(s, a[1]), s.c(1-mom)))
		}))
	}
	return res, nil
}
