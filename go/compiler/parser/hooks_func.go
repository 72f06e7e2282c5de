package parser

import "github.com/gree-ml/gree/go/compiler/ir"

func init() {
	registerOwn(ir.ModuleOpName, parseModuleOp)
	registerOwn("func.func", parseFuncOp)
	registerOwn("func.return", parseReturnOp)
	registerOwn("func.call", parseCallOp)
}

// parseModuleOp: module @name? (attributes {…})? { body }
func parseModuleOp(p *OpParser, st *ir.OperationState) error {
	if name, ok := p.ParseOptionalSymbolName(); ok {
		st.AddAttr("sym_name", ir.Str(name))
	}
	if err := p.ParseOptionalAttrDictWithKeyword(st); err != nil {
		return err
	}
	pos := p.CurrentPos()
	r, err := p.ParseRegion(nil)
	if err != nil {
		return err
	}
	if len(r.Blocks) == 0 {
		r.AddBlock(ir.NewBlock())
	}
	if len(r.Blocks) > 1 || len(r.Blocks[0].Args) > 0 {
		return p.ErrorfAt(pos, "'%s' expects a single block without arguments", st.Name)
	}
	st.Regions = append(st.Regions, r)
	return nil
}

// parseFuncOp:
//
//	func.func (public|private|nested)? @name(%arg0: T {attrs}? loc?, …)
//	    (-> T | -> (T {attrs}?, …))? (attributes {…})? ({ body })?
//
// A declaration (no body) may list bare argument types. The signature
// becomes function_type, argument and result attributes become arg_attrs
// and res_attrs (arrays of dictionaries, present when any is non-empty).
func parseFuncOp(p *OpParser, st *ir.OperationState) error {
	if kw, ok := p.PeekKeyword(); ok && (kw == "public" || kw == "private" || kw == "nested") {
		p.OptionalKeyword(kw)
		if kw != "public" {
			st.AddAttr("sym_visibility", ir.Str(kw))
		}
	}
	name, err := p.ParseSymbolName()
	if err != nil {
		return err
	}
	st.AddAttr("sym_name", ir.Str(name))
	if err := p.Expect("("); err != nil {
		return err
	}
	var args []Argument
	named := false
	if !p.Optional(")") {
		named = p.IsNextOperand()
		for {
			if p.IsNext("...") {
				return p.Errorf("variadic functions are not supported by 'func.func'")
			}
			a, err := p.ParseArgument(named, true)
			if err != nil {
				return err
			}
			args = append(args, a)
			if !p.Optional(",") {
				break
			}
		}
		if err := p.Expect(")"); err != nil {
			return err
		}
	}
	var results []ir.Type
	var resAttrs []ir.Attribute
	if p.Optional("->") {
		if p.Optional("(") {
			if !p.Optional(")") {
				for {
					a, err := p.ParseArgument(false, true)
					if err != nil {
						return err
					}
					results = append(results, a.Type)
					resAttrs = append(resAttrs, &ir.DictAttr{Entries: a.Attrs})
					if !p.Optional(",") {
						break
					}
				}
				if err := p.Expect(")"); err != nil {
					return err
				}
			}
		} else {
			t, err := p.ParseType()
			if err != nil {
				return err
			}
			results = append(results, t)
			resAttrs = append(resAttrs, &ir.DictAttr{})
		}
	}
	if err := p.ParseOptionalAttrDictWithKeyword(st); err != nil {
		return err
	}
	ft := &ir.FunctionType{Inputs: []ir.Type{}, Results: results}
	var argAttrs []ir.Attribute
	for _, a := range args {
		ft.Inputs = append(ft.Inputs, a.Type)
		argAttrs = append(argAttrs, &ir.DictAttr{Entries: a.Attrs})
	}
	if ft.Results == nil {
		ft.Results = []ir.Type{}
	}
	st.AddAttr("function_type", ir.TypeAttrOf(ft))
	if anyNonEmpty(argAttrs) {
		st.AddAttr("arg_attrs", ir.Array(argAttrs...))
	}
	if anyNonEmpty(resAttrs) {
		st.AddAttr("res_attrs", ir.Array(resAttrs...))
	}
	if p.IsNext("{") {
		if len(args) > 0 && !named {
			return p.Errorf("a function with a body needs named arguments ('%%arg0: type')")
		}
		r, err := p.ParseRegion(args)
		if err != nil {
			return err
		}
		st.Regions = append(st.Regions, r)
		return nil
	}
	st.Regions = append(st.Regions, &ir.Region{})
	return nil
}

func anyNonEmpty(dicts []ir.Attribute) bool {
	for _, d := range dicts {
		if len(d.(*ir.DictAttr).Entries) > 0 {
			return true
		}
	}
	return false
}

// parseReturnOp: return {attrs}? (%a, %b : T, U)?
func parseReturnOp(p *OpParser, st *ir.OperationState) error {
	_, err := parseAttrsTypedOperands(p, st)
	return err
}

// parseAttrsTypedOperands parses "{attrs}? (%a, %b : T, U)?", the syntax of
// terminators and barriers, resolving the operands; it returns their types.
func parseAttrsTypedOperands(p *OpParser, st *ir.OperationState) ([]ir.Type, error) {
	if err := p.ParseOptionalAttrDict(st); err != nil {
		return nil, err
	}
	ops, err := p.ParseOperandList()
	if err != nil || len(ops) == 0 {
		return nil, err
	}
	ts, err := p.ParseColonTypeList()
	if err != nil {
		return nil, err
	}
	return ts, p.ResolveOperands(st, ops, ts)
}

// parseCallOp: call @callee(%a, …) {attrs}? : (T, …) -> results
func parseCallOp(p *OpParser, st *ir.OperationState) error {
	callee, err := p.ParseSymbolName()
	if err != nil {
		return err
	}
	st.AddAttr("callee", ir.SymRef(callee))
	ops, err := parseParenOperands(p)
	if err != nil {
		return err
	}
	if err := p.ParseOptionalAttrDict(st); err != nil {
		return err
	}
	if err := p.Expect(":"); err != nil {
		return err
	}
	ft, err := p.ParseFunctionType()
	if err != nil {
		return err
	}
	if err := p.ResolveOperands(st, ops, ft.Inputs); err != nil {
		return err
	}
	st.ResultTypes = ft.Results
	return nil
}
