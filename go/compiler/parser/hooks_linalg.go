package parser

import (
	"strings"

	"github.com/gree-ml/gree/go/compiler/ir"
)

// Syntaxes of the linalg dialect, as MLIR's LinalgOps.cpp parses them.
// Operands are the ins followed by the outs; results are the tensor types
// after '->' (or, for map/reduce/transpose/broadcast, the ranked tensor
// outs). Attributes:
//
//	linalg.generic    indexing_maps ([affine_map…]), iterator_types
//	                  ([#linalg.iterator_type<parallel|reduction|window>…],
//	                  converted from the "parallel" strings tests write),
//	                  doc?/library_call? + `attrs = {…}` entries,
//	                  operandSegmentSizes = [#ins, #outs]; region as written
//	linalg.map        region: ^bb(inputs…, init) — from the short form
//	                  "{ arith.addf }" it is built: payload(inputs) + yield
//	linalg.reduce     dimensions (array<i64>); region: ^bb(inputs…, inits…);
//	                  short form payload operands: (init, inputs…)
//	linalg.transpose  permutation (array<i64>); linalg.broadcast dimensions;
//	                  both get MLIR's identity region ^bb(%in, %init): yield %in
//	named ops         operandSegmentSizes + the attr-dict (strides, dilations,
//	                  cast, …); matmul, batch_matmul, batch_reduce_matmul
//	                  always carry indexing_maps (MLIR's defaults when not
//	                  written), contract requires it, elementwise carries kind
//	                  (#linalg.elementwise_kind<…>, written "<exp>") and
//	                  indexing_maps
//	linalg.softmax    dimension (i64); operands input, output
//	linalg.index      dim (i64)
//
// Named structured ops (matmul, fill, conv_*, pooling_*, add, …) are
// created WITHOUT the body region MLIR would build from their OpDSL
// definition: downstream code knows their semantics by name. linalg.pack
// and linalg.unpack are in hooks_tensor.go.
func init() {
	registerOwn("linalg.generic", parseLinalgGenericOp)
	registerOwn("linalg.map", parseLinalgMapOp(false))
	registerOwn("linalg.reduce", parseLinalgMapOp(true))
	registerOwn("linalg.transpose", parseIdentityRegionOp("permutation"))
	registerOwn("linalg.broadcast", parseIdentityRegionOp("dimensions"))
	registerOwn("linalg.softmax", parseLinalgSoftmaxOp)
	registerOwn("linalg.index", parseLinalgIndexOp)
	registerOwn("linalg.yield", parseLinalgYieldOp)
	for _, n := range linalgNamedOps {
		registerOwn("linalg."+n, parseNamedStructuredOp(nil))
	}
	registerOwn("linalg.matmul", parseNamedStructuredOp(defaultMaps(3, "02", "21", "01")))
	registerOwn("linalg.batch_matmul", parseNamedStructuredOp(defaultMaps(4, "013", "032", "012")))
	registerOwn("linalg.batch_reduce_matmul", parseNamedStructuredOp(defaultMaps(4, "013", "032", "12")))
	registerOwn("linalg.contract", parseNamedStructuredOp(func(*ir.OperationState) ir.Attribute { return nil }))
	registerOwn("linalg.elementwise", parseNamedStructuredOp(elementwiseMaps))
}

