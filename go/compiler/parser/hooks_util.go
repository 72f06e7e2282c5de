package parser

import "github.com/gree-ml/gree/go/compiler/ir"

// Syntaxes of IREE's util globals and functions and of the flow tensor ops
// that IREE's e2e tests write, as IREE's ODS and custom parsers define
// them. Attribute names follow the ODS arguments:
//
//	util.global        sym_visibility? (string), is_mutable (unit), sym_name,
//	                   type (type attr), initial_value?, + attr-dict
//	util.global.load   global (@sym), is_immutable (unit)
//	util.global.store  global (@sym); operand: the value
//	util.func          sym_visibility?, sym_name, function_type, arg_attrs?,
//	                   res_attrs?, tied_operands ([i : index], -1 = untied;
//	                   present when the function has results)
//	flow.tensor.dynamic_constant, flow.tensor.constant   value
//	flow.tensor.tie_shape   operands: tensor, dynamic dims…
//	flow.tensor.bitcast     operands: source, source dims…, result dims…;
//	                        operandSegmentSizes
//
// The rest of the file holds the helpers the linalg, tensor and scf
// syntaxes share.
func init() {
	registerOwn("util.global", parseUtilGlobalOp)
	registerOwn("util.global.load", parseUtilGlobalLoadOp)
	registerOwn("util.global.store", parseUtilGlobalStoreOp)
	registerOwn("util.func", parseUtilFuncOp)
	registerOwn("util.return", parseReturnOp)
	registerOwn("flow.tensor.dynamic_constant", parseFlowConstantOp(true))
	registerOwn("flow.tensor.constant", parseFlowConstantOp(false))
	registerOwn("flow.tensor.tie_shape", parseFlowTieShapeOp)
	registerOwn("flow.tensor.bitcast", parseFlowBitcastOp)
	registerOwn("flow.tensor.trace", parseFlowTensorTraceOp)
}

// parseOptionalVisibility parses public/private/nested into sym_visibility
// (IREE's custom<SymbolVisibility> keeps even "public" when written).
func parseOptionalVisibility(p *OpParser, st *ir.OperationState) {
	if kw, ok := p.PeekKeyword(); ok && (kw == "public" || kw == "private" || kw == "nested") {
		p.OptionalKeyword(kw)
		st.AddAttr("sym_visibility", ir.Str(kw))
	}
}

// parseUtilGlobalOp: util.global vis? mutable? @name {attrs}?
// (: T (= value)? | = typed-value)
func parseUtilGlobalOp(p *OpParser, st *ir.OperationState) error {
	parseOptionalVisibility(p, st)
	if p.OptionalKeyword("mutable") {
		st.AddAttr("is_mutable", ir.Unit)
	}
	r := &reader{p: p, st: st}
	st.AddAttr("sym_name", ir.Str(r.symbol()))
	r.attrDict()
	if r.ok() && p.Optional("=") {
		pos := p.CurrentPos()
		v := r.attr()
		if ta, ok := v.(ir.TypedAttr); ok {
			st.AddAttr("initial_value", v)
			st.AddAttr("type", ir.TypeAttrOf(ta.AttrType()))
		} else if r.ok() && p.IsNext(":") {
			// "= #util.byte_pattern<N> : T": every byte of the value is N.
			t := r.colonType()
			if d := bytePatternValue(v, t); d != nil {
				st.AddAttr("initial_value", d)
				st.AddAttr("type", ir.TypeAttrOf(t))
				return r.err
			}
			if r.ok() {
				return p.ErrorfAt(pos, "'util.global' initial value '%s' is not supported by gree", v)
			}
		} else if r.ok() {
			return p.ErrorfAt(pos, "'util.global' needs ': type' before an untyped initial value '%s'", v)
		}
		return r.err
	}
	st.AddAttr("type", ir.TypeAttrOf(r.colonType()))
	if r.ok() && p.Optional("=") {
		st.AddAttr("initial_value", r.attr())
	}
	return r.err
}

// parseUtilGlobalLoadOp: util.global.load immutable? @g {attrs}? : T
func parseUtilGlobalLoadOp(p *OpParser, st *ir.OperationState) error {
	if p.OptionalKeyword("immutable") {
		st.AddAttr("is_immutable", ir.Unit)
	}
	r := &reader{p: p, st: st}
	st.AddAttr("global", ir.SymRef(r.symbol()))
	r.attrDict()
	st.ResultTypes = []ir.Type{r.colonType()}
	return r.err
}

