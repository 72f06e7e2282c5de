package stablehlo

import (
	"strings"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// Complex numbers. The kernel IR has no complex type, so input conversion
// carries a tensor<d0 x … x complex<E>> as a "pair tensor"
// tensor<d0 x … x 2 x E> (real part at index 0 of the trailing dimension,
// imaginary part at 1). The rewriter remembers which values are pairs;
// complex ops become generics over pair tensors, structural ops the same
// op with one more dimension, and stablehlo.real/imag/abs/compare read
// the pairs back into real tensors. Complex values may not cross function
// boundaries (the runtime has no complex buffers yet).

// complexTensor returns t as a ranked tensor of complex elements and the
// component type.
func complexTensor(t ir.Type) (*ir.RankedTensorType, ir.Type, bool) {
	rt, ok := t.(*ir.RankedTensorType)
	if !ok {
		return nil, nil, false
	}
	ct, ok := rt.Elem.(*ir.ComplexType)
	if !ok {
		return nil, nil, false
	}
	return rt, ct.Elem, true
}

// pairType is the pair tensor that carries t.
func pairType(t *ir.RankedTensorType) *ir.RankedTensorType {
	return ir.Tensor(append(append([]int64{}, t.Dims...), 2), t.Elem.(*ir.ComplexType).Elem)
}

// touchesComplex reports ops with a complex result or a complex (pair)
// operand.
func (r *rewriter) touchesComplex(op *ir.Operation) bool {
	for _, v := range op.Results {
		if _, _, ok := complexTensor(v.Type); ok {
			return true
		}
	}
	for _, v := range op.Operands {
		if _, _, ok := complexTensor(v.Type); ok || r.Pairs[v] {
			return true
		}
	}
	return false
}

// replacePairs replaces op's results by vals, marking the ones that carry
// complex results as pairs.
func (r *rewriter) replacePairs(op *ir.Operation, vals []*ir.Value) {
	for i, res := range op.Results {
		if _, _, ok := complexTensor(res.Type); ok {
			r.MarkPair(vals[i])
		}
	}
	r.Replace(op, vals)
}

// complexOp converts an op on complex values.
func (r *rewriter) complexOp(b *ir.Builder, op *ir.Operation) error {
	if op.Block() == nil { // a region terminator already replaced
		return nil
	}
	for _, v := range op.Operands {
		if _, _, ok := complexTensor(v.Type); ok && !r.Pairs[v] {
			return ir.OpErrorf(op, "takes a complex value that gree cannot carry (complex function arguments and block arguments are not supported yet)")
		}
	}
	name := strings.TrimPrefix(trimHLO(op.Name), "chlo.")
	switch op.Name {
	case "stablehlo.while":
		return r.hloWhile(b, op)
	case "stablehlo.if":
		return r.hloIf(b, op)
	case "stablehlo.case":
		return r.hloCase(b, op)
	case "util.unfoldable_constant", "arith.constant", "stablehlo.constant":
		return r.complexConstant(b, op)
	case "util.optimization_barrier", "stablehlo.optimization_barrier":
		var ts []ir.Type
		for _, v := range op.Operands {
			ts = append(ts, v.Type)
		}
		bar := b.Create("util.optimization_barrier", op.Operands, ts)
		r.replacePairs(op, bar.Results)
		return nil
	case "stablehlo.fft":
		return r.hloFFT(b, op)
	case "stablehlo.dot", "stablehlo.dot_general":
		return r.complexDot(b, op)
	case "stablehlo.reduce":
		return r.complexReduce(b, op)
	case "stablehlo.pad":
		return r.complexPad(b, op)
	}
	if componentwiseOps[op.Name] {
		return r.complexComponentwise(b, op)
	}
	if op.Dialect() != "stablehlo" && op.Dialect() != "chlo" {
		return ir.OpErrorf(op, "with complex values is not supported by gree (complex values must stay inside StableHLO code)")
	}
	if done, err := r.complexStructural(b, op, name); done || err != nil {
		return err
	}
	return r.complexElementwise(b, op, name)
}

// complexConstant turns a complex dense constant into a pair constant.
func (r *rewriter) complexConstant(b *ir.Builder, op *ir.Operation) error {
	d, ok := op.Attr("value").(*ir.DenseElementsAttr)
	rt, et, ok2 := complexTensor(op.Results[0].Type)
	ft, ok3 := et.(*ir.FloatType)
	if !ok || !ok2 || !ok3 || !ir.HasStaticShape(rt) {
		return ir.OpErrorf(op, "needs a statically shaped dense value of complex floats")
	}
	pt := pairType(rt)
	n := d.NumElements()
	vals := make([]float64, 0, 2*n)
	for i := int64(0); i < n; i++ {
		re, im := d.ComplexAt(i)
		vals = append(vals, ir.RoundFloat(ft.Kind, re), ir.RoundFloat(ft.Kind, im))
	}
	c := b.Constant(&ir.DenseElementsAttr{Type: pt, Floats: vals})
	if op.Name == "util.unfoldable_constant" {
		c = b.Create("util.optimization_barrier", []*ir.Value{c}, []ir.Type{pt}).Result(0)
	}
	r.replacePairs(op, []*ir.Value{c})
	return nil
}

// pairMaps returns the maps that read the real and imaginary parts of a
// pair tensor of logical rank n from a loop nest whose first n loops are
// the logical dimensions (numDims loops in all).
func pairMaps(n, numDims int) (re, im *ir.AffineMap) {
	re, im = &ir.AffineMap{NumDims: numDims}, &ir.AffineMap{NumDims: numDims}
	for i := 0; i < n; i++ {
		re.Results = append(re.Results, &ir.AffineDimExpr{Pos: i})
		im.Results = append(im.Results, &ir.AffineDimExpr{Pos: i})
	}
	re.Results = append(re.Results, &ir.AffineConstantExpr{Value: 0})
	im.Results = append(im.Results, &ir.AffineConstantExpr{Value: 1})
	return re, im
}

// complexValue is one complex scalar inside a generic body.
type complexValue struct{ re, im *ir.Value }

// complexGeneric builds a generic over the logical shape of op's result
// (rank n) reading every operand: pair operands as complexValues, real
// operands as re with a nil im (rank-0 operands are broadcast). A complex
// result gets one more loop over the component, and body's (re, im) is
// selected by it; a real result takes body's re.
func (r *rewriter) complexGeneric(b *ir.Builder, op *ir.Operation, n int, body func(bb *ir.Builder, xs []complexValue) complexValue) *ir.Operation {
	rt := op.Results[0].Type.(*ir.RankedTensorType)
	isComplex := false
	outT := rt
	if _, _, ok := complexTensor(rt); ok {
		isComplex, outT = true, pairType(rt)
	}
	loops := n
	if isComplex {
		loops++
	}
	var ins []*ir.Value
	var maps []*ir.AffineMap
	var kinds []bool
	for _, v := range op.Operands {
		t := v.Type.(*ir.RankedTensorType)
		switch {
		case r.Pairs[v]:
			re, im := pairMaps(len(t.Dims)-1, loops)
			ins, maps, kinds = append(ins, v, v), append(maps, re, im), append(kinds, true)
		case len(t.Dims) == 0:
			ins, maps, kinds = append(ins, v), append(maps, &ir.AffineMap{NumDims: loops}), append(kinds, false)
		default:
			ins, maps, kinds = append(ins, v), append(maps, linalg.DimMap(loops, seq(n)...)), append(kinds, false)
		}
	}
	out := b.Create("tensor.empty", nil, []ir.Type{outT}).Result(0)
	maps = append(maps, linalg.Identity(loops))
	return linalg.BuildGeneric(b, ins, []*ir.Value{out}, maps, core.Parallel(loops), func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		var xs []complexValue
		k := 0
		for _, c := range kinds {
			if c {
				xs = append(xs, complexValue{args[k], args[k+1]})
				k += 2
			} else {
				xs = append(xs, complexValue{re: args[k]})
				k++
			}
		}
		y := body(bb, xs)
		if !isComplex {
			return []*ir.Value{y.re}
		}
		first := core.CmpI(bb, core.PredEQ, core.LoopIndex(bb, n), bb.Constant(ir.IntAttr(0, ir.Index)))
		return []*ir.Value{bb.Create("arith.select", []*ir.Value{first, y.re, y.im}, []ir.Type{y.re.Type}).Result(0)}
	})
}

