package parser

import (
	"regexp"

	"github.com/gree-ml/gree/go/compiler/ir"
)

// Pretty syntax of the TOSA dialect, in the forms MLIR prints (the
// generic form always works too):
//
//	tosa.add %a, %b {attrs}? : (T, T) -> U          most ops: operands, attrs, function type
//	tosa.const_shape {values = dense<…>} : () -> !tosa.shape<N>
//	tosa.rescale … {rounding_mode = DOUBLE_ROUND, …}  bare enum values become strings
//	tosa.cond_if %c (%a = %x, …)? : tensor<i1> (T, …)? -> (U, …) { then } else { else }
//	tosa.while_loop (%a = %x, …) : (T, …) -> (U, …) { cond } do { body }
//	tosa.yield %v, … : T, …
//	tosa.variable @v (= dense<…>)? : T     (sym_name, type, initial_value)
//	tosa.variable_read @v : T              (name)
//	tosa.variable_write @v, %x : T         (name)
var tosaOps = []string{
	"abs", "add", "apply_scale", "argmax", "arithmetic_right_shift", "avg_pool2d", "bitwise_and",
	"bitwise_not", "bitwise_or", "bitwise_xor", "cast", "ceil", "clamp", "clz", "concat", "const",
	"const_shape", "conv2d", "conv3d", "cos", "custom", "depthwise_conv2d", "equal", "erf", "exp",
	"fft2d", "floor", "fully_connected", "gather", "greater", "greater_equal", "identity", "intdiv",
	"log", "logical_and", "logical_left_shift", "logical_not", "logical_or", "logical_right_shift",
	"logical_xor", "matmul", "max_pool2d", "maximum", "minimum", "mul", "negate", "pad", "pow",
	"reciprocal", "reduce_all", "reduce_any", "reduce_max", "reduce_min", "reduce_prod",
	"reduce_product", "reduce_sum", "rescale", "reshape", "resize", "reverse", "rfft2d", "rsqrt",
	"scatter", "select", "sigmoid", "sin", "slice", "sub", "table", "tanh", "tile", "transpose",
	"transpose_conv2d", "variable", "variable_read", "variable_write", "dim", "matmul_t_block_scaled",
	"cast_from_block_scaled", "cast_to_block_scaled", "div",
}

func init() {
	for _, n := range tosaOps {
		registerOwn("tosa."+n, parseTosaOp)
	}
	registerOwn("tosa.cond_if", parseTosaCondIf)
	registerOwn("tosa.while_loop", parseTosaWhile)
	registerOwn("tosa.yield", parseReturnOp)
	registerOwn("tosa.variable", parseTosaVariable)
	registerOwn("tosa.variable_read", parseTosaVariableRead)
	registerOwn("tosa.variable_write", parseTosaVariableWrite)
}

var tosaEnum = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)

// parseTosaAttrDict parses an optional "{…}" whose values may be TOSA's
// bare enum keywords (rounding_mode = DOUBLE_ROUND, mode = BILINEAR,
// nan_mode = PROPAGATE), kept as string attributes.
func parseTosaAttrDict(o *OpParser, st *ir.OperationState) error {
	p := o.p
	if !p.isPunct("{") {
		return nil
	}
	p.advance()
	return p.parseCommaList("}", func() error {
		pos := p.tok.pos
		var name string
		switch p.tok.kind {
		case tokIdent:
			name = p.tok.text
		case tokString:
			name = p.tok.val
		default:
			return p.unexpected("an attribute name")
		}
		p.advance()
		if ir.GetAttr(st.Attrs, name) != nil {
			return p.errorf(pos, "duplicate key '%s' in dictionary attribute", name)
		}
		var v ir.Attribute = ir.Unit
		if p.optional("=") {
			if p.tok.kind == tokIdent && tosaEnum.MatchString(p.tok.text) {
				v = ir.Str(p.tok.text)
				p.advance()
			} else {
				var err error
				if v, err = p.parseAttribute(); err != nil {
					return err
				}
			}
		}
		st.Attrs = ir.SetAttr(st.Attrs, name, v)
		return nil
	})
}

