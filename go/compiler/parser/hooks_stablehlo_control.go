package parser

import "github.com/gree-ml/gree/go/compiler/ir"

// Pretty syntax of stablehlo.while (if and case print in generic form):
//
//	stablehlo.while(%a = %init, …) : T, … (attributes {…})?
//	    cond { …; stablehlo.return %p : tensor<i1> }
//	    do { …; stablehlo.return %next, … : T, … }
//
// Both regions take the loop values as arguments, named by the list.
//
// and the pretty forms of composite, tuple and the remaining dynamic ops:
//
//	stablehlo.composite "name" %a, … {decomposition = @f, …} : (T, …) -> U
//	stablehlo.tuple %a, %b : tuple<T, U>
//	stablehlo.get_tuple_element %t[1] : (tuple<T, U>) -> U
//	stablehlo.dynamic_pad %x, %v, %lo, %hi, %in : (…) -> U
//	stablehlo.real_dynamic_slice %x, %start, %limit, %strides : (…) -> U
//	stablehlo.partition_id : tensor<ui32>                (also replica_id)
//	stablehlo.einsum %a, %b, config = "ab,bc->ac" : (T, U) -> V   (also unary_einsum)
func init() {
	registerOwn("stablehlo.while", parseHLOWhile)
	registerOwn("stablehlo.composite", parseHLOComposite)
	registerOwn("stablehlo.tuple", parseHLOTuple)
	registerOwn("stablehlo.get_tuple_element", parseHLOGetTupleElement)
	registerOwn("stablehlo.dynamic_pad", hloOperandsFunctional)
	registerOwn("stablehlo.real_dynamic_slice", hloOperandsFunctional)
	registerOwn("stablehlo.einsum", parseHLOEinsum)
	registerOwn("stablehlo.unary_einsum", parseHLOEinsum)
	registerOwn("stablehlo.replica_id", parseHLONullary)
	registerOwn("stablehlo.partition_id", parseHLONullary)
}

// parseHLONullary: {attrs}? : T (replica_id, partition_id)
func parseHLONullary(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	r.attrDict()
	st.ResultTypes = []ir.Type{r.colonType()}
	return r.err
}

func parseHLOTuple(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	var ops []Operand
	if p.IsNextOperand() {
		ops = r.operands()
	}
	r.attrDict()
	t := r.colonType()
	if !r.ok() {
		return r.err
	}
	tt, ok := t.(*ir.TupleType)
	if !ok || len(tt.Types) != len(ops) {
		return p.Errorf("'stablehlo.tuple' expects a tuple type with one element per operand")
	}
	st.ResultTypes = []ir.Type{t}
	r.resolve(ops, tt.Types...)
	return r.err
}

func parseHLOGetTupleElement(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	x := r.operand()
	r.expect("[")
	i := r.integer()
	r.expect("]")
	st.AddAttr("index", ir.IntAttr(i, ir.I32))
	r.functionTyped([]Operand{x})
	return r.err
}

// parseHLOComposite: stablehlo.composite "name" %a, … {attrs} : (T, …) -> U
func parseHLOComposite(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	name, err := p.ParseString()
	if err != nil {
		return err
	}
	st.AddAttr("name", ir.Str(name))
	var ops []Operand
	if p.IsNextOperand() {
		ops = append(ops, r.operand())
		for r.ok() && p.Optional(",") {
			ops = append(ops, r.operand())
		}
	}
	r.functionTyped(ops)
	return r.err
}

func parseHLOWhile(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	if !p.IsNext("(") {
		return p.Errorf("expected '(' after 'stablehlo.while' (or use the generic form)")
	}
	args, inits := r.assignmentList()
	var ts []ir.Type
	if len(args) > 0 {
		ts = r.colonTypes()
	} else if r.ok() {
		p.Optional(":") // "stablehlo.while() :" carries no values
	}
	if !r.ok() {
		return r.err
	}
	if len(ts) != len(args) {
		return p.Errorf("'stablehlo.while' has %d loop values but %d types", len(args), len(ts))
	}
	st.ResultTypes = ts
	r.resolve(inits, ts...)
	if r.ok() {
		r.set(p.ParseOptionalAttrDictWithKeyword(st))
	}
	for i := range args {
		args[i].Type = ts[i]
	}
	r.keyword("cond")
	r.region(args)
	r.keyword("do")
	r.region(args)
	return r.err
}

// parseHLOEinsum: %a (, %b)?, config = "spec" {attrs}? : (T…) -> U
func parseHLOEinsum(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	ops := []Operand{r.operand()}
	for r.ok() && p.Optional(",") {
		if p.IsNextOperand() {
			ops = append(ops, r.operand())
			continue
		}
		r.keyword("config")
		r.expect("=")
		if r.ok() {
			cfg, err := p.ParseString()
			r.set(err)
			st.AddAttr("einsum_config", ir.Str(cfg))
		}
		break
	}
	r.functionTyped(ops)
	return r.err
}