// linalgNamedOps are the named structured ops of MLIR's OpDSL (and some
// removed since, which older inputs still use), parsed with the shared
// "ins(…) outs(…) -> T" syntax.
var linalgNamedOps = strings.Fields(`
	copy fill fill_rng_2d elemwise_unary elemwise_binary
	exp log abs ceil floor negf reciprocal round sqrt rsqrt square tanh erf
	add sub mul div div_unsigned max min powf select
	matmul_unsigned matmul_transpose_a matmul_transpose_b quantized_matmul
	batch_matmul_transpose_a batch_matmul_transpose_b quantized_batch_matmul
	mmt4d batch_mmt4d matvec vecmat batch_matvec batch_vecmat dot
	conv_1d conv_2d conv_3d conv_1d_nwc_wcf conv_1d_ncw_fcw
	conv_2d_nhwc_hwcf conv_2d_nhwc_fhwc conv_2d_nhwc_hwcf_q conv_2d_nhwc_fhwc_q
	conv_2d_nchw_fchw conv_2d_nchw_fchw_q conv_2d_ngchw_fgchw conv_2d_ngchw_gfchw
	conv_2d_ngchw_gfchw_q conv_2d_nhwgc_gfhwc conv_2d_nhwgc_gfhwc_q
	conv_3d_ndhwc_dhwcf conv_3d_ndhwc_dhwcf_q conv_3d_ncdhw_fcdhw
	depthwise_conv_1d_nwc_wc depthwise_conv_1d_ncw_cw depthwise_conv_1d_nwc_wcm
	depthwise_conv_2d_nchw_chw depthwise_conv_2d_nhwc_hwc depthwise_conv_2d_nhwc_hwc_q
	depthwise_conv_2d_nhwc_hwcm depthwise_conv_2d_nhwc_hwcm_q
	depthwise_conv_3d_ndhwc_dhwc depthwise_conv_3d_ncdhw_cdhw depthwise_conv_3d_ndhwc_dhwcm
	pooling_nhwc_sum pooling_nchw_sum pooling_nhwc_max pooling_nhwc_max_unsigned
	pooling_nchw_max pooling_nhwc_min pooling_nhwc_min_unsigned
	pooling_nwc_sum pooling_ncw_sum pooling_nwc_max pooling_nwc_max_unsigned
	pooling_ncw_max pooling_nwc_min pooling_nwc_min_unsigned
	pooling_ndhwc_sum pooling_ndhwc_max pooling_ndhwc_min`)

// defaultMaps returns the indexing_maps MLIR gives a matmul-like op when
// none are written: each string lists the result dims of one map over
// dims d0…d(dims-1).
func defaultMaps(dims int, results ...string) func(*ir.OperationState) ir.Attribute {
	return func(*ir.OperationState) ir.Attribute {
		var maps []ir.Attribute
		for _, res := range results {
			m := &ir.AffineMap{NumDims: dims, Results: []ir.AffineExpr{}}
			for _, c := range res {
				m.Results = append(m.Results, &ir.AffineDimExpr{Pos: int(c - '0')})
			}
			maps = append(maps, &ir.AffineMapAttr{Map: m})
		}
		return ir.Array(maps...)
	}
}

// elementwiseMaps returns the default indexing_maps of linalg.elementwise:
// one identity map over the output's rank per operand.
func elementwiseMaps(st *ir.OperationState) ir.Attribute {
	if len(st.Operands) == 0 {
		return nil
	}
	s, ok := st.Operands[len(st.Operands)-1].Type.(ir.ShapedType)
	if !ok {
		return nil
	}
	m := &ir.AffineMap{NumDims: len(s.Shape()), Results: []ir.AffineExpr{}}
	for i := range s.Shape() {
		m.Results = append(m.Results, &ir.AffineDimExpr{Pos: i})
	}
	maps := make([]ir.Attribute, len(st.Operands))
	for i := range maps {
		maps[i] = &ir.AffineMapAttr{Map: m}
	}
	return ir.Array(maps...)
}

// elementwiseKind parses the kind of linalg.elementwise, written "<exp>"
// (or, in older MLIR, "kind = #linalg.elementwise_kind<exp>").
func (r *reader) elementwiseKind() ir.Attribute {
	if r.optKeyword("kind") {
		r.expect("=")
		return r.attr()
	}
	body := get(r, r.p.ParseAngleBody)
	if strings.HasPrefix(body, "<{") && r.ok() {
		r.err = r.p.Errorf("'linalg.elementwise' expects its kind ('<exp>', '<add>', …) first")
	}
	return &ir.OpaqueAttr{Text: "#linalg.elementwise_kind" + body}
}

// structuredParts parses what MLIR's parseCommonStructuredOpParts reads:
// "<{props}>? {attrs}? (ins(%a, … : T, …))? (outs(%b, … : T, …))?", and
// resolves the operands. It returns the ins and outs counts and the outs
// types.
func (r *reader) structuredParts() (nIn, nOut int, outTypes []ir.Type) {
	if r.ok() && r.p.Optional("<") {
		r.attrDict()
		r.expect(">")
	}
	r.attrDict()
	for _, kw := range []string{"ins", "outs"} {
		if !r.optKeyword(kw) {
			continue
		}
		r.expect("(")
		ops := r.operands()
		ts := r.colonTypes()
		r.expect(")")
		r.resolve(ops, ts...)
		if kw == "ins" {
			nIn = len(ops)
		} else {
			nOut, outTypes = len(ops), ts
		}
	}
	return nIn, nOut, outTypes
}

