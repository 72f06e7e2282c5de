package parser

import (
	"strings"

	"github.com/gree-ml/gree/go/compiler/ir"
)

// Pretty syntax of StableHLO's most common ops (the generic form always
// works too):
//
//	stablehlo.add %a, %b : tensor<4xf32>           element-wise, one type
//	stablehlo.add %a, %b : (T, T) -> T              or a function type
//	stablehlo.constant dense<…> : tensor<…>
//	stablehlo.compare GT, %a, %b(, FLOAT)? : (T, T) -> U
//	stablehlo.return %v : T
var (
	hloUnary = []string{"abs", "negate", "exponential", "exponential_minus_one", "log", "log_plus_one",
		"sqrt", "rsqrt", "cbrt", "tanh", "sine", "cosine", "tan", "floor", "ceil", "round_nearest_afz",
		"round_nearest_even", "not", "sign", "logistic", "popcnt", "count_leading_zeros", "is_finite"}
	hloBinary = []string{"add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum",
		"power", "atan2", "and", "or", "xor", "shift_left", "shift_right_arithmetic", "shift_right_logical"}
)

func init() {
	for _, n := range hloUnary {
		registerOwn("stablehlo."+n, hloElementwiseOp(1))
	}
	for _, n := range hloBinary {
		registerOwn("stablehlo."+n, hloElementwiseOp(2))
	}
	registerOwn("stablehlo.select", hloElementwiseOp(3))
	registerOwn("stablehlo.clamp", hloElementwiseOp(3))
	registerOwn("stablehlo.constant", parseConstantLike)
	registerOwn("stablehlo.compare", parseHLOCompare)
	registerOwn("stablehlo.return", parseHLOReturn)
}

// hloTypes reads ": T" (every operand and the result of type T) or
// ": T1, T2, …" (one type per operand, result of the last) or a function
// type "(T1, …) -> U".
func hloTypes(p *OpParser, n int) ([]ir.Type, []ir.Type, error) {
	t, err := p.ParseColonType()
	if err != nil {
		return nil, nil, err
	}
	if ft, ok := t.(*ir.FunctionType); ok {
		return ft.Inputs, ft.Results, nil
	}
	ins := []ir.Type{t}
	for p.Optional(",") {
		u, err := p.ParseType()
		if err != nil {
			return nil, nil, err
		}
		ins = append(ins, u)
	}
	res := ins[len(ins)-1]
	for len(ins) < n {
		ins = append(ins, res) // select's ": pred type, value type"
	}
	return ins, []ir.Type{res}, nil
}

func hloElementwiseOp(n int) ParseFunc {
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
		if err := p.ParseOptionalAttrDict(st); err != nil {
			return err
		}
		ins, res, err := hloTypes(p, n)
		if err != nil {
			return err
		}
		if len(ins) != n {
			return p.Errorf("'%s' expects %d operand types, found %d", p.Name(), n, len(ins))
		}
		st.ResultTypes = res
		return p.ResolveOperands(st, ops, ins)
	}
}

// parseHLOCompare: DIR, %a, %b (, TYPE)? {attrs}? : types
func parseHLOCompare(p *OpParser, st *ir.OperationState) error {
	dir, err := p.ParseKeyword()
	if err != nil {
		return err
	}
	st.AddAttr("comparison_direction", &ir.OpaqueAttr{Text: "#stablehlo<comparison_direction " + strings.ToUpper(dir) + ">"})
	var ops []Operand
	for i := 0; i < 2; i++ {
		if err := p.Expect(","); err != nil {
			return err
		}
		o, err := p.ParseOperand()
		if err != nil {
			return err
		}
		ops = append(ops, o)
	}
	if p.Optional(",") {
		kind, err := p.ParseKeyword()
		if err != nil {
			return err
		}
		st.AddAttr("compare_type", &ir.OpaqueAttr{Text: "#stablehlo<comparison_type " + kind + ">"})
	}
	if err := p.ParseOptionalAttrDict(st); err != nil {
		return err
	}
	ins, res, err := hloTypes(p, 2)
	if err != nil {
		return err
	}
	if _, isFn := res[0].(*ir.RankedTensorType); isFn && len(ins) == 2 && ir.TypesEqual(ins[0], res[0]) {
		// ": T" gives operand types only; the result is i1 of that shape.
		res = []ir.Type{ir.WithElementType(ins[0], ir.I1)}
	}
	st.ResultTypes = res
	return p.ResolveOperands(st, ops, ins[:2])
}

// parseHLOReturn: %v (, %w)* : T (, U)*
func parseHLOReturn(p *OpParser, st *ir.OperationState) error {
	var ops []Operand
	for {
		o, err := p.ParseOperand()
		if err != nil {
			return err
		}
		ops = append(ops, o)
		if !p.Optional(",") {
			break
		}
	}
	t, err := p.ParseColonType()
	if err != nil {
		return err
	}
	ts := []ir.Type{t}
	for p.Optional(",") {
		u, err := p.ParseType()
		if err != nil {
			return err
		}
		ts = append(ts, u)
	}
	return p.ResolveOperands(st, ops, ts)
}

func init() {
	registerOwn("stablehlo.custom_call", parseHLOCustomCall)
}

// parseHLOCustomCall: @target(%a, …) {attrs}? : (T…) -> U…
func parseHLOCustomCall(p *OpParser, st *ir.OperationState) error {
	target, err := p.ParseSymbolName()
	if err != nil {
		return err
	}
	st.AddAttr("call_target_name", ir.Str(target))
	if err := p.Expect("("); err != nil {
		return err
	}
	var ops []Operand
	if !p.Optional(")") {
		for {
			o, err := p.ParseOperand()
			if err != nil {
				return err
			}
			ops = append(ops, o)
			if p.Optional(")") {
				break
			}
			if err := p.Expect(","); err != nil {
				return err
			}
		}
	}
	if err := p.ParseOptionalAttrDict(st); err != nil {
		return err
	}
	ins, res, err := hloTypes(p, len(ops))
	if err != nil {
		return err
	}
	st.ResultTypes = res
	return p.ResolveOperands(st, ops, ins)
}
