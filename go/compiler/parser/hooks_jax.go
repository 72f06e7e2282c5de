package parser

import "github.com/gree-ml/gree/go/compiler/ir"

// What JAX adds to its StableHLO beyond the ops themselves: Shardy's
// sharding annotations (jax.jit with shardings, with_sharding_constraint)
// and CHLO's element-wise ops.
//
//	sdy.mesh @mesh = <["a"=2, "b"=1]> {attrs}?
//	%1 = sdy.sharding_constraint %0 <@mesh, [{"a"}, {}]> {attrs}? : tensor<4x6xf32>
//	%1 = sdy.reshard %0 <@mesh, [{}, {}]> : tensor<4x6xf32>
//	%1 = chlo.erf %0 : tensor<4xf32> -> tensor<4xf32>
//	%v, %i = chlo.top_k(%0, k = 3) : tensor<3x10xf32> -> (tensor<3x3xf32>, tensor<3x3xi32>)
//	%2 = chlo.broadcast_add %a, %b {broadcast_dimensions = array<i64: 1>} : (T, U) -> V
func init() {
	registerOwn("sdy.mesh", parseSdyMesh)
	registerOwn("sdy.sharding_constraint", parseSdySharded)
	registerOwn("sdy.reshard", parseSdySharded)
	for _, n := range chloUnary {
		registerOwn("chlo."+n, parseCHLOUnary)
	}
	for _, n := range chloBinary {
		registerOwn("chlo.broadcast_"+n, hloElementwiseOp(2))
	}
	registerOwn("chlo.broadcast_select", hloElementwiseOp(3))
	registerOwn("chlo.top_k", parseCHLOTopK)
}

var (
	chloUnary = []string{"acos", "acosh", "asin", "asinh", "atan", "atanh", "bessel_i1e", "conj", "cosh", "sinh",
		"tan", "digamma", "erf", "erf_inv", "erfc", "is_inf", "is_neg_inf", "is_pos_inf", "lgamma", "square"}
	chloBinary = []string{"add", "atan2", "divide", "maximum", "minimum", "multiply", "next_after", "polygamma",
		"power", "remainder", "shift_left", "shift_right_arithmetic", "shift_right_logical", "subtract", "zeta",
		"and", "or", "xor", "complex", "compare"}
)

// parseSdyMesh: @name = <axes> {attrs}?
func parseSdyMesh(p *OpParser, st *ir.OperationState) error {
	name, err := p.ParseSymbolName()
	if err != nil {
		return err
	}
	st.AddAttr("sym_name", ir.Str(name))
	if err := p.Expect("="); err != nil {
		return err
	}
	body, err := p.ParseAngleBody()
	if err != nil {
		return err
	}
	st.AddAttr("mesh", &ir.OpaqueAttr{Text: "#sdy.mesh" + body})
	return p.ParseOptionalAttrDict(st)
}

// parseSdySharded: %x <@mesh, [dims]> {attrs}? : T
func parseSdySharded(p *OpParser, st *ir.OperationState) error {
	x, err := p.ParseOperand()
	if err != nil {
		return err
	}
	body, err := p.ParseAngleBody()
	if err != nil {
		return err
	}
	st.AddAttr("sharding", &ir.OpaqueAttr{Text: "#sdy.sharding" + body})
	if err := p.ParseOptionalAttrDict(st); err != nil {
		return err
	}
	t, err := p.ParseColonType()
	if err != nil {
		return err
	}
	st.ResultTypes = []ir.Type{t}
	return p.ResolveOperands(st, []Operand{x}, []ir.Type{t})
}

// parseCHLOUnary: %x {attrs}? : T -> U
func parseCHLOUnary(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	x := r.operand()
	r.attrDict()
	t := r.colonType()
	r.expect("->")
	st.ResultTypes = []ir.Type{r.typ()}
	r.resolve([]Operand{x}, t)
	return r.err
}

// parseCHLOTopK: (%x, k = N) {attrs}? : T -> (V, I)
func parseCHLOTopK(p *OpParser, st *ir.OperationState) error {
	if err := p.Expect("("); err != nil {
		return err
	}
	x, err := p.ParseOperand()
	if err != nil {
		return err
	}
	if err := p.Expect(","); err != nil {
		return err
	}
	k, err := parseKeywordInteger(p, "k")
	if err != nil {
		return err
	}
	st.AddAttr("k", ir.IntAttr(k, ir.I64))
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
	res, err := p.ParseOptionalArrowTypeList()
	if err != nil {
		return err
	}
	if len(res) != 2 {
		return p.Errorf("'%s' expects two result types (values, indices), found %d", p.Name(), len(res))
	}
	st.ResultTypes = res
	return p.ResolveOperands(st, []Operand{x}, []ir.Type{t})
}
