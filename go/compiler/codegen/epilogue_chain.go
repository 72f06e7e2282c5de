package codegen

import (
	"slices"

	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// epiChain is an element-wise epilogue a tile op fuses into its stores:
// root [+ bias] [+ residual] [maximumf lo] [minimumf hi], in that order.
type epiChain struct {
	bias     int // the bias's input number (−1: none)
	biasLoop int // the root loop that alone indexes the bias
	res      int // the residual's input number (−1: none)
	lo, hi   *ir.Value
}

// matchEpiChain walks epi's body as such a chain. The result is f32 and
// written where the root's output is; the bias is a tensor indexed by one
// of biasLoops alone (its other results constant 0); the residual (when
// residual allows one) a tensor indexed like the result; the bounds
// scalars (arguments that are not tensors or are 0-d tensors, constants,
// or values from outside the body).
func matchEpiChain(root, epi linalg.Generic, biasLoops []int, residual bool) (epiChain, bool) {
	none := epiChain{bias: -1, res: -1}
	e, err := newEpilogue(root, epi, nil)
	if err != nil || len(epi.Op.Results) != 1 || epi.NumInputs() != len(epi.Op.Operands)-1 {
		return none, false
	}
	body := epi.Body()
	out, ok := dimPositions(root.Maps()[root.NumInputs()])
	if !ok {
		return none, false
	}
	if rm, ok := dimPositions(e.maps[e.nIn]); !ok || !slices.Equal(rm, out) {
		return none, false
	}
	if rt, ok := epi.Op.Results[0].Type.(*ir.RankedTensorType); !ok || rt.Elem.String() != "f32" {
		return none, false
	}
	tensorArg := func(x *ir.Value) (int, bool) {
		if x.ArgBlock() != body || x.Index() >= e.nIn || x.Index() == e.rootArg {
			return -1, false
		}
		_, isT := epi.Inputs()[x.Index()].Type.(*ir.RankedTensorType)
		return x.Index(), isT
	}
	scalar := func(v *ir.Value) bool {
		if v.ArgBlock() == body {
			if v.Index() >= e.nIn {
				return false
			}
			t, isT := epi.Inputs()[v.Index()].Type.(*ir.RankedTensorType)
			return !isT || len(t.Dims) == 0
		}
		if d := v.Owner(); d != nil && v.ParentBlock() == body {
			return d.Name == "arith.constant"
		}
		return true
	}
	biasLoop := func(i int) (int, bool) {
		loop := -1
		for _, r := range e.maps[i].Results {
			switch r := r.(type) {
			case *ir.AffineDimExpr:
				if loop >= 0 || !slices.Contains(biasLoops, r.Pos) {
					return -1, false
				}
				loop = r.Pos
			case *ir.AffineConstantExpr:
				if r.Value != 0 {
					return -1, false
				}
			default:
				return -1, false
			}
		}
		return loop, loop >= 0
	}
	c := none
	cur := body.Args[e.rootArg]
	stage := 0
	other := func(o *ir.Operation) *ir.Value {
		if len(o.Operands) != 2 {
			return nil
		}
		if o.Operands[0] == cur {
			return o.Operands[1]
		}
		if o.Operands[1] == cur {
			return o.Operands[0]
		}
		return nil
	}
	for _, o := range body.Ops {
		switch o.Name {
		case "arith.constant":
			continue
		case "linalg.yield":
			return c, len(o.Operands) == 1 && o.Operands[0] == cur
		}
		x := other(o)
		if x == nil || len(o.Results) != 1 {
			return none, false
		}
		i, isT := tensorArg(x)
		switch {
		case o.Name == "arith.addf" && stage == 0 && isT:
			if loop, ok := biasLoop(i); ok {
				c.bias, c.biasLoop, stage = i, loop, 1
				break
			}
			if rm, ok := dimPositions(e.maps[i]); residual && ok && slices.Equal(rm, out) {
				c.res, stage = i, 2
				break
			}
			return none, false
		case o.Name == "arith.addf" && stage == 1 && isT && residual:
			if rm, ok := dimPositions(e.maps[i]); !ok || !slices.Equal(rm, out) {
				return none, false
			}
			c.res, stage = i, 2
		case o.Name == "arith.maximumf" && stage < 3 && scalar(x):
			c.lo, stage = x, 3
		case o.Name == "arith.minimumf" && stage < 4 && scalar(x):
			c.hi, stage = x, 4
		default:
			return none, false
		}
		cur = o.Results[0]
	}
	return none, false
}

// epilogueBound is the kernel value of a chain's bound v (see
// matchEpiChain), binding the 0-d tensor it may come from.
func (g *gen) epilogueBound(epi linalg.Generic, v *ir.Value) (kir.Value, error) {
	body := epi.Body()
	if v.ArgBlock() == body {
		in := epi.Inputs()[v.Index()]
		if x, ok := constScalar(in); ok {
			return g.tensorConstant(in, x), nil
		}
		if _, isT := in.Type.(*ir.RankedTensorType); isT {
			bi, err := g.bind(in, kir.Read)
			if err != nil {
				return -1, err
			}
			return g.b.Load(bi, kir.S(kir.F32), g.idx(0)), nil
		}
		return g.scalarCapture(in)
	}
	if d := v.Owner(); d != nil && v.ParentBlock() == body {
		return g.topConstant(d, 1)
	}
	return g.scalarCapture(v)
}
