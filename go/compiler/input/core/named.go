package core

import (
	"strings"

	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// named converts a named linalg op to linalg.generic.
func (r *Rewriter) named(b *ir.Builder, op *ir.Operation) error {
	name := strings.TrimPrefix(op.Name, "linalg.")
	ins, outs := splitInsOuts(op)
	if len(outs) == 0 {
		return ir.OpErrorf(op, "has no outs operand")
	}
	var g *ir.Operation
	var err error
	switch {
	case name == "fill":
		g, err = fill(b, op, ins, outs)
	case name == "copy":
		n := linalg.Rank(outs[0].Type)
		g = linalg.BuildGeneric(b, ins, outs, []*ir.AffineMap{linalg.Identity(n), linalg.Identity(n)}, Parallel(n), YieldArg(0, outs[0].Type))
	case name == "transpose":
		g, err = transpose(b, op, ins, outs)
	case name == "broadcast":
		g, err = broadcastOp(b, op, ins, outs)
	case name == "map":
		g, err = mapOp(b, op, ins, outs)
	case name == "reduce":
		g, err = reduceOp(b, op, ins, outs)
	case contractions[name] != "":
		g, err = contraction(b, op, name, ins, outs)
	case elementwiseNamed[name] != nil:
		g, err = elementwiseNamedOp(b, op, name, ins, outs)
	case convSpecs[name] != "":
		g, err = convolution(b, op, name, ins, outs)
	case name == "softmax":
		return r.softmax(b, op, ins, outs)
	default:
		return ir.OpErrorf(op, "is not supported by gree yet")
	}
	if err != nil {
		return err
	}
	r.Replace(op, g.Results)
	return nil
}

// splitInsOuts returns the ins and outs operands of a structured op.
func splitInsOuts(op *ir.Operation) (ins, outs []*ir.Value) {
	if a, ok := op.Attr("operandSegmentSizes").(*ir.DenseArrayAttr); ok && a.Len() == 2 {
		n := int(a.Ints[0])
		return op.Operands[:n], op.Operands[n:]
	}
	n := len(op.Operands) - len(op.Results)
	if len(op.Results) == 0 {
		n = len(op.Operands) - 1
	}
	return op.Operands[:n], op.Operands[n:]
}

// Parallel returns n parallel iterator types.
func Parallel(n int) []linalg.Iterator { return make([]linalg.Iterator, n) }

// YieldArg returns a body that yields block argument i converted to t's
// element type.
func YieldArg(i int, t ir.Type) linalg.BodyFunc {
	return func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		return []*ir.Value{Cast(bb, args[i], ir.ElementTypeOf(t))}
	}
}

func fill(b *ir.Builder, op *ir.Operation, ins, outs []*ir.Value) (*ir.Operation, error) {
	if len(ins) != 1 {
		return nil, ir.OpErrorf(op, "expects one value to fill with")
	}
	n := linalg.Rank(outs[0].Type)
	scalarMap := &ir.AffineMap{NumDims: n}
	return linalg.BuildGeneric(b, ins, outs, []*ir.AffineMap{scalarMap, linalg.Identity(n)}, Parallel(n), YieldArg(0, outs[0].Type)), nil
}

// maxIntList bounds the integer lists IntList expands from a dense
// elements attribute: they are per-dimension lists (strides, dilations,
// permutations), and a splat of 2^40 elements would otherwise be expanded
// in full (the compiler ran out of memory).
const maxIntList = 1 << 12

// IntList returns the integers of an attribute given as an array, a dense
// array or dense elements; false when it is none of those, or has more
// than maxIntList elements.
func IntList(op *ir.Operation, name string) ([]int64, bool) {
	switch a := op.Attr(name).(type) {
	case *ir.DenseArrayAttr:
		return a.Ints, true
	case *ir.ArrayAttr:
		var out []int64
		for _, e := range a.Elems {
			ia, ok := e.(*ir.IntegerAttr)
			if !ok {
				return nil, false
			}
			out = append(out, ia.Value)
		}
		return out, true
	case *ir.DenseElementsAttr:
		if a.NumElements() > maxIntList {
			return nil, false
		}
		var out []int64
		for i := int64(0); i < a.NumElements(); i++ {
			out = append(out, a.IntAt(i))
		}
		return out, true
	}
	return nil, false
}

