package core

import (
	"strings"

	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// Lowering converts one op of an input dialect that the core rules do not
// know (StableHLO, CHLO, TOSA, iree_linalg_ext, and ops on complex values);
// done is false for the ops it leaves to the core rules. The input package
// supplies it, so that the dialect packages depend on core and never on
// each other.
type Lowering func(r *Rewriter, b *ir.Builder, op *ir.Operation) (done bool, err error)

// Rewriter replaces ops inside one function.
type Rewriter struct {
	// Fn is the function (func.func or util.func) being rewritten.
	Fn *ir.Operation
	// Pairs holds the values that carry a complex tensor as a real
	// tensor with a trailing dimension of 2 (stablehlo/complex.go).
	Pairs map[*ir.Value]bool
	lower Lowering
}

// NewRewriter returns a rewriter of fn that hands the ops of the input
// dialects to lower.
func NewRewriter(fn *ir.Operation, lower Lowering) *Rewriter {
	return &Rewriter{Fn: fn, lower: lower}
}

// Replace replaces op's results by vals in the function (keeping them
// marked as complex pairs where op's were) and erases op.
func (r *Rewriter) Replace(op *ir.Operation, vals []*ir.Value) {
	for i, res := range op.Results {
		if r.Pairs[res] {
			r.MarkPair(vals[i])
		}
		ir.ReplaceAllUsesWith(r.Fn, res, vals[i])
	}
	op.Erase()
}

// ConvertFunc converts every op of fn to the core tensor program, handing
// the ops of the input dialects to lower.
func ConvertFunc(fn *ir.Operation, lower Lowering) error {
	r := NewRewriter(fn, lower)
	// Collect first: rewriting changes the blocks being walked.
	var ops []*ir.Operation
	fn.Walk(func(op *ir.Operation) bool {
		if op != fn {
			ops = append(ops, op)
		}
		return op == fn || !IsStructured(op)
	})
	for _, op := range ops {
		if err := r.Convert(op); err != nil {
			return err
		}
	}
	return nil
}

// IsStructured reports ops whose bodies are scalar code that must not be
// converted (the bodies of linalg ops and tensor generators).
func IsStructured(op *ir.Operation) bool {
	return strings.HasPrefix(op.Name, "linalg.") || op.Name == "tensor.generate" || op.Name == "tensor.pad" ||
		op.Name == "stablehlo.reduce" || hasScalarBody(op)
}

// Convert converts one op: the input dialects' ops (and ops on complex
// values) through the rewriter's Lowering, the rest by the core rules.
func (r *Rewriter) Convert(op *ir.Operation) error {
	b := ir.NewBuilder(op.Loc)
	b.SetInsertionPointBefore(op)
	if done, err := r.lower(r, b, op); done || err != nil {
		return err
	}
	switch {
	case op.Name == "util.unfoldable_constant":
		c := b.Create("arith.constant", nil, []ir.Type{op.Results[0].Type}, ir.Named("value", op.Attr("value")))
		bar := b.Create("util.optimization_barrier", c.Results, []ir.Type{op.Results[0].Type})
		r.Replace(op, bar.Results)
	case op.Name == "arith.constant" && IsSplatTensor(op):
		return r.SplatConstant(b, op)
	case needsKernel(op):
		return r.liftScalar(b, op)
	case isElementwiseScalarOp(op) && hasTensorResult(op):
		return r.elementwise(b, op)
	case op.Name == "flow.tensor.reshape":
		return r.flowReshape(b, op)
	case op.Name == "flow.tensor.bitcast":
		return r.flowBitcast(b, op)
	case op.Name == "linalg.pack" || op.Name == "tensor.pack":
		return r.pack(b, op)
	case op.Name == "linalg.unpack" || op.Name == "tensor.unpack":
		return r.unpack(b, op)
	case op.Name == "tensor.extract_slice":
		return r.extractSlice(b, op)
	case op.Name == "tensor.insert_slice":
		return r.insertSlice(b, op)
	case op.Name == "tensor.pad":
		return r.pad(b, op)
	case op.Name == "tensor.concat":
		return r.Concat(b, op)
	case op.Name == "tensor.splat":
		return r.splat(b, op)
	case op.Name == "tensor.generate":
		return r.generate(b, op)
	case strings.HasPrefix(op.Name, "linalg.") && op.Name != linalg.GenericName && op.Name != "linalg.yield" && op.Name != "linalg.index":
		return r.named(b, op)
	}
	return nil
}

func hasTensorResult(op *ir.Operation) bool {
	if len(op.Results) != 1 {
		return false
	}
	_, ok := op.Results[0].Type.(*ir.RankedTensorType)
	return ok
}

// isElementwiseScalarOp reports arith and math ops that apply element by
// element (everything in those dialects but constants).
func isElementwiseScalarOp(op *ir.Operation) bool {
	d := op.Dialect()
	return (d == "arith" || d == "math") && op.Name != "arith.constant"
}

// elementwise turns an arith/math op on tensors into a linalg.generic with
// identity maps whose body is the same op on scalars.
func (r *Rewriter) elementwise(b *ir.Builder, op *ir.Operation) error {
	rt := op.Results[0].Type.(*ir.RankedTensorType)
	var ins []*ir.Value
	scalarCond := false
	for i, v := range op.Operands {
		if _, ok := v.Type.(*ir.RankedTensorType); !ok {
			if op.Name == "arith.select" && i == 0 {
				scalarCond = true
				continue
			}
			return ir.OpErrorf(op, "mixes tensor and scalar operands")
		}
		ins = append(ins, v)
	}
	if scalarCond {
		// A select of whole tensors by a scalar stays a host select.
		return nil
	}
	// The result's dynamic dimensions equal the first operand's (the op's
	// verifier guarantees it), so the init takes its shape from there.
	init := linalg.EmptyLike(b, ins[0], rt.Elem)
	n := len(rt.Dims)
	maps := make([]*ir.AffineMap, len(ins)+1)
	for i := range maps {
		maps[i] = linalg.Identity(n)
	}
	its := make([]linalg.Iterator, n)
	g := linalg.BuildGeneric(b, ins, []*ir.Value{init}, maps, its, func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		s := bb.Insert(ir.NewOperation(&ir.OperationState{
			Name: op.Name, Loc: op.Loc, Operands: args[:len(ins)],
			ResultTypes: []ir.Type{rt.Elem}, Attrs: op.Attrs,
		}))
		return s.Results
	})
	r.Replace(op, g.Results)
	return nil
}