// parseUtilGlobalStoreOp: util.global.store %v, @g {attrs}? : T
func parseUtilGlobalStoreOp(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	v := r.operand()
	r.expect(",")
	st.AddAttr("global", ir.SymRef(r.symbol()))
	r.attrDict()
	r.resolve([]Operand{v}, r.colonType())
	return r.err
}

// parseTiedResults parses IREE's tied result list after '->': "T", "()",
// or "(T {attrs}?, %arg, %arg as T, …)". A result written as an argument's
// name is tied to it and has its type unless "as T" follows. It returns
// the types, the result attribute dictionaries and the tied argument
// indices (-1 when untied).
func parseTiedResults(p *OpParser, args []Argument) ([]ir.Type, []ir.Attribute, []ir.Attribute, error) {
	r := &reader{p: p, st: &ir.OperationState{}}
	var res []ir.Type
	var attrs, tied []ir.Attribute
	paren := p.Optional("(")
	if paren && p.Optional(")") {
		return nil, nil, nil, nil
	}
	for r.ok() {
		idx := int64(-1)
		var t ir.Type
		if p.IsNextOperand() {
			o := r.operand()
			for i, a := range args {
				if a.Operand.Name == o.Name && a.Operand.Number == o.Number {
					idx, t = int64(i), a.Type
				}
			}
			if idx < 0 && r.ok() {
				return nil, nil, nil, p.ErrorfAt(o.Pos, "tied operand not found for result reference %s", o.Name)
			}
			if r.ok() && p.OptionalKeyword("as") {
				t = r.typ()
			}
		} else {
			t = r.typ()
		}
		d := &ir.OperationState{}
		if paren && r.ok() {
			r.set(p.ParseOptionalAttrDict(d))
		}
		res = append(res, t)
		attrs = append(attrs, ir.NewDict(d.Attrs...))
		tied = append(tied, ir.IntAttr(idx, ir.Index))
		if !p.Optional(",") {
			break
		}
	}
	if paren {
		r.expect(")")
	}
	return res, attrs, tied, r.err
}

// parseUtilFuncOp:
//
//	util.func vis? @name(%a: T {attrs}?, …) (-> tied-results)?
//	    (attributes {…})? ({ body })?
func parseUtilFuncOp(p *OpParser, st *ir.OperationState) error {
	parseOptionalVisibility(p, st)
	r := &reader{p: p, st: st}
	st.AddAttr("sym_name", ir.Str(r.symbol()))
	args, named := r.argumentList(true, false)
	ft := &ir.FunctionType{Inputs: []ir.Type{}, Results: []ir.Type{}}
	var argAttrs, resAttrs []ir.Attribute
	for _, a := range args {
		ft.Inputs = append(ft.Inputs, a.Type)
		argAttrs = append(argAttrs, &ir.DictAttr{Entries: a.Attrs})
	}
	if r.ok() && p.Optional("->") {
		res, attrs, tied, err := parseTiedResults(p, args)
		if err != nil {
			return err
		}
		ft.Results = append(ft.Results, res...)
		resAttrs = attrs
		if tied != nil {
			st.AddAttr("tied_operands", ir.Array(tied...))
		}
	}
	st.AddAttr("function_type", ir.TypeAttrOf(ft))
	if anyNonEmpty(argAttrs) {
		st.AddAttr("arg_attrs", ir.Array(argAttrs...))
	}
	if anyNonEmpty(resAttrs) {
		st.AddAttr("res_attrs", ir.Array(resAttrs...))
	}
	if r.ok() {
		r.set(p.ParseOptionalAttrDictWithKeyword(st))
	}
	if !r.ok() || !p.IsNext("{") {
		st.Regions = append(st.Regions, &ir.Region{})
		return r.err
	}
	if len(args) > 0 && !named {
		return p.Errorf("a function with a body needs named arguments ('%%arg0: type')")
	}
	r.region(args)
	return r.err
}

