package parser

import "github.com/gree-ml/gree/go/compiler/ir"

// stablehlo.while's pretty syntax (if and case print in generic form):
//
//	stablehlo.while(%a = %init, …) : T, … (attributes {…})?
//	    cond { …; stablehlo.return %p : tensor<i1> }
//	    do { …; stablehlo.return %next, … : T, … }
//
// Both regions take the loop values as arguments, named by the list.
func init() {
	registerOwn("stablehlo.while", parseHLOWhile)
	registerOwn("stablehlo.composite", parseHLOComposite)
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
