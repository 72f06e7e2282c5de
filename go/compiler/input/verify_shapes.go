package input

import (
	"fmt"
	"strings"

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
// operands. Dynamic sizes are not compared here.
func verifyShapes(m *ir.Module) error {
	var err error
	m.Op.Walk(func(op *ir.Operation) bool {
		if err != nil {
			return false
		}
		if op.Name != "linalg.generic" {
			return true
		}
		if g, ok := linalg.AsGeneric(op); ok {
			err = checkGenericShapes(g)
		}
		return true
	})
	return err
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
			if d, ok := e.(*ir.AffineDimExpr); ok && t.Dims[r] != ir.DynamicSize {
				byLoop[d.Pos] = append(byLoop[d.Pos], operandDim{operand: i, dim: r, size: t.Dims[r], t: t})
			}
		}
	}
	for l, ds := range byLoop {
		if len(ds) < 2 {
			continue
		}
		for _, d := range ds[1:] {
			switch {
			case d.size < ds[0].size:
				return shapeMismatch(g, ds[0], d, "it is smaller: the loop over both would run past it")
			case its[l] == linalg.Reduction && d.size != ds[0].size && ds[0].operand < nIn:
				return shapeMismatch(g, ds[0], d, "they are summed over together, as a matrix product's inner dimensions are, so they must be equal")
			}
		}
	}
	return nil
}

func shapeMismatch(g linalg.Generic, a, b operandDim, why string) error {
	prefix := ""
	if n, ok := g.Op.Loc.(*ir.NameLoc); ok && !strings.HasPrefix(n.Name, "#") {
		// An ONNX model's node (the importer names locations after nodes).
		prefix = fmt.Sprintf("node '%s': ", n.Name)
	}
	return ir.Errorf(g.Op.Loc, "%soperand shapes do not match: %s has %d in dimension %d where %s has %d in dimension %d (%s)",
		prefix, describeOperand(g, a.operand, a.t), a.size, a.dim, describeOperand(g, b.operand, b.t), b.size, b.dim, why)
}

// describeOperand names operand i of g for a diagnostic.
func describeOperand(g linalg.Generic, i int, t ir.Type) string {
	if i < g.NumInputs() {
		return fmt.Sprintf("input %d (%s)", i, t)
	}
	return fmt.Sprintf("the result (%s)", t)
}
