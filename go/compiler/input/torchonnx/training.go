package torchonnx

import (
	"github.com/gree-ml/gree/go/compiler/ir"
)

// ONNX's optimizer ops (ai.onnx.preview.training: Adagrad, Momentum,
// Adam): each updates n tensors X from their gradients G and optimizer
// states, given a rank-0 learning rate R and step count T. Every result
// is one elementwise generic over X's shape.

func init() {
	onnxReg(onnxOptimizer, "Adagrad", "Momentum", "Adam")
}

// optimizerStep computes one element's updated values: x, g, then the
// states (Adagrad: h; Momentum: v; Adam: v, h); it returns the new x and
// the new states, in the op's result order.
type optimizerStep func(s sc, r, t, x, g *ir.Value, st []*ir.Value) []*ir.Value

func onnxOptimizer(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	nstates := map[string]int{"Adagrad": 1, "Momentum": 1, "Adam": 2}[o.kind]
	per := 2 + nstates // X, G and the states
	if len(o.ins) < 2+per || (len(o.ins)-2)%per != 0 {
		return nil, o.errorf("needs R, T and %d tensors per optimized input, has %d inputs", per, len(o.ins))
	}
	n := (len(o.ins) - 2) / per
	if len(o.rts) != n*(1+nstates) {
		return nil, o.errorf("has %d results, want %d", len(o.rts), n*(1+nstates))
	}
	r, t := o.in(0), o.in(1)
	if len(tt(r).Dims) != 0 || len(tt(t).Dims) != 0 {
		return nil, o.errorf("needs rank-0 R and T")
	}
	norm := o.attrFloat("norm_coefficient", 0)
	var step optimizerStep
	switch o.kind {
	case "Adagrad":
		decay, eps := o.attrFloat("decay_factor", 0), o.attrFloat("epsilon", 0)
		step = func(s sc, r, t, x, g *ir.Value, st []*ir.Value) []*ir.Value {
			rr := s.div(r, s.add(s.c(1), s.mul(t, s.c(decay))), false)
			gr := s.add(s.mul(s.c(norm), x), g)
			h := s.add(st[0], s.mul(gr, gr))
			hs := s.add(s.op("math.sqrt", h), s.c(eps))
			return []*ir.Value{s.sub(x, s.div(s.mul(rr, gr), hs, false)), h}
		}
	case "Momentum":
		alpha, beta := o.attrFloat("alpha", 0), o.attrFloat("beta", 0)
		mode := o.attrStr("mode", "standard")
		if mode != "standard" && mode != "nesterov" {
			return nil, o.errorf("mode '%s' is not one of standard, nesterov", mode)
		}
		step = func(s sc, r, t, x, g *ir.Value, st []*ir.Value) []*ir.Value {
			gr := s.add(s.mul(s.c(norm), x), g)
			b := s.sel(s.cmp("gt", t, s.c(0), false), s.c(beta), s.c(1))
			v := s.add(s.mul(s.c(alpha), st[0]), s.mul(b, gr))
			d := v
			if mode == "nesterov" {
				d = s.add(gr, s.mul(s.c(alpha), v))
			}
			return []*ir.Value{s.sub(x, s.mul(r, d)), v}
		}
	case "Adam":
		alpha, beta := o.attrFloat("alpha", 0.9), o.attrFloat("beta", 0.999)
		eps := o.attrFloat("epsilon", 0)
		post := o.attrFloat("norm_coefficient_post", 0)
		step = func(s sc, r, t, x, g *ir.Value, st []*ir.Value) []*ir.Value {
			gr := s.add(s.mul(s.c(norm), x), g)
			v := s.add(s.mul(s.c(alpha), st[0]), s.mul(s.c(1-alpha), gr))
			h := s.add(s.mul(s.c(beta), st[1]), s.mul(s.c(1-beta), s.mul(gr, gr)))
			hs := s.add(s.op("math.sqrt", h), s.c(eps))
			// Bias correction once T > 0: R·sqrt(1-β^T)/(1-α^T).
			bc := s.div(s.op("math.sqrt", s.sub(s.c(1), s.op("math.powf", s.c(beta), t))),
				s.sub(s.c(1), s.op("math.powf", s.c(alpha), t)), false)
			ra := s.sel(s.cmp("gt", t, s.c(0), false), s.mul(r, bc), r)
			xn := s.sub(x, s.mul(ra, s.div(v, hs, false)))
			return []*ir.Value{s.mul(s.c(1-post), xn), v, h}
		}
	}
	res := make([]*ir.Value, len(o.rts))
	for i := 0; i < n; i++ {
		x := o.in(2 + i)
		elem := tt(x).Elem
		if !ir.IsFloat(elem) {
			return nil, o.errorf("on %s tensors is not supported (floats only)", elem)
		}
		ins := []*ir.Value{r, t, x, o.in(2 + n + i)}
		for k := 0; k < nstates; k++ {
			ins = append(ins, o.in(2+(2+k)*n+i))
		}
		for _, v := range ins[2:] {
			if !ir.TypesEqual(tt(v), tt(x)) {
				return nil, o.errorf("needs X, G and the states of one type, has %s and %s", tt(x), tt(v))
			}
		}
		for k := 0; k <= nstates; k++ {
			rt := o.rts[k*n+i]
			if !ir.TypesEqual(rt, tt(x)) {
				return nil, o.errorf("result %d has type %s, want %s", k*n+i, rt, tt(x))
			}
			k := k
			res[k*n+i] = mapGeneric(o.b, ins, rt, func(bb *ir.Builder, a []*ir.Value) *ir.Value {
				s := sc{bb, elem}
				rs := castScalar(bb, a[0], elem, false, false)
				ts := castScalar(bb, a[1], elem, o.isUnsigned(t), false)
				return step(s, rs, ts, a[2], a[3], a[4:])[k]
			})
		}
	}
	return res, nil
}
