package parser

import "github.com/gree-ml/gree/go/compiler/ir"

// Syntaxes of the scf dialect (MLIR's SCF.cpp parsers and SCFOps.td
// formats) and of the cf branch ops. Structure in generic form:
//
//	scf.for          operands: lb, ub, step, inits…; region ^bb(%iv, iter
//	                 args…); unsignedCmp (unit) for "scf.for unsigned"
//	scf.if           operand: the i1 condition; regions: then, else (empty
//	                 when not written)
//	scf.while        operands: inits…; regions: before (ending in
//	                 scf.condition), after (ending in scf.yield)
//	scf.execute_region  one region; no_inline (unit)
//	scf.index_switch operand: the index; cases (array<i64>); regions:
//	                 default first, then one per case
//	cf.cond_br       operands: cond, true args…, false args…;
//	                 operandSegmentSizes; successors: true, false
//	cf.assert        msg (string)
//
// As in MLIR, the bodies of scf.for and scf.if (and the regions of
// scf.index_switch) get an empty scf.yield when written without a
// terminator.
func init() {
	registerOwn("scf.for", parseScfForOp)
	registerOwn("scf.if", parseScfIfOp)
	registerOwn("scf.while", parseScfWhileOp)
	registerOwn("scf.condition", parseScfConditionOp)
	registerOwn("scf.yield", parseReturnOp)
	registerOwn("scf.execute_region", parseScfExecuteRegionOp)
	registerOwn("scf.index_switch", parseScfIndexSwitchOp)
	registerOwn("cf.br", parseCfBrOp)
	registerOwn("cf.cond_br", parseCfCondBrOp)
	registerOwn("cf.assert", parseCfAssertOp)
}

// ensureTerminator appends "scf.yield" (at loc) to the last block of reg
// unless it ends with a terminator or an unregistered op (which may be
// one); an empty region gets a block first. This is MLIR's
// SingleBlockImplicitTerminator<"scf::YieldOp">.
func ensureTerminator(reg *ir.Region, loc ir.Location) {
	if reg == nil {
		return
	}
	if len(reg.Blocks) == 0 {
		reg.AddBlock(ir.NewBlock())
	}
	b := reg.Blocks[len(reg.Blocks)-1]
	if last := b.Terminator(); last != nil {
		if info, ok := ir.LookupOp(last.Name); !ok || info.Terminator {
			return
		}
	}
	b.Append(ir.NewOperation(&ir.OperationState{Name: "scf.yield", Loc: loc}))
}

// assignmentList parses "(%arg = %init, …)": the region arguments (typed
// later by the caller) and the uses that initialize them.
func (r *reader) assignmentList() (args []Argument, inits []Operand) {
	r.expect("(")
	for r.ok() && !r.p.Optional(")") {
		if len(args) > 0 {
			r.expect(",")
		}
		pos := r.p.CurrentPos()
		a := r.operand()
		r.expect("=")
		inits = append(inits, r.operand())
		args = append(args, Argument{Operand: a, Loc: r.p.LocAt(pos)})
	}
	return args, inits
}

// parseScfForOp:
//
//	scf.for unsigned? %iv = %lb to %ub step %step
//	    (iter_args(%a = %init, …) -> (T, …))? (: T)? { body } {attrs}?
//
// The bounds and inits are resolved after the body, as MLIR does.
func parseScfForOp(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	if r.optKeyword("unsigned") {
		st.AddAttr("unsignedCmp", ir.Unit)
	}
	ivPos := p.CurrentPos()
	iv := Argument{Operand: r.operand(), Loc: p.LocAt(ivPos)}
	r.expect("=")
	lb := r.operand()
	r.keyword("to")
	ub := r.operand()
	r.keyword("step")
	step := r.operand()
	var iterArgs []Argument
	var inits []Operand
	if r.optKeyword("iter_args") {
		iterArgs, inits = r.assignmentList()
		if r.ok() && !p.IsNext("->") {
			return p.Errorf("expected '->' and the result types after 'iter_args(…)'")
		}
		st.ResultTypes = r.arrowTypes()
		if r.ok() && len(iterArgs) != len(st.ResultTypes) {
			return p.ErrorfAt(ivPos, "mismatch in number of loop-carried values (%d) and defined values (%d)", len(iterArgs), len(st.ResultTypes))
		}
	}
	iv.Type = ir.Type(ir.Index)
	if r.ok() && p.Optional(":") {
		iv.Type = r.typ()
	}
	if !r.ok() {
		return r.err
	}
	for i := range iterArgs {
		iterArgs[i].Type = st.ResultTypes[i]
	}
	ensureTerminator(r.region(append([]Argument{iv}, iterArgs...)), st.Loc)
	r.resolve([]Operand{lb, ub, step}, iv.Type, iv.Type, iv.Type)
	r.resolve(inits, st.ResultTypes...)
	r.attrDict()
	return r.err
}