// parseNamedStructuredOp returns the syntax of a named structured op:
//
//	(indexing_maps = [...])? <{props}>? {attrs}? ins(…)? outs(…)? {attrs}? (-> T, …)?
//
// (an attr-dict may also come first). maps, when non-nil, makes the op
// carry indexing_maps: those written, or the default maps(st) returns
// (nil: they must be written). linalg.elementwise starts with its kind.
func parseNamedStructuredOp(maps func(*ir.OperationState) ir.Attribute) ParseFunc {
	return func(p *OpParser, st *ir.OperationState) error {
		r := &reader{p: p, st: st}
		if p.Name() == "linalg.elementwise" {
			st.AddAttr("kind", r.elementwiseKind())
		}
		var written ir.Attribute
		if maps != nil && r.ok() && p.IsNext("{") {
			r.attrDict()
		}
		if maps != nil && r.optKeyword("indexing_maps") {
			r.expect("=")
			pos := p.CurrentPos()
			written = r.attr()
			if !isAffineMapArray(written) && r.ok() {
				return p.ErrorfAt(pos, "expected an array of affine maps for 'indexing_maps', found '%s'", written)
			}
		}
		nIn, nOut, _ := r.structuredParts()
		r.attrDict()
		st.ResultTypes = r.arrowTypes()
		st.AddAttr("operandSegmentSizes", segmentSizes(nIn, nOut))
		if maps != nil && r.ok() {
			if written == nil {
				written = maps(st)
			}
			if written == nil {
				return p.ErrorfAt(p.OpPos(), "'%s' expects 'indexing_maps = [...]'", p.Name())
			}
			st.AddAttr("indexing_maps", written)
		}
		return r.err
	}
}

// parseLinalgGenericOp:
//
//	linalg.generic {indexing_maps = […], iterator_types = […], …}
//	    ins(…)? outs(…)? (attrs = {…})? { region } (-> T, …)?
func parseLinalgGenericOp(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	pos := p.CurrentPos()
	if !p.IsNext("{") {
		return p.Errorf("'linalg.generic' expects its {indexing_maps = [...], iterator_types = [...]} dictionary first")
	}
	r.attrDict()
	if err := convertIteratorTypes(p, pos, st); err != nil {
		r.set(err)
	}
	nIn, nOut, _ := r.structuredParts()
	st.AddAttr("operandSegmentSizes", segmentSizes(nIn, nOut))
	if r.optKeyword("attrs") {
		r.expect("=")
		r.attrDict()
	}
	r.region(nil)
	st.ResultTypes = r.arrowTypes()
	return r.err
}

// isAffineMapArray reports whether a is an array of affine maps.
func isAffineMapArray(a ir.Attribute) bool {
	arr, ok := a.(*ir.ArrayAttr)
	for i := 0; ok && i < len(arr.Elems); i++ {
		_, ok = arr.Elems[i].(*ir.AffineMapAttr)
	}
	return ok
}

// convertIteratorTypes turns the iterator_types strings of linalg.generic
// into #linalg.iterator_type<…> attributes, as MLIR's parser does.
func convertIteratorTypes(p *OpParser, pos Pos, st *ir.OperationState) error {
	st.Attrs = ir.SortAttrs(st.Attrs)
	its, ok := ir.GetAttr(st.Attrs, "iterator_types").(*ir.ArrayAttr)
	if !ok {
		return p.ErrorfAt(pos, "expected iterator_types array attribute")
	}
	conv := make([]ir.Attribute, len(its.Elems))
	for i, e := range its.Elems {
		conv[i] = e
		if s, ok := e.(*ir.StringAttr); ok {
			if s.Value != "parallel" && s.Value != "reduction" && s.Value != "window" {
				return p.ErrorfAt(pos, "unexpected iterator_type (%s)", s.Value)
			}
			conv[i] = &ir.OpaqueAttr{Text: "#linalg.iterator_type<" + s.Value + ">"}
		}
	}
	st.Attrs = ir.SetAttr(st.Attrs, "iterator_types", ir.Array(conv...))
	return nil
}

// dstStyle parses the common part of map, reduce, transpose and broadcast:
// structured parts, then "name = [..]" when name is set, then {attrs}?.
// The results are the ranked tensor outs.
func (r *reader) dstStyle(name string) {
	_, _, outs := r.structuredParts()
	for _, t := range outs {
		if _, ok := t.(*ir.RankedTensorType); ok {
			r.st.ResultTypes = append(r.st.ResultTypes, t)
		}
	}
	if name != "" {
		r.keyword(name)
		r.expect("=")
		r.st.AddAttr(name, r.i64List())
	}
	r.attrDict()
}