// parseFlowConstantOp returns the syntax "{attrs}? value" of
// flow.tensor.constant or, with arrow, "{attrs}? value -> T" of
// flow.tensor.dynamic_constant, whose result type may have dynamic
// dimensions. Older IREE wrote the arrow form as flow.tensor.constant.
func parseFlowConstantOp(arrow bool) ParseFunc {
	return func(p *OpParser, st *ir.OperationState) error {
		r := &reader{p: p, st: st}
		r.attrDict()
		if v := get(r, p.ParseTypedAttribute); r.ok() {
			st.AddAttr("value", v)
			st.ResultTypes = []ir.Type{v.AttrType()}
		}
		if arrow || r.ok() && p.IsNext("->") {
			r.expect("->")
			st.ResultTypes = []ir.Type{r.typ()}
		}
		return r.err
	}
}

// shapeDims parses "{%d0, …}", the values of a shape's dynamic
// dimensions, if '{' comes next.
func (r *reader) shapeDims() []Operand {
	if !r.ok() || !r.p.Optional("{") {
		return nil
	}
	dims := r.operands()
	r.expect("}")
	return dims
}

// parseFlowTieShapeOp: flow.tensor.tie_shape %x {attrs}? : T ({%d, …})?
func parseFlowTieShapeOp(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	x := r.operand()
	r.attrDict()
	t := r.colonType()
	dims := r.shapeDims()
	st.ResultTypes = []ir.Type{t}
	r.resolve([]Operand{x}, t)
	r.resolveIndex(dims)
	return r.err
}

// parseFlowBitcastOp: flow.tensor.bitcast %x : T ({dims})? -> U ({dims})?
// (attributes {…})?
func parseFlowBitcastOp(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	x := r.operand()
	from := r.colonType()
	srcDims := r.shapeDims()
	r.expect("->")
	to := r.typ()
	resDims := r.shapeDims()
	if r.ok() {
		r.set(p.ParseOptionalAttrDictWithKeyword(st))
	}
	st.ResultTypes = []ir.Type{to}
	st.AddAttr("operandSegmentSizes", segmentSizes(1, len(srcDims), len(resDims)))
	r.resolve([]Operand{x}, from)
	r.resolveIndex(srcDims)
	r.resolveIndex(resDims)
	return r.err
}

// segmentSizes returns the operandSegmentSizes attribute array<i32: …> of
// an op with AttrSizedOperandSegments.
func segmentSizes(sizes ...int) *ir.DenseArrayAttr {
	a := &ir.DenseArrayAttr{Elem: ir.I32, Ints: []int64{}}
	for _, s := range sizes {
		a.Ints = append(a.Ints, int64(s))
	}
	return a
}

// indexTypes returns n index types.
func indexTypes(n int) []ir.Type {
	ts := make([]ir.Type, n)
	for i := range ts {
		ts[i] = ir.Index
	}
	return ts
}

// reader wraps an OpParser with a sticky error, in the manner of
// bufio.Scanner: after the first failure every method does nothing and
// returns zero values, and err holds that first diagnostic. It keeps the
// syntaxes of the hook files short; code that inspects what a method
// returned must check ok first.
type reader struct {
	p   *OpParser
	st  *ir.OperationState
	err error
}

func (r *reader) ok() bool { return r.err == nil }

// set records err unless an earlier error is already recorded.
func (r *reader) set(err error) {
	if r.err == nil {
		r.err = err
	}
}

// get runs parse unless an error is recorded, and records its error.
func get[T any](r *reader, parse func() (T, error)) (v T) {
	if r.ok() {
		v, r.err = parse()
	}
	return v
}

// do runs step unless an error is recorded, and records its error.
func (r *reader) do(step func() error) {
	if r.ok() {
		r.err = step()
	}
}

func (r *reader) expect(punct string) { r.do(func() error { return r.p.Expect(punct) }) }
func (r *reader) keyword(kw string)   { r.do(func() error { return r.p.ExpectKeyword(kw) }) }
func (r *reader) attrDict()           { r.do(func() error { return r.p.ParseOptionalAttrDict(r.st) }) }
func (r *reader) operand() Operand    { return get(r, r.p.ParseOperand) }
func (r *reader) operands() []Operand { return get(r, r.p.ParseOperandList) }
func (r *reader) typ() ir.Type        { return get(r, r.p.ParseType) }
func (r *reader) types() []ir.Type    { return get(r, r.p.ParseTypeList) }
func (r *reader) colonType() ir.Type  { return get(r, r.p.ParseColonType) }
func (r *reader) colonTypes() []ir.Type {
	return get(r, r.p.ParseColonTypeList)
}
func (r *reader) attr() ir.Attribute { return get(r, r.p.ParseAttribute) }
func (r *reader) integer() int64     { return get(r, r.p.ParseInteger) }
func (r *reader) symbol() string     { return get(r, r.p.ParseSymbolName) }

