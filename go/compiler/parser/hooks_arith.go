package parser

import (
	"strings"

	"github.com/gree-ml/gree/go/compiler/ir"
)

// The arith and math ops whose custom syntax is "%a, %b, … flags? {attrs}?
// : T", every operand and the result of type T.
var (
	arithBinaryOps = []string{
		"addf", "subf", "mulf", "divf", "remf", "maximumf", "minimumf", "maxnumf", "minnumf",
		"addi", "subi", "muli", "divsi", "divui", "remsi", "remui", "floordivsi", "ceildivsi", "ceildivui",
		"andi", "ori", "xori", "shli", "shrsi", "shrui", "maxsi", "maxui", "minsi", "minui",
	}
	mathUnaryOps = []string{
		"absf", "absi", "acos", "acosh", "asin", "asinh", "atan", "atanh", "cbrt", "ceil", "cos", "cosh",
		"ctlz", "cttz", "ctpop", "erf", "erfc", "exp", "exp2", "expm1", "floor", "log", "log10", "log1p",
		"log2", "round", "roundeven", "rsqrt", "sin", "sinh", "sqrt", "tan", "tanh", "trunc",
	}
	mathBinaryOps = []string{"atan2", "copysign", "powf", "ipowi"}
	arithCastOps  = []string{
		"extf", "truncf", "sitofp", "uitofp", "fptosi", "fptoui", "extsi", "extui", "trunci",
		"index_cast", "index_castui", "bitcast",
	}
)

// Predicate keywords of arith.cmpf and arith.cmpi, numbered as MLIR's enums.
var (
	cmpfPredicates = []string{"false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
		"ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true"}
	cmpiPredicates = []string{"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"}
)

func init() {
	registerOwn("arith.constant", parseConstantLike)
	for _, n := range arithBinaryOps {
		registerOwn("arith."+n, sameTypeOp(2))
	}
	registerOwn("arith.negf", sameTypeOp(1))
	for _, n := range mathUnaryOps {
		registerOwn("math."+n, sameTypeOp(1))
	}
	for _, n := range mathBinaryOps {
		registerOwn("math."+n, sameTypeOp(2))
	}
	registerOwn("math.fma", sameTypeOp(3))
	for _, n := range arithCastOps {
		registerOwn("arith."+n, parseCastOp)
	}
	registerOwn("arith.cmpf", cmpOp(cmpfPredicates))
	registerOwn("arith.cmpi", cmpOp(cmpiPredicates))
	registerOwn("arith.select", parseSelectOp)
}

// parseConstantLike: {attrs}? value — the result has the value's type.
// Used by arith.constant and util.unfoldable_constant.
func parseConstantLike(p *OpParser, st *ir.OperationState) error {
	if err := p.ParseOptionalAttrDict(st); err != nil {
		return err
	}
	v, err := p.ParseTypedAttribute()
	if err != nil {
		return err
	}
	st.AddAttr("value", v)
	st.ResultTypes = []ir.Type{v.AttrType()}
	return nil
}

// parseOpFlags parses the short forms "fastmath<…>" and "overflow<…>" that
// stand for #arith.fastmath<…> and #arith.overflow<…>.
func parseOpFlags(p *OpParser, st *ir.OperationState) error {
	for {
		var attr, prefix string
		switch {
		case p.OptionalKeyword("fastmath"):
			attr, prefix = "fastmath", "#arith.fastmath"
		case p.OptionalKeyword("overflow"):
			attr, prefix = "overflowFlags", "#arith.overflow"
		default:
			return nil
		}
		body, err := p.ParseAngleBody()
		if err != nil {
			return err
		}
		st.AddAttr(attr, &ir.OpaqueAttr{Text: prefix + body})
	}
}

// sameTypeOp returns the syntax "%a, %b, … flags? {attrs}? : T" of an op
// with n operands and one result, all of type T.
func sameTypeOp(n int) ParseFunc {
	return func(p *OpParser, st *ir.OperationState) error {
		var ops []Operand
		for i := 0; i < n; i++ {
			if i > 0 {
				if err := p.Expect(","); err != nil {
					return err
				}
			}
			o, err := p.ParseOperand()
			if err != nil {
				return err
			}
			ops = append(ops, o)
		}
		if err := parseOpFlags(p, st); err != nil {
			return err
		}
		if err := p.ParseOptionalAttrDict(st); err != nil {
			return err
		}
		t, err := p.ParseColonType()
		if err != nil {
			return err
		}
		ts := make([]ir.Type, n)
		for i := range ts {
			ts[i] = t
		}
		st.ResultTypes = []ir.Type{t}
		return p.ResolveOperands(st, ops, ts)
	}
}

