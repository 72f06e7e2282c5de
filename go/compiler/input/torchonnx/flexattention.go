package torchonnx

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/ir"
)

// FlexAttention (ai.onnx.preview, opset 1): scaled dot-product attention
// over rank-4 Q, K, V with optional subgraphs that modify the scores
// (score_mod, then mask_mod) and the probabilities (prob_mod), each a
// one-input graph over the whole [B, H, L, S] tensor. Grouped query heads
// share kv heads. f16 and bf16 inputs multiply Q·Kᵀ in their own type and
// take the softmax, the subgraphs and the product with V in f32, as ONNX's
// function body does.

func init() {
	onnxReg(onnxFlexAttention, "FlexAttention")
}

func onnxFlexAttention(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	q, k, v := o.in(0), o.in(1), o.in(2)
	Q, K, V := tt(q), tt(k), tt(v)
	if len(Q.Dims) != 4 || len(K.Dims) != 4 || len(V.Dims) != 4 {
		return nil, o.errorf("needs rank-4 Q, K and V (batch, heads, sequence, head size)")
	}
	if K.Dims[1] == 0 || Q.Dims[1]%K.Dims[1] != 0 || V.Dims[1] != K.Dims[1] {
		return nil, o.errorf("has %d query heads that %d kv heads do not divide", Q.Dims[1], K.Dims[1])
	}
	mods, err := o.graphAttrs()
	if err != nil {
		return nil, err
	}
	g := Q.Dims[1] / K.Dims[1]
	kx, vx := repeatHeads(o.b, k, g), repeatHeads(o.b, v, g)
	acc := Q.Elem // the softmax's type
	if fk, ok := acc.(*ir.FloatType); ok && fk.Kind.Width() < 32 {
		acc = ir.F32
	}
	scale := o.attrFloat("scale", 1/math.Sqrt(float64(Q.Dims[3])))
	raw := qkScores(o.b, q, kx, Q.Elem)
	st := ir.Tensor(tt(raw).Dims, acc)
	scores := mapGeneric(o.b, []*ir.Value{raw}, st, func(bb *ir.Builder, a []*ir.Value) *ir.Value {
		s := sc{bb, acc}
		return s.mul(castScalar(bb, a[0], acc, false, false), s.c(scale))
	})
	for _, name := range []string{"score_mod", "mask_mod"} {
		if r := mods[name]; r != nil {
			if scores, err = o.inlineRegion(name, r, scores); err != nil {
				return nil, err
			}
		}
	}
	probs := softmaxLike(o.b, scores, map[int]bool{3: true}, false)
	if r := mods["prob_mod"]; r != nil {
		if probs, err = o.inlineRegion("prob_mod", r, probs); err != nil {
			return nil, err
		}
	}
	if !ir.TypesEqual(tt(vx).Elem, acc) {
		vt := tt(vx)
		vx = mapGeneric(o.b, []*ir.Value{vx}, ir.Tensor(vt.Dims, acc), func(bb *ir.Builder, a []*ir.Value) *ir.Value {
			return castScalar(bb, a[0], acc, false, false)
		})
	}
	y := probsTimesV(o.b, probs, vx)
	if rt := o.rts[0]; !ir.TypesEqual(tt(y).Elem, rt.Elem) {
		y = mapGeneric(o.b, []*ir.Value{y}, ir.Tensor(tt(y).Dims, rt.Elem), func(bb *ir.Builder, a []*ir.Value) *ir.Value {
			return castScalar(bb, a[0], rt.Elem, false, false)
		})
	}
	return []*ir.Value{reshape(o.b, y, o.rts[0])}, nil
}

// graphAttrs maps the op's graph attribute names to its regions, from the
// names gree's ONNX importer records (gree.graph_attrs); text from another
// importer has only the regions, in name order, which name nothing when
// some of the graph attributes are optional.
func (o *onnxOp) graphAttrs() (map[string]*ir.Region, error) {
	out := map[string]*ir.Region{}
	if len(o.op.Regions) == 0 {
		return out, nil
	}
	names, _ := o.op.Attr("gree.graph_attrs").(*ir.ArrayAttr)
	if names == nil || len(names.Elems) != len(o.op.Regions) {
		return nil, o.errorf("has %d graph attributes without their names (gree.graph_attrs): import the .onnx file with gree's iree-import-onnx, or compile it directly", len(o.op.Regions))
	}
	for i, e := range names.Elems {
		s, ok := e.(*ir.StringAttr)
		if !ok {
			return nil, o.errorf("has a gree.graph_attrs entry that is not a string")
		}
		out[s.Value] = o.op.Regions[i]
	}
	return out, nil
}

// inlineRegion applies a one-input, one-output subgraph to arg: its ops
// move before the op being converted, with arg for the block argument,
// and are converted now (ConvertFunc skips them later). The result must
// have arg's type.
func (o *onnxOp) inlineRegion(name string, r *ir.Region, arg *ir.Value) (*ir.Value, error) {
	if len(r.Blocks) != 1 || len(r.Blocks[0].Args) != 1 {
		return nil, o.errorf("has a %s subgraph that does not take exactly one input", name)
	}
	blk := r.Blocks[0]
	term := blk.Terminator()
	if term == nil || len(term.Operands) != 1 {
		return nil, o.errorf("has a %s subgraph that does not give exactly one output", name)
	}
	ir.ReplaceAllUsesWith(o.c.r.Fn, blk.Args[0], arg)
	parent := o.op.Block()
	for _, op := range append([]*ir.Operation{}, blk.Ops...) {
		if op == term {
			continue
		}
		blk.Remove(op)
		parent.Insert(parent.IndexOf(o.op), op)
		o.c.inlined[op] = true
		if err := o.c.convert(op); err != nil {
			return nil, err
		}
	}
	res := term.Operands[0]
	if t := tt(res); t == nil || !ir.TypesEqual(t, tt(arg)) {
		return nil, o.errorf("has a %s subgraph whose result type %s is not its input's %s", name, res.Type, arg.Type)
	}
	return res, nil
}
