package torchonnx

import (
	"math"
	"sort"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// Reductions whose axes are a run-time input and whose static shapes
// leave more than one choice of reduced dimensions (keepdims=0, e.g.
// [3,2,2] → [3,2] reduces dimension 1 or 2): every choice that gives the
// declared result shape is computed, and the axes' value picks one at run
// time.

// maxAxesChoices bounds the reductions computed for one op.
const maxAxesChoices = 8

// axesCandidates lists the sets of reduced dimensions (keepdims=0) that
// turn the input's static shape into the result's, when the axes input's
// length is static; nil when it is not. At most maxAxesChoices+1 are
// listed.
func (o *onnxOp) axesCandidates(rank int) []map[int]bool {
	xt, rt, at := tt(o.in(0)), o.rts[0], tt(o.in(1))
	if at == nil || rt == nil || len(at.Dims) != 1 || at.Dims[0] <= 0 || int64(rank-len(rt.Dims)) != at.Dims[0] {
		return nil
	}
	for _, d := range append(append([]int64{}, xt.Dims...), rt.Dims...) {
		if d < 0 {
			return nil
		}
	}
	return reducedDimChoices(xt.Dims[:rank], rt.Dims, maxAxesChoices)
}

// reducedDimChoices lists the sets of dimensions of in whose removal
// (keepdims=0) leaves the shape out, stopping once more than limit are
// found (so at most limit+1 are returned).
func reducedDimChoices(in, out []int64, limit int) []map[int]bool {
	var found []map[int]bool
	var walk func(i, j int, cur map[int]bool)
	walk = func(i, j int, cur map[int]bool) {
		if len(found) > limit {
			return
		}
		if i == len(in) {
			if j == len(out) {
				m := map[int]bool{}
				for k := range cur {
					m[k] = true
				}
				found = append(found, m)
			}
			return
		}
		if j < len(out) && in[i] == out[j] {
			walk(i+1, j+1, cur)
		}
		cur[i] = true
		walk(i+1, j, cur)
		delete(cur, i)
	}
	walk(0, 0, map[int]bool{})
	return found
}

// reduceChoice computes the reduction for each candidate set of reduced
// dimensions and selects, element by element, the one whose bit mask
// (bit d for dimension d) equals the run-time axes' mask. Axes that match
// no candidate contradict the model's declared result shape: the result
// is then NaN (floats) or 0 (integers).
func (o *onnxOp) reduceChoice(x *ir.Value, cands []map[int]bool) ([]*ir.Value, error) {
	if len(cands) > maxAxesChoices {
		return nil, o.errorf("with non-constant axes that %d or more sets of dimensions fit is not supported by gree", len(cands))
	}
	rt := o.rts[0]
	elem := rt.Elem
	uns := o.isUnsigned(x) || core.IsBool(elem)
	rank := len(tt(x).Dims)
	axes := o.in(1)
	if !ir.IsInteger(tt(axes).Elem) {
		return nil, o.errorf("with non-integer axes is not supported")
	}
	mask := axesMask(o.b, axes, rank)
	ins := []*ir.Value{mask}
	var masks []int64
	for _, red := range cands {
		y, err := o.reduceValue(x, red, elem, uns)
		if err != nil {
			return nil, err
		}
		ins = append(ins, reshape(o.b, y, rt))
		var dims []int
		for d := range red {
			dims = append(dims, d)
		}
		sort.Ints(dims)
		m := int64(0)
		for _, d := range dims {
			m |= 1 << uint(d)
		}
		masks = append(masks, m)
	}
	y := mapGeneric(o.b, ins, rt, func(bb *ir.Builder, a []*ir.Value) *ir.Value {
		s := sc{bb, elem}
		v := s.c(0)
		if ir.IsFloat(elem) {
			v = s.c(math.NaN())
		}
		for i := len(masks) - 1; i >= 0; i-- {
			hit := core.CmpI(bb, core.PredEQ, a[0], bb.Constant(ir.IntAttr(masks[i], ir.I64)))
			v = s.sel(hit, a[i+1], v)
		}
		return v
	})
	return []*ir.Value{y}, nil
}

// axesMask folds a 1-D tensor of axes (negative ones counted from the
// end of rank dimensions) into a rank-0 i64 tensor with bit d set for
// each dimension d.
func axesMask(b *ir.Builder, axes *ir.Value, rank int) *ir.Value {
	out := filledInt(b, ir.Tensor(nil, ir.I64), 0)
	maps := []*ir.AffineMap{linalg.Identity(1), {NumDims: 1}}
	g := linalg.BuildGeneric(b, []*ir.Value{axes}, []*ir.Value{out}, maps, []linalg.Iterator{linalg.Reduction}, func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		a := castScalar(bb, args[0], ir.I64, false, false)
		zero := bb.Constant(ir.IntAttr(0, ir.I64))
		neg := core.CmpI(bb, core.PredSLT, a, zero)
		wrapped := core.BinOp(bb, "arith.addi", a, bb.Constant(ir.IntAttr(int64(rank), ir.I64)))
		d := bb.Create("arith.select", []*ir.Value{neg, wrapped, a}, []ir.Type{ir.I64}).Result(0)
		bit := core.BinOp(bb, "arith.shli", bb.Constant(ir.IntAttr(1, ir.I64)), d)
		return []*ir.Value{core.BinOp(bb, "arith.ori", args[1], bit)}
	})
	return g.Result(0)
}

// axesKnown reports whether a reduction's axes are known without its
// result type: an attribute, a constant, an empty axes tensor or none.
func (o *onnxOp) axesKnown(fromInput bool) bool {
	if !fromInput || o.in(1) == nil {
		return true
	}
	if _, ok := o.constInts(1); ok {
		return true
	}
	at := tt(o.in(1))
	return at != nil && len(at.Dims) == 1 && at.Dims[0] == 0
}

// staticIns reports whether every tensor input of o has a static shape.
func staticIns(o *onnxOp) bool {
	for _, v := range o.ins {
		if v != nil {
			if t := tt(v); t != nil && !ir.HasStaticShape(t) {
				return false
			}
		}
	}
	return true
}