// optKeyword consumes kw if it comes next (and nothing failed before).
func (r *reader) optKeyword(kw string) bool { return r.ok() && r.p.OptionalKeyword(kw) }

// arrowTypes parses "-> T" or "-> (T, …)" if an arrow comes next.
func (r *reader) arrowTypes() []ir.Type { return get(r, r.p.ParseOptionalArrowTypeList) }

// functionType parses "(T, …) -> results"; after an error it returns an
// empty function type.
func (r *reader) functionType() *ir.FunctionType {
	if ft := get(r, r.p.ParseFunctionType); ft != nil {
		return ft
	}
	return &ir.FunctionType{}
}

// parenOperands parses "(%a, …)".
func (r *reader) parenOperands() []Operand {
	return get(r, func() ([]Operand, error) { return parseParenOperands(r.p) })
}

// bracketOperands parses "[%a, …]".
func (r *reader) bracketOperands() []Operand {
	r.expect("[")
	os := r.operands()
	r.expect("]")
	return os
}

// i64List parses "[1, 2, …]", the short form of a DenseI64ArrayAttr, as
// array<i64: …>.
func (r *reader) i64List() *ir.DenseArrayAttr {
	return ir.I64Array(get(r, r.p.ParseIntegerList)...)
}

// indexList parses MLIR's custom<DynamicIndexList> (see
// OpParser.ParseDynamicIndexList): the values and the static entries as
// array<i64: …>.
func (r *reader) indexList() (ops []Operand, static *ir.DenseArrayAttr) {
	var ints []int64
	if r.ok() {
		ops, ints, r.err = r.p.ParseDynamicIndexList()
	}
	return ops, ir.I64Array(ints...)
}

// argumentList parses "(%a: T, …)" (or, unless requireNamed, "(T, …)"),
// with "{attrs}" after each when allowAttrs. named tells which form it was.
func (r *reader) argumentList(allowAttrs, requireNamed bool) (args []Argument, named bool) {
	r.expect("(")
	named = requireNamed || (r.ok() && r.p.IsNextOperand())
	for r.ok() && !r.p.Optional(")") {
		if len(args) > 0 {
			r.expect(",")
		}
		if a := get(r, func() (Argument, error) { return r.p.ParseArgument(named, allowAttrs) }); r.ok() {
			args = append(args, a)
		}
	}
	return args, named
}

// region parses "{ … }" with the given entry arguments and appends it to
// the op's regions.
func (r *reader) region(args []Argument) *ir.Region {
	reg := get(r, func() (*ir.Region, error) { return r.p.ParseRegion(args) })
	r.st.Regions = append(r.st.Regions, reg)
	return reg
}

// resolve resolves uses against types one to one, appending the operands.
func (r *reader) resolve(ops []Operand, ts ...ir.Type) {
	r.do(func() error { return r.p.ResolveOperands(r.st, ops, ts) })
}

// resolveIndex resolves uses of index values.
func (r *reader) resolveIndex(ops []Operand) { r.resolve(ops, indexTypes(len(ops))...) }

// parseFlowTensorTraceOp: flow.tensor.trace "key" = [%v : T ({dims})?, …]
// (attributes {…})?
func parseFlowTensorTraceOp(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	key := get(r, p.ParseString)
	r.expect("=")
	r.expect("[")
	var vals, dims []Operand
	var types []ir.Type
	for r.ok() && !p.Optional("]") {
		if len(vals) > 0 {
			r.expect(",")
		}
		vals = append(vals, r.operand())
		types = append(types, r.colonType())
		dims = append(dims, r.shapeDims()...)
	}
	if r.ok() {
		r.set(p.ParseOptionalAttrDictWithKeyword(st))
	}
	st.AddAttr("key", &ir.StringAttr{Value: key})
	st.AddAttr("operandSegmentSizes", segmentSizes(len(vals), len(dims)))
	r.resolve(vals, types...)
	r.resolveIndex(dims)
	return r.err
}