// parseTosaOp: %a, %b, … {attrs}? : (T, …) -> U (or ": T" for one type
// shared by every operand and the result).
func parseTosaOp(p *OpParser, st *ir.OperationState) error {
	var ops []Operand
	if p.IsNextOperand() {
		var err error
		if ops, err = p.ParseOperandList(); err != nil {
			return err
		}
	}
	if err := parseTosaAttrDict(p, st); err != nil {
		return err
	}
	ins, res, err := hloTypes(p, len(ops))
	if err != nil {
		return err
	}
	if len(ins) != len(ops) {
		return p.Errorf("'%s' expects %d operand types, found %d", p.Name(), len(ops), len(ins))
	}
	st.ResultTypes = res
	return p.ResolveOperands(st, ops, ins)
}

// parseTosaCondIf: %c (%a = %x, …)? : tensor<i1> ((T, …))? -> (U, …)
// { then } else { else } {attrs}?, or the older "%c -> (U, …) { … }".
func parseTosaCondIf(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	cond := r.operand()
	var args []Argument
	var inits []Operand
	if r.ok() && p.IsNext("(") {
		args, inits = r.assignmentList()
	}
	var ct ir.Type = ir.Tensor(nil, ir.I1)
	var inTypes []ir.Type
	switch {
	case !r.ok():
	case p.IsNext("->"):
		// Older form: "%c -> (U, …)", the condition typed tensor<i1>.
		st.ResultTypes = r.arrowTypes()
	default:
		r.expect(":")
		ct = r.typ()
		if r.ok() && p.IsNext("(") {
			// "(T, …) -> U" reads as one function type.
			ft, ok := r.typ().(*ir.FunctionType)
			if r.ok() && !ok {
				return p.Errorf("expected the input types and '->' results of 'tosa.cond_if'")
			}
			if ok {
				inTypes, st.ResultTypes = ft.Inputs, ft.Results
			}
		} else {
			st.ResultTypes = r.arrowTypes()
		}
	}
	if !r.ok() {
		return r.err
	}
	if len(inTypes) != len(inits) {
		return p.Errorf("'tosa.cond_if' has %d inputs but %d input types", len(inits), len(inTypes))
	}
	r.resolve([]Operand{cond}, ct)
	r.resolve(inits, inTypes...)
	for i := range args {
		args[i].Type = inTypes[i]
	}
	r.region(args)
	r.keyword("else")
	r.region(args)
	r.attrDict()
	return r.err
}

// parseTosaWhile: (%a = %x, …) : (T, …) -> (U, …) { cond } do { body }
// {attrs}?
func parseTosaWhile(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	args, inits := r.assignmentList()
	r.whileRegions(args, inits)
	r.attrDict()
	return r.err
}

// parseTosaVariable: @name (= typed-value | : T (= value)?) {attrs}?
func parseTosaVariable(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	st.AddAttr("sym_name", ir.Str(r.symbol()))
	if r.ok() && p.Optional("=") {
		pos := p.CurrentPos()
		v := r.attr()
		ta, ok := v.(ir.TypedAttr)
		if r.ok() && !ok {
			return p.ErrorfAt(pos, "'tosa.variable' needs a typed initial value")
		}
		if ok {
			st.AddAttr("initial_value", v)
			st.AddAttr("type", ir.TypeAttrOf(ta.AttrType()))
		}
	} else {
		st.AddAttr("type", ir.TypeAttrOf(r.colonType()))
		if r.ok() && p.Optional("=") {
			st.AddAttr("initial_value", r.attr())
		}
	}
	r.attrDict()
	return r.err
}

// parseTosaVariableRead: @name {attrs}? : T
func parseTosaVariableRead(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	st.AddAttr("name", ir.Str(r.symbol()))
	r.attrDict()
	st.ResultTypes = []ir.Type{r.colonType()}
	return r.err
}

// parseTosaVariableWrite: @name, %v {attrs}? : T
func parseTosaVariableWrite(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	st.AddAttr("name", ir.Str(r.symbol()))
	r.expect(",")
	v := r.operand()
	r.attrDict()
	r.resolve([]Operand{v}, r.colonType())
	return r.err
}
