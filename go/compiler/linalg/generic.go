package linalg

import (
	"fmt"
	"strings"

	"github.com/gree-ml/gree/go/compiler/ir"
)

// GenericName is the op name of linalg.generic.
const GenericName = "linalg.generic"

// Iterator is a loop kind.
type Iterator uint8

// Iterator kinds.
const (
	Parallel Iterator = iota
	Reduction
)

func (it Iterator) String() string {
	if it == Reduction {
		return "reduction"
	}
	return "parallel"
}

// Generic is a view of a linalg.generic operation.
type Generic struct {
	Op *ir.Operation
}

// AsGeneric returns a view of op if it is a linalg.generic.
func AsGeneric(op *ir.Operation) (Generic, bool) {
	if op == nil || op.Name != GenericName {
		return Generic{}, false
	}
	return Generic{op}, true
}

// NumInputs returns how many operands are ins; the rest are outs.
func (g Generic) NumInputs() int {
	if a, ok := g.Op.Attr("operandSegmentSizes").(*ir.DenseArrayAttr); ok && a.Len() == 2 {
		return int(a.Ints[0])
	}
	return len(g.Op.Operands) - len(g.Op.Results)
}

// Inputs returns the ins operands.
func (g Generic) Inputs() []*ir.Value { return g.Op.Operands[:g.NumInputs()] }

// Outputs returns the outs operands (the inits).
func (g Generic) Outputs() []*ir.Value { return g.Op.Operands[g.NumInputs():] }

// Maps returns the indexing maps, one per operand.
func (g Generic) Maps() []*ir.AffineMap {
	arr, _ := g.Op.Attr("indexing_maps").(*ir.ArrayAttr)
	if arr == nil {
		return nil
	}
	ms := make([]*ir.AffineMap, len(arr.Elems))
	for i, e := range arr.Elems {
		if m, ok := e.(*ir.AffineMapAttr); ok {
			ms[i] = m.Map
		}
	}
	return ms
}

// Iterators returns the iterator types, one per loop.
func (g Generic) Iterators() []Iterator {
	arr, _ := g.Op.Attr("iterator_types").(*ir.ArrayAttr)
	if arr == nil {
		return nil
	}
	its := make([]Iterator, len(arr.Elems))
	for i, e := range arr.Elems {
		if s := e.String(); strings.Contains(s, "reduction") || strings.Contains(s, "window") {
			its[i] = Reduction
		}
	}
	return its
}

// NumLoops returns the number of loops.
func (g Generic) NumLoops() int { return len(g.Iterators()) }

// Body returns the scalar body block.
func (g Generic) Body() *ir.Block { return g.Op.Regions[0].Blocks[0] }

// IsElementwise reports whether all loops are parallel and every output
// map is the identity... more precisely a permutation, which element-wise
// fusion needs.
func (g Generic) IsElementwise() bool {
	for _, it := range g.Iterators() {
		if it != Parallel {
			return false
		}
	}
	ms := g.Maps()
	for _, m := range ms[g.NumInputs():] {
		if !IsPermutation(m) {
			return false
		}
	}
	return true
}

// Verify checks the structure fusion and codegen rely on.
func (g Generic) Verify() error {
	ms := g.Maps()
	its := g.Iterators()
	if len(ms) != len(g.Op.Operands) {
		return fmt.Errorf("%d indexing maps for %d operands", len(ms), len(g.Op.Operands))
	}
	for i, m := range ms {
		if m == nil {
			return fmt.Errorf("indexing map %d is not an affine map", i)
		}
		if m.NumDims != len(its) {
			return fmt.Errorf("indexing map %d has %d dims for %d loops", i, m.NumDims, len(its))
		}
		if m.NumSymbols != 0 {
			return fmt.Errorf("indexing map %d uses symbols, which gree does not support", i)
		}
		if r := Rank(g.Op.Operands[i].Type); r != len(m.Results) {
			return fmt.Errorf("indexing map %d has %d results for an operand of rank %d", i, len(m.Results), r)
		}
	}
	if len(g.Op.Regions) != 1 || len(g.Op.Regions[0].Blocks) != 1 {
		return fmt.Errorf("expected a body region with one block")
	}
	if n := len(g.Body().Args); n != len(g.Op.Operands) {
		return fmt.Errorf("body has %d arguments for %d operands", n, len(g.Op.Operands))
	}
	return nil
}

// Rank returns the rank of a shaped type, 0 for scalars.
func Rank(t ir.Type) int {
	if s, ok := t.(ir.ShapedType); ok {
		return len(s.Shape())
	}
	return 0
}

// IsPermutation reports whether m maps dims to dims one-to-one.
func IsPermutation(m *ir.AffineMap) bool {
	if len(m.Results) != m.NumDims || m.NumSymbols != 0 {
		return false
	}
	seen := make([]bool, m.NumDims)
	for _, r := range m.Results {
		d, ok := r.(*ir.AffineDimExpr)
		if !ok || seen[d.Pos] {
			return false
		}
		seen[d.Pos] = true
	}
	return true
}

// Identity returns the n-dimensional identity map.
func Identity(n int) *ir.AffineMap {
	m := &ir.AffineMap{NumDims: n}
	for i := 0; i < n; i++ {
		m.Results = append(m.Results, &ir.AffineDimExpr{Pos: i})
	}
	return m
}

// DimMap returns the map (d0..dn-1) -> (d_dims[0], ...).
func DimMap(n int, dims ...int) *ir.AffineMap {
	m := &ir.AffineMap{NumDims: n}
	for _, d := range dims {
		m.Results = append(m.Results, &ir.AffineDimExpr{Pos: d})
	}
	return m
}