// IsSplatTensor reports a splat dense tensor constant of more than one
// element, which becomes a fill (no data in the module; fused into its
// consumers).
func IsSplatTensor(op *ir.Operation) bool {
	d, ok := op.Attr("value").(*ir.DenseElementsAttr)
	if !ok || !d.Splat || !hasTensorResult(op) {
		return false
	}
	if _, complex := d.ElementType().(*ir.ComplexType); complex {
		return false
	}
	n, ok := ir.NumElements(op.Results[0].Type.(*ir.RankedTensorType).Dims)
	return ok && n > 1
}

// SplatConstant turns a splat tensor constant (IsSplatTensor) into a fill
// generic of its scalar.
func (r *Rewriter) SplatConstant(b *ir.Builder, op *ir.Operation) error {
	d := op.Attr("value").(*ir.DenseElementsAttr)
	rt := op.Results[0].Type.(*ir.RankedTensorType)
	var scalar ir.TypedAttr
	if ft, ok := rt.Elem.(*ir.FloatType); ok {
		scalar = ir.FloatAttrOf(d.FloatAt(0), ft)
	} else {
		scalar = ir.IntAttr(d.IntAt(0), rt.Elem)
	}
	c := b.Constant(scalar)
	out := b.Create("tensor.empty", nil, []ir.Type{rt}).Result(0)
	n := len(rt.Dims)
	g := linalg.BuildGeneric(b, []*ir.Value{c}, []*ir.Value{out}, []*ir.AffineMap{{NumDims: n}, linalg.Identity(n)}, Parallel(n), YieldArg(0, rt))
	r.Replace(op, g.Results)
	return nil
}

// needsKernel reports scalar ops of host code that the host program has no
// instruction for (transcendental math and a few arith ops): they are
// computed by a one-element dispatch instead.
func needsKernel(op *ir.Operation) bool {
	if len(op.Results) != 1 || hasTensorResult(op) {
		return false
	}
	switch op.Dialect() {
	case "math":
		return true
	case "arith":
		switch op.Name {
		case "arith.maxnumf", "arith.minnumf", "arith.remf":
			return true
		}
	}
	return false
}

// liftScalar computes a scalar op in a rank-0 generic: its operands become
// 0-d tensors and the result is extracted.
func (r *Rewriter) liftScalar(b *ir.Builder, op *ir.Operation) error {
	var ins []*ir.Value
	var maps []*ir.AffineMap
	for _, v := range op.Operands {
		t := ir.Tensor(nil, v.Type)
		ins = append(ins, b.Create("tensor.from_elements", []*ir.Value{v}, []ir.Type{t}).Result(0))
		maps = append(maps, &ir.AffineMap{})
	}
	rt := ir.Tensor(nil, op.Results[0].Type)
	out := b.Create("tensor.empty", nil, []ir.Type{rt}).Result(0)
	maps = append(maps, &ir.AffineMap{})
	g := linalg.BuildGeneric(b, ins, []*ir.Value{out}, maps, nil, func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		s := bb.Insert(ir.NewOperation(&ir.OperationState{
			Name: op.Name, Loc: op.Loc, Operands: args[:len(ins)],
			ResultTypes: []ir.Type{op.Results[0].Type}, Attrs: op.Attrs,
		}))
		return s.Results
	})
	x := b.Create("tensor.extract", g.Results, []ir.Type{op.Results[0].Type}).Result(0)
	r.Replace(op, []*ir.Value{x})
	return nil
}

// MarkPair records that v carries a complex tensor as a real tensor with
// a trailing dimension of 2.
func (r *Rewriter) MarkPair(v *ir.Value) {
	if r.Pairs == nil {
		r.Pairs = map[*ir.Value]bool{}
	}
	r.Pairs[v] = true
}

// hasScalarBody reports ops whose regions compute on single elements
// (StableHLO's scatter, sort and select_and_scatter, and IREE's
// iree_linalg_ext ops): their bodies are translated with the op, not
// converted on their own.
func hasScalarBody(op *ir.Operation) bool {
	switch op.Name {
	case "stablehlo.scatter", "stablehlo.sort", "stablehlo.select_and_scatter":
		return true
	}
	return strings.HasPrefix(op.Name, "iree_linalg_ext.")
}

// Used reports whether any op of the function reads v.
func (r *Rewriter) Used(v *ir.Value) bool {
	found := false
	r.Fn.Walk(func(o *ir.Operation) bool {
		for _, x := range o.Operands {
			if x == v {
				found = true
			}
		}
		return !found
	})
	return found
}
