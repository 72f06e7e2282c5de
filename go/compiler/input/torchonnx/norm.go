package torchonnx

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// ONNX softmax and normalizations, on the reduction helpers of
// reduce.go.

// softmaxLike computes softmax or log-softmax of x over the dimensions
// in red.
func softmaxLike(b *ir.Builder, x *ir.Value, red map[int]bool, log bool) *ir.Value {
	xt := tt(x)
	n := len(xt.Dims)
	elem := xt.Elem
	km := keptMap(n, red)
	mx := reduceDims(b, x, red, elem, math.Inf(-1), nil, func(s sc, a, v *ir.Value) *ir.Value { return s.max(a, v, false) })
	e := mapGenericMaps(b, []*ir.Value{x, mx}, []*ir.AffineMap{linalg.Identity(n), km}, xt, func(s sc, a []*ir.Value) *ir.Value {
		return s.op("math.exp", s.sub(a[0], a[1]))
	})
	sum := reduceDims(b, e, red, elem, 0, nil, func(s sc, a, v *ir.Value) *ir.Value { return s.add(a, v) })
	if log {
		return mapGenericMaps(b, []*ir.Value{x, mx, sum}, []*ir.AffineMap{linalg.Identity(n), km, km}, xt, func(s sc, a []*ir.Value) *ir.Value {
			return s.sub(s.sub(a[0], a[1]), s.op("math.log", a[2]))
		})
	}
	return mapGenericMaps(b, []*ir.Value{e, sum}, []*ir.AffineMap{linalg.Identity(n), km}, xt, func(s sc, a []*ir.Value) *ir.Value {
		return s.op("arith.divf", a[0], a[1])
	})
}

func onnxSoftmax(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x := o.in(0)
	n := len(tt(x).Dims)
	def := int64(-1)
	if o.c.opset < 13 {
		def = 1
	}
	ax, err := o.normAxis(o.attrInt("axis", def), n)
	if err != nil {
		return nil, err
	}
	red := map[int]bool{ax: true}
	if o.c.opset < 13 {
		// Before opset 13 the input is flattened to 2-D at axis.
		for i := ax; i < n; i++ {
			red[i] = true
		}
	}
	return []*ir.Value{softmaxLike(o.b, x, red, o.kind == "LogSoftmax")}, nil
}

// normalize computes (x - mean) / sqrt(var + eps) over red, then applies
// scale and bias read through smap (nil scale/bias are skipped). It also
// returns the mean and 1/sqrt(var + eps) (reduced dimensions removed).
func normalize(b *ir.Builder, x *ir.Value, red map[int]bool, eps float64, scale, bias *ir.Value, smap *ir.AffineMap, elem ir.Type) (*ir.Value, *ir.Value, *ir.Value) {
	xt := tt(x)
	n := len(xt.Dims)
	km := keptMap(n, red)
	count := int64(1)
	for d := range red {
		count *= xt.Dims[d]
	}
	add := func(s sc, a, v *ir.Value) *ir.Value { return s.add(a, v) }
	sum := reduceDims(b, x, red, elem, 0, nil, add)
	mean := mapGeneric(b, []*ir.Value{sum}, tt(sum), func(bb *ir.Builder, a []*ir.Value) *ir.Value {
		s := sc{bb, elem}
		return s.op("arith.divf", a[0], s.c(float64(count)))
	})
	d := mapGenericMaps(b, []*ir.Value{x, mean}, []*ir.AffineMap{linalg.Identity(n), km}, ir.Tensor(xt.Dims, elem), func(s sc, a []*ir.Value) *ir.Value {
		return s.sub(castScalar(s.b, a[0], elem, false, false), a[1])
	})
	sq := reduceDims(b, d, red, elem, 0, func(s sc, v *ir.Value) *ir.Value { return s.mul(v, v) }, add)
	inv := mapGeneric(b, []*ir.Value{sq}, tt(sq), func(bb *ir.Builder, a []*ir.Value) *ir.Value {
		s := sc{bb, elem}
		v := s.add(s.op("arith.divf", a[0], s.c(float64(count))), s.c(eps))
		return s.op("math.rsqrt", v)
	})
	ins := []*ir.Value{d, inv}
	maps := []*ir.AffineMap{linalg.Identity(n), km}
	if scale != nil {
		ins, maps = append(ins, scale), append(maps, smap)
	}
	if bias != nil {
		ins, maps = append(ins, bias), append(maps, smap)
	}
	y := mapGenericMaps(b, ins, maps, ir.Tensor(xt.Dims, xt.Elem), func(s sc, a []*ir.Value) *ir.Value {
		es := sc{s.b, elem}
		v := es.mul(a[0], a[1])
		k := 2
		if scale != nil {
			v = es.mul(v, castScalar(s.b, a[k], elem, false, false))
			k++
		}
		if bias != nil {
			v = es.add(v, castScalar(s.b, a[k], elem, false, false))
		}
		return castScalar(s.b, v, xt.Elem, false, false)
	})
	return y, mean, inv
}

func onnxLayerNorm(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x := o.in(0)
	xt := tt(x)
	n := len(xt.Dims)
	ax, err := o.normAxis(o.attrInt("axis", -1), n)
	if err != nil {
		return nil, err
	}
	red := map[int]bool{}
	for i := ax; i < n; i++ {
		red[i] = true
	}
	elem := xt.Elem
	if core.Width(elem) < 32 {
		elem = ir.F32
	}
	smapFor := func(v *ir.Value) *ir.AffineMap {
		if v == nil {
			return nil
		}
		return broadcastMap(tt(v).Dims, xt.Dims)
	}
	scale, bias := o.in(1), o.in(2)
	smap := smapFor(scale)
	if scale == nil {
		smap = smapFor(bias)
	} else if bias != nil && !tt(bias).Equal(tt(scale)) {
		return nil, o.errorf("with differently shaped scale and bias is not supported by gree yet")
	}
	y, mean, inv := normalize(o.b, x, red, o.attrFloat("epsilon", 1e-5), scale, bias, smap, elem)
	out := []*ir.Value{y}
	for i, v := range []*ir.Value{mean, inv} {
		if len(o.rts) > i+1 && o.rts[i+1] != nil {
			rt := o.rts[i+1]
			if !ir.TypesEqual(tt(v).Elem, rt.Elem) {
				src := v
				v = mapGeneric(o.b, []*ir.Value{src}, ir.Tensor(tt(src).Dims, rt.Elem), func(bb *ir.Builder, a []*ir.Value) *ir.Value {
					return castScalar(bb, a[0], rt.Elem, false, false)
				})
			}
			out = append(out, reshape(o.b, v, rt))
		}
	}
	return out, nil
}

func onnxInstanceNorm(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x := o.in(0)
	xt := tt(x)
	n := len(xt.Dims)
	red := map[int]bool{}
	for i := 2; i < n; i++ {
		red[i] = true
	}
	elem := xt.Elem
	if core.Width(elem) < 32 {
		elem = ir.F32
	}
	y, _, _ := normalize(o.b, x, red, o.attrFloat("epsilon", 1e-5), o.in(1), o.in(2), &ir.AffineMap{NumDims: n, Results: []ir.AffineExpr{dimExpr(1)}}, elem)
	return []*ir.Value{y}, nil
}