// parseLinalgMapOp returns the syntax of linalg.map or (reduce) of
// linalg.reduce:
//
//	({ payload.op {attrs}? })? ins(…) outs(…) (dimensions = [..])? {attrs}?
//	    ((%a: T, …) { region })?
//
// The short form's body gets one argument per operand's element type and
// applies the payload op to the inputs' arguments (reduce: the init's
// first), yielding its result of the init's element type.
func parseLinalgMapOp(reduce bool) ParseFunc {
	return func(p *OpParser, st *ir.OperationState) error {
		r := &reader{p: p, st: st}
		payload := ""
		attrs := &ir.OperationState{}
		if r.ok() && p.Optional("{") {
			kw, err := p.ParseKeyword()
			r.set(err)
			payload = kw
			if r.ok() {
				r.set(p.ParseOptionalAttrDict(attrs))
			}
			r.expect("}")
		}
		dims := ""
		if reduce {
			dims = "dimensions"
		}
		r.dstStyle(dims)
		if !r.ok() {
			return r.err
		}
		if payload == "" {
			args, _ := r.argumentList(true, true)
			r.region(args)
			return r.err
		}
		reg := &ir.Region{}
		st.Regions = append(st.Regions, reg)
		if len(st.Operands) == 0 {
			return nil
		}
		b := ir.NewBlock()
		reg.AddBlock(b)
		for _, o := range st.Operands {
			b.AddArgument(ir.ElementTypeOf(o.Type), ir.Unknown)
		}
		last := len(b.Args) - 1
		args := b.Args[:last]
		if reduce {
			args = append([]*ir.Value{b.Args[last]}, args...)
		}
		pop := ir.NewOperation(&ir.OperationState{Name: payload, Loc: st.Loc, Operands: args,
			ResultTypes: []ir.Type{ir.ElementTypeOf(st.Operands[len(st.Operands)-1].Type)}, Attrs: attrs.Attrs})
		b.Append(pop)
		b.Append(ir.NewOperation(&ir.OperationState{Name: "linalg.yield", Loc: st.Loc, Operands: pop.Results}))
		return nil
	}
}

// parseIdentityRegionOp returns the syntax "ins(…) outs(…) name = [..]
// {attrs}?" of linalg.transpose (permutation) and linalg.broadcast
// (dimensions), with MLIR's body: one argument per operand, yielding the
// first.
func parseIdentityRegionOp(name string) ParseFunc {
	return func(p *OpParser, st *ir.OperationState) error {
		r := &reader{p: p, st: st}
		r.dstStyle(name)
		if !r.ok() {
			return r.err
		}
		b := ir.NewBlock()
		for _, o := range st.Operands {
			b.AddArgument(ir.ElementTypeOf(o.Type), st.Loc)
		}
		var yield []*ir.Value
		if len(b.Args) > 0 {
			yield = b.Args[:1]
		}
		b.Append(ir.NewOperation(&ir.OperationState{Name: "linalg.yield", Loc: st.Loc, Operands: yield}))
		st.AddRegion().AddBlock(b)
		return nil
	}
}

// parseLinalgSoftmaxOp: linalg.softmax {attrs}? dimension(N) ins(%x : T)
// outs(%y : U) (-> V)?
func parseLinalgSoftmaxOp(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	r.attrDict()
	r.keyword("dimension")
	r.expect("(")
	st.AddAttr("dimension", ir.IntAttr(r.integer(), ir.I64))
	r.expect(")")
	for _, kw := range []string{"ins", "outs"} {
		r.keyword(kw)
		r.expect("(")
		x := r.operand()
		r.resolve([]Operand{x}, r.colonType())
		r.expect(")")
	}
	st.ResultTypes = r.arrowTypes()
	return r.err
}

// parseLinalgIndexOp: linalg.index N {attrs}? : index
func parseLinalgIndexOp(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	st.AddAttr("dim", ir.IntAttr(r.integer(), ir.I64))
	r.attrDict()
	st.ResultTypes = []ir.Type{r.colonType()}
	return r.err
}

// parseLinalgYieldOp: linalg.yield (%a, … )? {attrs}? (: T, …)?
func parseLinalgYieldOp(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	ops := r.operands()
	r.attrDict()
	if len(ops) > 0 {
		r.resolve(ops, r.colonTypes()...)
	}
	return r.err
}
