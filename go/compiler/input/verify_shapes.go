package input

import (
	"fmt"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/input/torchonnx"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// verifyShapes checks the shape contract of every linalg.generic of m,
// into which every input op has turned by now. A loop's size is the size
// of the first operand dimension that indexes it directly, outputs first
// (as codegen sizes loops); then
//
//   - no operand dimension the loop indexes may be smaller (the kernel
//     would read or write past the operand), and
//   - operands summed over together in a reduction loop must agree (a
//     matrix product whose inner dimensions differ: linalg.matmul,
//     stablehlo.dot and dot_general, onnx.MatMul, tosa.matmul, …).
//
// A larger input dimension in a parallel loop reads its leading part,
// which the input conversions use (slices of an operand). Violations are
// errors at the source op's location, not kernels that read past their
// operands. Where either size is dynamic, the same rule is checked at run
// time: a cf.assert before the generic fails the call with
// FAILED_PRECONDITION (as IREE's buffer-view shape assertions do).
func verifyShapes(m *ir.Module) error {
	var generics []linalg.Generic
	m.Op.Walk(func(op *ir.Operation) bool {
		if op.Name == "linalg.generic" {
			if g, ok := linalg.AsGeneric(op); ok {
				generics = append(generics, g)
			}
		}
		return true
	})
	for _, g := range generics {
		if err := checkGenericShapes(g); err != nil {
			return err
		}
	}
	return nil
}

// operandDim is one static operand dimension that a loop indexes.
type operandDim struct {
	operand, dim int
	size         int64
	t            ir.Type
}

// checkGenericShapes returns a diagnostic when g's operand shapes break
// the contract above.
func checkGenericShapes(g linalg.Generic) error {
	if g.Verify() != nil {
		return nil // the structure is reported where it is relied on
	}
	its := g.Iterators()
	maps := g.Maps()
	nIn := g.NumInputs()
	order := make([]int, 0, len(maps))
	for i := nIn; i < len(maps); i++ {
		order = append(order, i)
	}
	for i := 0; i < nIn; i++ {
		order = append(order, i)
	}
	byLoop := make([][]operandDim, len(its))
	for _, i := range order {
		t, ok := g.Op.Operands[i].Type.(*ir.RankedTensorType)
		if !ok {
			continue
		}
		for r, e := range maps[i].Results {
			if d, ok := e.(*ir.AffineDimExpr); ok {
				byLoop[d.Pos] = append(byLoop[d.Pos], operandDim{operand: i, dim: r, size: t.Dims[r], t: t})
			}
		}
	}
	var b *ir.Builder
	for l, ds := range byLoop {
		if len(ds) < 2 {
			continue
		}
		for _, d := range ds[1:] {
			equal := its[l] == linalg.Reduction && ds[0].operand < nIn
			if d.size == ir.DynamicSize || ds[0].size == ir.DynamicSize {
				if sameDim(g.Op.Operands[d.operand], d.dim, g.Op.Operands[ds[0].operand], ds[0].dim) {
					continue
				}
				if b == nil {
					b = ir.NewBuilder(g.Op.Loc)
					b.SetInsertionPointBefore(g.Op)
				}
				assertDims(b, g, ds[0], d, equal)
				continue
			}
			switch {
			case d.size < ds[0].size:
				return shapeMismatch(g, ds[0], d, "it is smaller: the loop over both would run past it")
			case equal && d.size != ds[0].size:
				return shapeMismatch(g, ds[0], d, "they are summed over together, as a matrix product's inner dimensions are, so they must be equal")
			}
		}
	}
	return nil
}

// assertDims inserts, before g, a run-time check that dimension b.dim of
// operand b is at least (equal: exactly) dimension a.dim of operand a.
func assertDims(bb *ir.Builder, g linalg.Generic, a, b operandDim, equal bool) {
	x := linalg.Dim(bb, g.Op.Operands[a.operand], a.dim)
	y := linalg.Dim(bb, g.Op.Operands[b.operand], b.dim)
	pred, rel := int64(5), "at least" // sge: y >= x
	if equal {
		pred, rel = 0, "equal to" // eq
	}
	ok := core.Cmp(bb, "arith.cmpi", pred, y, x)
	msg := fmt.Sprintf("%soperand shapes do not match at run time: dimension %d of %s must be %s dimension %d of %s",
		nodePrefix(g), b.dim, describeOperand(g, b.operand, b.t), rel, a.dim, describeOperand(g, a.operand, a.t))
	if fl := ir.FileLineColOf(g.Op.Loc); fl != nil {
		msg = ir.FormatLoc(g.Op.Loc) + ": " + msg
	}
	bb.Create("cf.assert", []*ir.Value{ok}, nil, ir.Named("msg", ir.Str(msg)))
}

// nodePrefix names the ONNX node g comes from ("node 'mm': "), or "".
func nodePrefix(g linalg.Generic) string {
	if n, ok := torchonnx.NodeName(g.Op.Loc); ok {
		return fmt.Sprintf("node '%s': ", n)
	}
	return ""
}

func shapeMismatch(g linalg.Generic, a, b operandDim, why string) error {
	return ir.Errorf(g.Op.Loc, "%soperand shapes do not match: %s has %d in dimension %d where %s has %d in dimension %d (%s)",
		nodePrefix(g), describeOperand(g, a.operand, a.t), a.size, a.dim, describeOperand(g, b.operand, b.t), b.size, b.dim, why)
}

// describeOperand names operand i of g for a diagnostic.
func describeOperand(g linalg.Generic, i int, t ir.Type) string {
	if i < g.NumInputs() {
		return fmt.Sprintf("input %d (%s)", i, t)
	}
	return fmt.Sprintf("the result (%s)", t)
}

// dimSource follows dimension i of v back through tensor.empty sizes that
// are tensor.dim of another tensor, to the tensor and dimension it copies.
func dimSource(v *ir.Value, i int) (*ir.Value, int) {
	for range 8 {
		op := v.Owner()
		if op == nil || op.Name != "tensor.empty" {
			return v, i
		}
		t, ok := v.Type.(*ir.RankedTensorType)
		if !ok || t.Dims[i] != ir.DynamicSize {
			return v, i
		}
		k := 0
		for _, d := range t.Dims[:i] {
			if d == ir.DynamicSize {
				k++
			}
		}
		if k >= len(op.Operands) {
			return v, i
		}
		dim := op.Operands[k].Owner()
		if dim == nil || dim.Name != "tensor.dim" || len(dim.Operands) != 2 {
			return v, i
		}
		c := dim.Operands[1].Owner()
		if c == nil || c.Name != "arith.constant" {
			return v, i
		}
		a, ok := c.Attr("value").(*ir.IntegerAttr)
		if !ok {
			return v, i
		}
		v, i = dim.Operands[0], int(a.Value)
	}
	return v, i
}

// sameDim reports whether two operand dimensions are the same value by
// construction (the same tensor's dimension, or a size copied from it).
func sameDim(a *ir.Value, i int, b *ir.Value, j int) bool {
	a, i = dimSource(a, i)
	b, j = dimSource(b, j)
	return a == b && i == j
}