// seq returns 0, 1, …, n-1.
func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// logicalRank is the rank of op's result as written (complex or real).
func logicalRank(op *ir.Operation) int {
	return len(op.Results[0].Type.(*ir.RankedTensorType).Dims)
}

// complexStructural converts data-movement ops on complex values: the
// same op on the pair tensors, with the trailing dimension kept in place.
func (r *rewriter) complexStructural(b *ir.Builder, op *ir.Operation, name string) (bool, error) {
	rt, _, ok := complexTensor(op.Results[0].Type)
	if !ok || len(op.Results) != 1 {
		return false, nil
	}
	n := len(rt.Dims)
	attrs := append([]ir.NamedAttr{}, op.Attrs...)
	set := func(attr string, extra int64) {
		v := append(core.IntsOf(op, attr), extra)
		attrs = ir.SetAttr(attrs, attr, &ir.DenseArrayAttr{Elem: ir.I64, Ints: v})
	}
	operands := op.Operands
	switch name {
	case "reshape", "concatenate", "reverse", "broadcast":
	case "transpose":
		set("permutation", int64(n))
	case "broadcast_in_dim":
		set("broadcast_dimensions", int64(n))
	case "slice":
		set("start_indices", 0)
		set("limit_indices", 2)
		set("strides", 1)
	case "dynamic_slice":
		set("slice_sizes", 2)
		zero := b.Constant(&ir.DenseElementsAttr{Type: ir.Tensor(nil, ir.I64), Ints: []int64{0}})
		operands = append(append([]*ir.Value{}, operands...), zero)
	case "dynamic_update_slice":
		zero := b.Constant(&ir.DenseElementsAttr{Type: ir.Tensor(nil, ir.I64), Ints: []int64{0}})
		operands = append(append([]*ir.Value{}, operands...), zero)
	default:
		return false, nil
	}
	for _, v := range op.Operands[:1] {
		if !r.Pairs[v] {
			return true, ir.OpErrorf(op, "needs a complex operand")
		}
	}
	nop := b.Create(op.Name, operands, []ir.Type{pairType(rt)}, attrs...)
	r.replacePairs(op, nop.Results)
	nb := ir.NewBuilder(nop.Loc)
	nb.SetInsertionPointBefore(nop)
	return true, r.stablehlo(nb, nop)
}
