package stablehlo

import (
	"strings"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// hloEinsum converts stablehlo.einsum ("ab,bc->ac") and unary_einsum
// ("ab->a"): one loop per distinct letter, the letters missing from the
// output summed; every operand is read through the map of its letters.
func (r *rewriter) hloEinsum(b *ir.Builder, op *ir.Operation, rt *ir.RankedTensorType) error {
	cfg, _ := op.Attr("einsum_config").(*ir.StringAttr)
	if cfg == nil {
		return ir.OpErrorf(op, "needs an einsum_config")
	}
	parts := strings.Split(strings.ReplaceAll(cfg.Value, " ", ""), "->")
	if len(parts) != 2 {
		return ir.OpErrorf(op, "has an einsum_config %q without '->'", cfg.Value)
	}
	ins := strings.Split(parts[0], ",")
	if len(ins) != len(op.Operands) || strings.Contains(cfg.Value, ".") {
		return ir.OpErrorf(op, "has an einsum_config %q gree does not support (one term per operand, no ellipsis)", cfg.Value)
	}
	pos := map[rune]int{}
	var order []rune
	add := func(s string) {
		for _, c := range s {
			if _, ok := pos[c]; !ok {
				pos[c] = len(order)
				order = append(order, c)
			}
		}
	}
	// Output letters first (parallel loops), then the summed ones.
	add(parts[1])
	nOut := len(order)
	for _, s := range ins {
		add(s)
	}
	n := len(order)
	mapOf := func(s string, t *ir.RankedTensorType) (*ir.AffineMap, bool) {
		if len([]rune(s)) != len(t.Dims) {
			return nil, false
		}
		m := &ir.AffineMap{NumDims: n}
		for _, c := range s {
			m.Results = append(m.Results, &ir.AffineDimExpr{Pos: pos[c]})
		}
		return m, true
	}
	var maps []*ir.AffineMap
	for i, s := range ins {
		t, ok := op.Operands[i].Type.(*ir.RankedTensorType)
		m, ok2 := mapOf(s, t)
		if !ok || !ok2 {
			return ir.OpErrorf(op, "has an einsum term %q that does not match its operand's rank", s)
		}
		maps = append(maps, m)
	}
	om, ok := mapOf(parts[1], rt)
	if !ok || nOut != len(rt.Dims) {
		return ir.OpErrorf(op, "has an einsum output %q that does not match its result's rank", parts[1])
	}
	maps = append(maps, om)
	its := make([]linalg.Iterator, n)
	for i := nOut; i < n; i++ {
		its[i] = linalg.Reduction
	}
	g := linalg.BuildGeneric(b, op.Operands, []*ir.Value{zeroFilled(b, rt)}, maps, its, func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		acc := a[len(a)-1]
		p := core.Cast(bb, a[0], rt.Elem)
		for _, v := range a[1 : len(a)-1] {
			if ir.IsFloat(rt.Elem) {
				p = bb.Create("arith.mulf", []*ir.Value{p, core.Cast(bb, v, rt.Elem)}, []ir.Type{rt.Elem}).Result(0)
			} else {
				p = core.BinOp(bb, "arith.muli", p, core.Cast(bb, v, rt.Elem))
			}
		}
		if ir.IsFloat(rt.Elem) {
			return []*ir.Value{bb.Create("arith.addf", []*ir.Value{acc, p}, []ir.Type{rt.Elem}).Result(0)}
		}
		return []*ir.Value{core.BinOp(bb, "arith.addi", acc, p)}
	})
	r.Replace(op, g.Results)
	return nil
}