func transpose(b *ir.Builder, op *ir.Operation, ins, outs []*ir.Value) (*ir.Operation, error) {
	perm, ok := IntList(op, "permutation")
	n := linalg.Rank(outs[0].Type)
	if !ok || len(perm) != n || len(ins) != 1 {
		return nil, ir.OpErrorf(op, "needs a permutation of its %d dimensions", n)
	}
	// out[i] = in[perm[i]]: input dimension perm[i] is loop i.
	in := &ir.AffineMap{NumDims: n, Results: make([]ir.AffineExpr, n)}
	for i, p := range perm {
		if p < 0 || int(p) >= n || in.Results[p] != nil {
			return nil, ir.OpErrorf(op, "permutation %v is invalid", perm)
		}
		in.Results[p] = &ir.AffineDimExpr{Pos: i}
	}
	return linalg.BuildGeneric(b, ins, outs, []*ir.AffineMap{in, linalg.Identity(n)}, Parallel(n), YieldArg(0, outs[0].Type)), nil
}

func broadcastOp(b *ir.Builder, op *ir.Operation, ins, outs []*ir.Value) (*ir.Operation, error) {
	dims, ok := IntList(op, "dimensions")
	n := linalg.Rank(outs[0].Type)
	if !ok || len(ins) != 1 {
		return nil, ir.OpErrorf(op, "needs the added dimensions")
	}
	added := map[int]bool{}
	for _, d := range dims {
		added[int(d)] = true
	}
	in := &ir.AffineMap{NumDims: n}
	for i := 0; i < n; i++ {
		if !added[i] {
			in.Results = append(in.Results, &ir.AffineDimExpr{Pos: i})
		}
	}
	if len(in.Results) != linalg.Rank(ins[0].Type) {
		return nil, ir.OpErrorf(op, "dimensions %v do not match the input rank", dims)
	}
	return linalg.BuildGeneric(b, ins, outs, []*ir.AffineMap{in, linalg.Identity(n)}, Parallel(n), YieldArg(0, outs[0].Type)), nil
}

// cloneBody copies a region's ops into bb with its block arguments bound
// to args and returns the yielded values.
func cloneBody(bb *ir.Builder, blk *ir.Block, args []*ir.Value) []*ir.Value {
	m := ir.Mapping{}
	for i, a := range blk.Args {
		if i < len(args) {
			m[a] = args[i]
		}
	}
	for _, o := range blk.Ops {
		if o == blk.Terminator() && strings.HasSuffix(o.Name, "yield") {
			ys := make([]*ir.Value, len(o.Operands))
			for i, v := range o.Operands {
				ys[i] = m.Lookup(v)
			}
			return ys
		}
		bb.Clone(o, m)
	}
	return nil
}

// RegionBlock returns the entry block of op's first region, or nil.
func RegionBlock(op *ir.Operation) *ir.Block {
	if len(op.Regions) == 0 || len(op.Regions[0].Blocks) == 0 {
		return nil
	}
	return op.Regions[0].Blocks[0]
}

func mapOp(b *ir.Builder, op *ir.Operation, ins, outs []*ir.Value) (*ir.Operation, error) {
	blk := RegionBlock(op)
	if blk == nil {
		return nil, ir.OpErrorf(op, "has no body")
	}
	n := linalg.Rank(outs[0].Type)
	maps := make([]*ir.AffineMap, len(ins)+1)
	for i := range maps {
		maps[i] = linalg.Identity(n)
	}
	return linalg.BuildGeneric(b, ins, outs, maps, Parallel(n), func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		return cloneBody(bb, blk, args)
	}), nil
}

func reduceOp(b *ir.Builder, op *ir.Operation, ins, outs []*ir.Value) (*ir.Operation, error) {
	blk := RegionBlock(op)
	dims, ok := IntList(op, "dimensions")
	if blk == nil || !ok || len(ins) == 0 {
		return nil, ir.OpErrorf(op, "needs a body and dimensions")
	}
	n := linalg.Rank(ins[0].Type)
	red := map[int]bool{}
	for _, d := range dims {
		red[int(d)] = true
	}
	its := make([]linalg.Iterator, n)
	out := &ir.AffineMap{NumDims: n}
	for i := 0; i < n; i++ {
		if red[i] {
			its[i] = linalg.Reduction
		} else {
			out.Results = append(out.Results, &ir.AffineDimExpr{Pos: i})
		}
	}
	var maps []*ir.AffineMap
	for range ins {
		maps = append(maps, linalg.Identity(n))
	}
	for range outs {
		maps = append(maps, out)
	}
	return linalg.BuildGeneric(b, ins, outs, maps, its, func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		return cloneBody(bb, blk, args)
	}), nil
}

// IntsOf reads an integer list attribute (array<i64: …> or dense<…>).
func IntsOf(op *ir.Operation, name string) []int64 {
	v, _ := IntList(op, name)
	return v
}
