package parser

import (
	"strings"

	"github.com/gree-ml/gree/go/compiler/ir"
)

// Syntaxes of tensor.empty, of the util ops IREE's tests use, and of the
// check dialect's assertions (REFERENCE §6.2). An optional check device,
// written "<%dev>" before the parenthesis, becomes the first operand (of
// type !hal.device); constant expectations keep their value in "value" and
// tolerances in "atol"/"rtol" (f32 attributes).
func init() {
	registerOwn("tensor.empty", parseTensorEmptyOp)
	registerOwn("util.unfoldable_constant", parseConstantLike)
	registerOwn("util.optimization_barrier", parseOptimizationBarrierOp)
	registerOwn("check.expect_true", checkOp(false, false, false))
	registerOwn("check.expect_false", checkOp(false, false, false))
	registerOwn("check.expect_all_true", checkOp(true, false, false))
	registerOwn("check.expect_eq", checkOp(true, true, false))
	registerOwn("check.expect_eq_const", checkOp(true, true, false))
	registerOwn("check.expect_almost_eq", checkOp(true, true, true))
	registerOwn("check.expect_almost_eq_const", checkOp(true, true, true))
}

// deviceType is the type of the optional device operand of check ops.
var deviceType = &ir.OpaqueType{Text: "!hal.device"}

// checkOp returns the syntax
//
//	check.op (<%dev>)? (%lhs (, %rhs | , value)? (, atol F)? (, rtol F)?) {attrs}? : T
//
// device: "<%dev>" is allowed; binary: a second operand (or a constant
// value for the *_const ops) follows; tolerances: atol/rtol may follow.
func checkOp(device, binary, tolerances bool) ParseFunc {
	return func(p *OpParser, st *ir.OperationState) error {
		var dev *Operand
		if device && p.Optional("<") {
			d, err := p.ParseOperand()
			if err != nil {
				return err
			}
			dev = &d
			if err := p.Expect(">"); err != nil {
				return err
			}
		}
		if err := p.Expect("("); err != nil {
			return err
		}
		lhs, err := p.ParseOperand()
		if err != nil {
			return err
		}
		var rhs *Operand
		isConst := strings.HasSuffix(p.Name(), "_const")
		if binary {
			if err := p.Expect(","); err != nil {
				return err
			}
			if isConst {
				v, err := p.ParseTypedAttribute()
				if err != nil {
					return err
				}
				st.AddAttr("value", v)
			} else {
				r, err := p.ParseOperand()
				if err != nil {
					return err
				}
				rhs = &r
			}
		}
		for tolerances && p.Optional(",") {
			kw, err := p.ParseKeyword()
			if err != nil {
				return err
			}
			if kw != "atol" && kw != "rtol" {
				return p.Errorf("expected 'atol' or 'rtol' in '%s', found '%s'", p.Name(), kw)
			}
			v, err := p.ParseFloat(ir.F32)
			if err != nil {
				return err
			}
			st.AddAttr(kw, ir.FloatAttrOf(v, ir.F32))
		}
		if err := p.Expect(")"); err != nil {
			return err
		}
		if err := p.ParseOptionalAttrDict(st); err != nil {
			return err
		}
		t, err := p.ParseColonType()
		if err != nil {
			return err
		}
		var ops []Operand
		var ts []ir.Type
		if dev != nil {
			ops, ts = append(ops, *dev), append(ts, deviceType)
		}
		ops, ts = append(ops, lhs), append(ts, t)
		if rhs != nil {
			ops, ts = append(ops, *rhs), append(ts, t)
		}
		return p.ResolveOperands(st, ops, ts)
	}
}

// parseTensorEmptyOp: tensor.empty(%d0, …) {attrs}? : tensor<…> — one index
// operand per dynamic dimension.
func parseTensorEmptyOp(p *OpParser, st *ir.OperationState) error {
	ops, err := parseParenOperands(p)
	if err != nil {
		return err
	}
	if err := p.ParseOptionalAttrDict(st); err != nil {
		return err
	}
	pos := p.CurrentPos()
	t, err := p.ParseColonType()
	if err != nil {
		return err
	}
	rt, ok := t.(*ir.RankedTensorType)
	if !ok {
		return p.ErrorfAt(pos, "'tensor.empty' needs a ranked tensor type, found '%s'", t)
	}
	dynamic := 0
	for _, d := range rt.Dims {
		if d == ir.DynamicSize {
			dynamic++
		}
	}
	if dynamic != len(ops) {
		return p.ErrorfAt(pos, "'tensor.empty' has %d size operands but '%s' has %d dynamic dimensions", len(ops), t, dynamic)
	}
	ts := make([]ir.Type, len(ops))
	for i := range ts {
		ts[i] = ir.Index
	}
	st.ResultTypes = []ir.Type{t}
	return p.ResolveOperands(st, ops, ts)
}

// parseOptimizationBarrierOp: util.optimization_barrier {attrs}? (%a, … :
// T, …)? — the results have the operands' types.
func parseOptimizationBarrierOp(p *OpParser, st *ir.OperationState) error {
	ts, err := parseAttrsTypedOperands(p, st)
	st.ResultTypes = ts
	return err
}
