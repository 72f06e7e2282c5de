package input

import (
	"strings"

	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// Run converts m in place to the core tensor program.
func Run(m *ir.Module) error {
	if err := prepareModule(m); err != nil {
		return err
	}
	stripShardingAnnotations(m)
	if err := tosaVariables(m); err != nil {
		return err
	}
	var err error
	m.Op.Walk(func(op *ir.Operation) bool {
		if err != nil {
			return false
		}
		if op.Name == "func.func" || op.Name == "util.func" {
			if isTorchFunc(op) {
				err = convertTorchFunc(m, op)
			} else {
				err = convertFunc(m, op)
			}
			return false
		}
		return true
	})
	if err != nil {
		return err
	}
	return verifyShapes(m)
}

// rewriter replaces ops inside one function.
type rewriter struct {
	fn *ir.Operation
	// pairs holds the values that carry a complex tensor as a real
	// tensor with a trailing dimension of 2 (stablehlo_complex.go).
	pairs map[*ir.Value]bool
}

func (r *rewriter) replace(op *ir.Operation, vals []*ir.Value) {
	for i, res := range op.Results {
		if r.pairs[res] {
			r.markPair(vals[i])
		}
		ir.ReplaceAllUsesWith(r.fn, res, vals[i])
	}
	op.Erase()
}

func convertFunc(m *ir.Module, fn *ir.Operation) error {
	r := &rewriter{fn: fn}
	// Collect first: rewriting changes the blocks being walked.
	var ops []*ir.Operation
	fn.Walk(func(op *ir.Operation) bool {
		if op != fn {
			ops = append(ops, op)
		}
		return op == fn || !isStructured(op)
	})
	for _, op := range ops {
		if err := r.convert(op); err != nil {
			return err
		}
	}
	return nil
}

// isStructured reports ops whose bodies are scalar code that must not be
// converted (the bodies of linalg ops and tensor generators).
func isStructured(op *ir.Operation) bool {
	return strings.HasPrefix(op.Name, "linalg.") || op.Name == "tensor.generate" || op.Name == "tensor.pad" ||
		op.Name == "stablehlo.reduce" || hasScalarBody(op)
}

func (r *rewriter) convert(op *ir.Operation) error {
	b := ir.NewBuilder(op.Loc)
	b.SetInsertionPointBefore(op)
	switch {
	case r.touchesComplex(op):
		return r.complexOp(b, op)
	case op.Name == "util.unfoldable_constant":
		c := b.Create("arith.constant", nil, []ir.Type{op.Results[0].Type}, ir.Named("value", op.Attr("value")))
		bar := b.Create("util.optimization_barrier", c.Results, []ir.Type{op.Results[0].Type})
		r.replace(op, bar.Results)
	case op.Name == "arith.constant" && isSplatTensor(op):
		return r.splatConstant(b, op)
	case needsKernel(op):
		return r.liftScalar(b, op)
	case isElementwiseScalarOp(op) && hasTensorResult(op):
		return r.elementwise(b, op)
	case op.Dialect() == "tosa":
		return r.tosa(b, op)
	case op.Dialect() == "iree_linalg_ext" && op.Name != "iree_linalg_ext.yield":
		return r.linalgExt(b, op)
	case op.Dialect() == "chlo":
		return r.chlo(b, op)
	case op.Dialect() == "stablehlo" && op.Name != "stablehlo.return":
		return r.stablehlo(b, op)
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
		return r.concat(b, op)
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
func (r *rewriter) elementwise(b *ir.Builder, op *ir.Operation) error {
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
	r.replace(op, g.Results)
	return nil
}

// isSplatTensor reports a splat dense tensor constant of more than one
// element, which becomes a fill (no data in the module; fused into its
// consumers).
func isSplatTensor(op *ir.Operation) bool {
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

func (r *rewriter) splatConstant(b *ir.Builder, op *ir.Operation) error {
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
	g := linalg.BuildGeneric(b, []*ir.Value{c}, []*ir.Value{out}, []*ir.AffineMap{{NumDims: n}, linalg.Identity(n)}, parallel(n), yieldArg(0, rt))
	r.replace(op, g.Results)
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
func (r *rewriter) liftScalar(b *ir.Builder, op *ir.Operation) error {
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
	r.replace(op, []*ir.Value{x})
	return nil
}