// parseCastOp: %x flags? {attrs}? : T to U
func parseCastOp(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	o := r.operand()
	r.do(func() error { return parseOpFlags(p, st) })
	r.attrDict()
	from := r.colonType()
	r.keyword("to")
	st.ResultTypes = []ir.Type{r.typ()}
	r.resolve([]Operand{o}, from)
	return r.err
}

// cmpOp returns the syntax "predicate, %a, %b flags? {attrs}? : T" of
// arith.cmpf / arith.cmpi; the predicate becomes an i64 attribute and the
// result is i1 shaped like T.
func cmpOp(preds []string) ParseFunc {
	return func(p *OpParser, st *ir.OperationState) error {
		pos := p.CurrentPos()
		kw, err := p.ParseKeyword()
		if err != nil {
			return err
		}
		idx := -1
		for i, s := range preds {
			if s == kw {
				idx = i
			}
		}
		if idx < 0 {
			return p.ErrorfAt(pos, "unknown predicate '%s' for '%s' (expected one of %s)", kw, p.Name(), strings.Join(preds, ", "))
		}
		st.AddAttr("predicate", ir.IntAttr(int64(idx), ir.I64))
		if err := p.Expect(","); err != nil {
			return err
		}
		lhs, err := p.ParseOperand()
		if err != nil {
			return err
		}
		if err := p.Expect(","); err != nil {
			return err
		}
		rhs, err := p.ParseOperand()
		if err != nil {
			return err
		}
		if err := parseOpFlags(p, st); err != nil {
			return err
		}
		if err := p.ParseOptionalAttrDict(st); err != nil {
			return err
		}
		t, err := p.ParseColonType()
		if err != nil {
			return err
		}
		st.ResultTypes = []ir.Type{ir.WithElementType(t, ir.I1)}
		return p.ResolveOperands(st, []Operand{lhs, rhs}, []ir.Type{t, t})
	}
}

// parseSelectOp: %c, %a, %b {attrs}? : T  or  : CondT, T
func parseSelectOp(p *OpParser, st *ir.OperationState) error {
	var ops []Operand
	for i := 0; i < 3; i++ {
		if i > 0 {
			if err := p.Expect(","); err != nil {
				return err
			}
		}
		o, err := p.ParseOperand()
		if err != nil {
			return err
		}
		ops = append(ops, o)
	}
	if err := p.ParseOptionalAttrDict(st); err != nil {
		return err
	}
	ts, err := p.ParseColonTypeList()
	if err != nil {
		return err
	}
	var cond, t ir.Type
	switch len(ts) {
	case 1:
		cond, t = ir.I1, ts[0]
	case 2:
		cond, t = ts[0], ts[1]
	default:
		return p.Errorf("'arith.select' takes ': T' or ': CondT, T', got %d types", len(ts))
	}
	st.ResultTypes = []ir.Type{t}
	return p.ResolveOperands(st, ops, []ir.Type{cond, t, t})
}

func init() {
	registerOwn("arith.scaling_extf", parseScalingOp)
	registerOwn("arith.scaling_truncf", parseScalingOp)
}

// parseScalingOp: %x, %scale flags? {attrs}? : T, S to U — arith's
// block-scaled conversions (x·scale extended, or x/scale truncated).
func parseScalingOp(p *OpParser, st *ir.OperationState) error {
	x, err := p.ParseOperand()
	if err != nil {
		return err
	}
	if err := p.Expect(","); err != nil {
		return err
	}
	s, err := p.ParseOperand()
	if err != nil {
		return err
	}
	if err := parseOpFlags(p, st); err != nil {
		return err
	}
	if err := p.ParseOptionalAttrDict(st); err != nil {
		return err
	}
	tx, err := p.ParseColonType()
	if err != nil {
		return err
	}
	if err := p.Expect(","); err != nil {
		return err
	}
	ts, err := p.ParseType()
	if err != nil {
		return err
	}
	if err := p.ExpectKeyword("to"); err != nil {
		return err
	}
	to, err := p.ParseType()
	if err != nil {
		return err
	}
	st.ResultTypes = []ir.Type{to}
	return p.ResolveOperands(st, []Operand{x, s}, []ir.Type{tx, ts})
}