// parseScfIfOp: scf.if %c (-> (T, …))? { then } (else { else })? {attrs}?
func parseScfIfOp(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	r.resolve([]Operand{r.operand()}, ir.I1)
	st.ResultTypes = r.arrowTypes()
	ensureTerminator(r.region(nil), st.Loc)
	if r.optKeyword("else") {
		ensureTerminator(r.region(nil), st.Loc)
	} else {
		st.AddRegion()
	}
	r.attrDict()
	return r.err
}

// parseScfWhileOp:
//
//	scf.while (%a = %init, …)? : (T, …) -> (U, …) { before } do { after }
//	    (attributes {…})?
func parseScfWhileOp(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	var args []Argument
	var inits []Operand
	if r.ok() && p.IsNext("(") {
		args, inits = r.assignmentList()
	}
	r.whileRegions(args, inits)
	if r.ok() {
		r.set(p.ParseOptionalAttrDictWithKeyword(st))
	}
	return r.err
}

// whileRegions parses the part that scf.while and tosa.while_loop share,
// ": (T, …) -> (U, …) { before } do { after }", given the entry arguments
// and initial values before it: the inputs type both, the results are the
// op's.
func (r *reader) whileRegions(args []Argument, inits []Operand) {
	r.expect(":")
	pos := r.p.CurrentPos()
	ft := r.functionType()
	if !r.ok() {
		return
	}
	if len(ft.Inputs) != len(inits) {
		r.set(r.p.ErrorfAt(pos, "expected as many input types as operands (expected %d got %d)", len(inits), len(ft.Inputs)))
		return
	}
	r.st.ResultTypes = ft.Results
	r.resolve(inits, ft.Inputs...)
	for i := range args {
		args[i].Type = ft.Inputs[i]
	}
	r.region(args)
	r.keyword("do")
	r.region(nil)
}

// parseScfConditionOp: scf.condition(%c) {attrs}? (%a, … : T, …)?
func parseScfConditionOp(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	r.expect("(")
	c := r.operand()
	r.expect(")")
	r.attrDict()
	r.resolve([]Operand{c}, ir.I1)
	if ops := r.operands(); len(ops) > 0 {
		r.resolve(ops, r.colonTypes()...)
	}
	return r.err
}

// parseScfExecuteRegionOp: scf.execute_region (-> (T, …))? no_inline?
// { body } {attrs}?
func parseScfExecuteRegionOp(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	st.ResultTypes = r.arrowTypes()
	if r.optKeyword("no_inline") {
		st.AddAttr("no_inline", ir.Unit)
	}
	r.region(nil)
	r.attrDict()
	return r.err
}

// parseScfIndexSwitchOp: scf.index_switch %i {attrs}? (-> (T, …))?
// (case N { … })* default { … }
func parseScfIndexSwitchOp(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	r.resolve([]Operand{r.operand()}, ir.Index)
	r.attrDict()
	st.ResultTypes = r.arrowTypes()
	cases := ir.I64Array()
	cases.Ints = []int64{}
	var regions []*ir.Region
	for r.optKeyword("case") {
		cases.Ints = append(cases.Ints, r.integer())
		regions = append(regions, r.region(nil))
	}
	r.keyword("default")
	def := r.region(nil)
	if !r.ok() {
		return r.err
	}
	st.AddAttr("cases", cases)
	st.Regions = append([]*ir.Region{def}, regions...)
	for _, reg := range st.Regions {
		ensureTerminator(reg, st.Loc)
	}
	return nil
}

// successor parses "^bb" or "^bb(%a, … : T, …)", adding the block to the
// op's successors and resolving its operands; it returns their number.
func (r *reader) successor() int {
	if !r.ok() {
		return 0
	}
	b, err := r.p.ParseSuccessor()
	if r.err = err; err != nil {
		return 0
	}
	r.st.Successors = append(r.st.Successors, b)
	if !r.p.Optional("(") {
		return 0
	}
	ops := r.operands()
	r.resolve(ops, r.colonTypes()...)
	r.expect(")")
	return len(ops)
}

// parseCfBrOp: cf.br ^bb(%a, … : T, …)? {attrs}?
func parseCfBrOp(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	r.successor()
	r.attrDict()
	return r.err
}

// parseCfCondBrOp: cf.cond_br %c, ^t(…)?, ^f(…)? {attrs}?
func parseCfCondBrOp(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	r.resolve([]Operand{r.operand()}, ir.I1)
	r.expect(",")
	nTrue := r.successor()
	r.expect(",")
	nFalse := r.successor()
	r.attrDict()
	st.AddAttr("operandSegmentSizes", segmentSizes(1, nTrue, nFalse))
	return r.err
}

// parseCfAssertOp: cf.assert %c, "message" {attrs}?
func parseCfAssertOp(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	r.resolve([]Operand{r.operand()}, ir.I1)
	r.expect(",")
	if r.ok() {
		msg, err := p.ParseString()
		r.set(err)
		st.AddAttr("msg", ir.Str(msg))
	}
	r.attrDict()
	return r.err
}
