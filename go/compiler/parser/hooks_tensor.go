package parser

import (
	"github.com/gree-ml/gree/go/compiler/ir"
)

// Syntaxes of the tensor dialect (MLIR's TensorOps.td assembly formats) and
// of the relayout ops linalg.pack / linalg.unpack (also accepted under their
// old names tensor.pack / tensor.unpack). Attributes and operand order are
// those of MLIR's generic form:
//
//	tensor.dim            operands: source, index
//	tensor.extract        operands: tensor, indices…
//	tensor.insert         operands: scalar, dest, indices…
//	tensor.extract_slice  operands: source, offsets…, sizes…, strides…;
//	                      static_offsets, static_sizes, static_strides
//	                      (array<i64>, DynamicIndex where an operand stands),
//	                      operandSegmentSizes = [1, #off, #size, #stride]
//	tensor.insert_slice   as extract_slice with dest second;
//	                      operandSegmentSizes = [1, 1, #off, #size, #stride]
//	tensor.pad            operands: source, low…, high…; static_low,
//	                      static_high, nofold (unit), operandSegmentSizes;
//	                      region ^bb0(%i: index, …) ending in tensor.yield
//	tensor.concat         dim (i64); operands: inputs…
//	tensor.expand_shape   reassociation ([[i64…]…]), static_output_shape;
//	                      operands: src, output_shape values…
//	tensor.collapse_shape reassociation
//	tensor.generate       operands: dynamic extents…; region ^bb0(%i: index…)
//	tensor.splat          operands: value, dynamic sizes…
//	linalg.pack           operands: source, dest, padding_value?, inner_tiles…;
//	                      outer_dims_perm? / inner_dims_pos / static_inner_tiles
//	                      (array<i64>), operandSegmentSizes = [1, 1, 0|1, #tiles]
//	linalg.unpack         operands: source, dest, inner_tiles…; the same
//	                      attributes (MLIR's parser records operandSegmentSizes
//	                      [1, 1, 0, #tiles] for it too)
//
// tensor.reshape, cast, bitcast, from_elements, rank and yield have no
// attributes beyond their attr-dict.
func init() {
	registerOwn("tensor.dim", parseTensorDimOp)
	registerOwn("tensor.extract", parseTensorExtractOp)
	registerOwn("tensor.insert", parseTensorInsertOp)
	registerOwn("tensor.extract_slice", parseSliceOp(false))
	registerOwn("tensor.insert_slice", parseSliceOp(true))
	registerOwn("tensor.pad", parseTensorPadOp)
	registerOwn("tensor.concat", parseTensorConcatOp)
	registerOwn("tensor.expand_shape", parseReshapeOp(true))
	registerOwn("tensor.collapse_shape", parseReshapeOp(false))
	registerOwn("tensor.reshape", parseTensorReshapeOp)
	registerOwn("tensor.cast", parseCastOp)
	registerOwn("tensor.bitcast", parseCastOp)
	registerOwn("tensor.splat", parseTensorSplatOp)
	registerOwn("tensor.generate", parseTensorGenerateOp)
	registerOwn("tensor.from_elements", parseTensorFromElementsOp)
	registerOwn("tensor.rank", parseTensorRankOp)
	registerOwn("tensor.yield", parseTensorYieldOp)
	for _, n := range []string{"linalg.pack", "tensor.pack"} {
		registerOwn(n, parseRelayoutOp(true))
	}
	for _, n := range []string{"linalg.unpack", "tensor.unpack"} {
		registerOwn(n, parseRelayoutOp(false))
	}
}

// parseTensorDimOp: tensor.dim {attrs}? %t, %i : T
func parseTensorDimOp(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	r.attrDict()
	t := r.operand()
	r.expect(",")
	i := r.operand()
	r.resolve([]Operand{t, i}, r.colonType(), ir.Index)
	st.ResultTypes = []ir.Type{ir.Index}
	return r.err
}

// parseTensorExtractOp: tensor.extract %t[%i, …] {attrs}? : T
func parseTensorExtractOp(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	t := r.operand()
	idx := r.bracketOperands()
	r.attrDict()
	tt := r.colonType()
	st.ResultTypes = []ir.Type{ir.ElementTypeOf(tt)}
	r.resolve([]Operand{t}, tt)
	r.resolveIndex(idx)
	return r.err
}

// parseTensorInsertOp: tensor.insert %v into %t[%i, …] {attrs}? : T
func parseTensorInsertOp(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	v := r.operand()
	r.keyword("into")
	t := r.operand()
	idx := r.bracketOperands()
	r.attrDict()
	tt := r.colonType()
	st.ResultTypes = []ir.Type{tt}
	r.resolve([]Operand{v, t}, ir.ElementTypeOf(tt), tt)
	r.resolveIndex(idx)
	return r.err
}

// parseSliceOp returns the syntax of tensor.extract_slice
//
//	%src[offsets] [sizes] [strides] {attrs}? : T to U
//
// or, with insert, of tensor.insert_slice
//
//	%src into %dest[offsets] [sizes] [strides] {attrs}? : T into U
func parseSliceOp(insert bool) ParseFunc {
	return func(p *OpParser, st *ir.OperationState) error {
		r := &reader{p: p, st: st}
		src := r.operand()
		var dest Operand
		kw := "to"
		if insert {
			r.keyword("into")
			dest, kw = r.operand(), "into"
		}
		var dyn [3][]Operand
		for i, name := range []string{"static_offsets", "static_sizes", "static_strides"} {
			var static *ir.DenseArrayAttr
			dyn[i], static = r.indexList()
			st.AddAttr(name, static)
		}
		r.attrDict()
		from := r.colonType()
		r.keyword(kw)
		to := r.typ()
		st.ResultTypes = []ir.Type{to}
		r.resolve([]Operand{src}, from)
		if insert {
			r.resolve([]Operand{dest}, to)
			st.AddAttr("operandSegmentSizes", segmentSizes(1, 1, len(dyn[0]), len(dyn[1]), len(dyn[2])))
		} else {
			st.AddAttr("operandSegmentSizes", segmentSizes(1, len(dyn[0]), len(dyn[1]), len(dyn[2])))
		}
		for _, d := range dyn {
			r.resolveIndex(d)
		}
		return r.err
	}
}

// parseTensorPadOp:
//
//	tensor.pad %src nofold? low[…] high[…] { ^bb0(%i: index, …): … }
//	    {attrs}? : T to U
func parseTensorPadOp(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	src := r.operand()
	if r.optKeyword("nofold") {
		st.AddAttr("nofold", ir.Unit)
	}
	r.keyword("low")
	low, staticLow := r.indexList()
	r.keyword("high")
	high, staticHigh := r.indexList()
	st.AddAttr("static_low", staticLow)
	st.AddAttr("static_high", staticHigh)
	r.region(nil)
	r.attrDict()
	from := r.colonType()
	r.keyword("to")
	st.ResultTypes = []ir.Type{r.typ()}
	st.AddAttr("operandSegmentSizes", segmentSizes(1, len(low), len(high)))
	r.resolve([]Operand{src}, from)
	r.resolveIndex(low)
	r.resolveIndex(high)
	return r.err
}

// parseTensorConcatOp: tensor.concat dim(N) %a, … {attrs}? : (T, …) -> U
func parseTensorConcatOp(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	r.keyword("dim")
	r.expect("(")
	st.AddAttr("dim", ir.IntAttr(r.integer(), ir.I64))
	r.expect(")")
	ops := r.operands()
	r.attrDict()
	r.expect(":")
	ft := r.functionType()
	st.ResultTypes = ft.Results
	r.resolve(ops, ft.Inputs...)
	return r.err
}

// reassociation parses a reassociation list "[[0, 1], [2]]", an array of
// arrays of i64.
func (r *reader) reassociation() ir.Attribute {
	pos := r.p.CurrentPos()
	a := r.attr()
	outer, ok := a.(*ir.ArrayAttr)
	for i := 0; ok && i < len(outer.Elems); i++ {
		var inner *ir.ArrayAttr
		if inner, ok = outer.Elems[i].(*ir.ArrayAttr); ok {
			for _, e := range inner.Elems {
				if v, isInt := e.(*ir.IntegerAttr); !isInt || !ir.TypesEqual(v.Type, ir.I64) {
					ok = false
				}
			}
		}
	}
	if !ok && r.ok() {
		r.err = r.p.ErrorfAt(pos, "expected a reassociation list like '[[0, 1], [2]]', found '%s'", a)
	}
	return a
}

// parseReshapeOp returns the syntax of tensor.expand_shape (expand)
//
//	%src [[0, 1], [2]] output_shape [2, %d, 4] {attrs}? : T into U
//
// or tensor.collapse_shape, without output_shape. An expand_shape in the
// older form without output_shape is accepted when U is static.
func parseReshapeOp(expand bool) ParseFunc {
	return func(p *OpParser, st *ir.OperationState) error {
		r := &reader{p: p, st: st}
		src := r.operand()
		st.AddAttr("reassociation", r.reassociation())
		var dims []Operand
		var static *ir.DenseArrayAttr
		hasShape := expand && r.optKeyword("output_shape")
		if hasShape {
			dims, static = r.indexList()
		}
		r.attrDict()
		from := r.colonType()
		r.keyword("into")
		pos := p.CurrentPos()
		to := r.typ()
		if rt, ok := to.(*ir.RankedTensorType); expand && !hasShape && r.ok() {
			if !ok {
				return p.ErrorfAt(pos, "'%s' needs a ranked result type, found '%s'", p.Name(), to)
			}
			static = ir.I64Array(append([]int64{}, rt.Dims...)...)
			for _, d := range rt.Dims {
				if d == ir.DynamicSize {
					return p.ErrorfAt(pos, "'%s' into '%s' needs 'output_shape [...]' for its dynamic dimensions", p.Name(), to)
				}
			}
		}
		if expand {
			st.AddAttr("static_output_shape", static)
		}
		st.ResultTypes = []ir.Type{to}
		r.resolve([]Operand{src}, from)
		r.resolveIndex(dims)
		return r.err
	}
}

// parseTensorReshapeOp: tensor.reshape %src(%shape) {attrs}? : (T, S) -> U
func parseTensorReshapeOp(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	src := r.operand()
	r.expect("(")
	shape := r.operand()
	r.expect(")")
	r.attrDict()
	r.expect(":")
	ft := r.functionType()
	st.ResultTypes = ft.Results
	r.resolve([]Operand{src, shape}, ft.Inputs...)
	return r.err
}

// parseTensorSplatOp: tensor.splat %v ([%d, …])? {attrs}? : T
func parseTensorSplatOp(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	v := r.operand()
	var dims []Operand
	if r.ok() && p.IsNext("[") {
		dims = r.bracketOperands()
	}
	r.attrDict()
	t := r.colonType()
	st.ResultTypes = []ir.Type{t}
	r.resolve([]Operand{v}, ir.ElementTypeOf(t))
	r.resolveIndex(dims)
	return r.err
}

// parseTensorGenerateOp: tensor.generate %d, … { ^bb0(%i: index, …): … }
// {attrs}? : T
func parseTensorGenerateOp(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	dims := r.operands()
	r.region(nil)
	r.attrDict()
	st.ResultTypes = []ir.Type{r.colonType()}
	r.resolveIndex(dims)
	return r.err
}

// parseTensorFromElementsOp: tensor.from_elements %a, … {attrs}? : T — one
// operand of T's element type per element.
func parseTensorFromElementsOp(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	ops := r.operands()
	r.attrDict()
	t := r.colonType()
	ts := make([]ir.Type, len(ops))
	for i := range ts {
		ts[i] = ir.ElementTypeOf(t)
	}
	st.ResultTypes = []ir.Type{t}
	r.resolve(ops, ts...)
	return r.err
}

// parseTensorRankOp: tensor.rank %t {attrs}? : T — the result is an index.
func parseTensorRankOp(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	t := r.operand()
	r.attrDict()
	r.resolve([]Operand{t}, r.colonType())
	st.ResultTypes = []ir.Type{ir.Index}
	return r.err
}

// parseTensorYieldOp: tensor.yield %v {attrs}? : T
func parseTensorYieldOp(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	v := r.operand()
	r.attrDict()
	r.resolve([]Operand{v}, r.colonType())
	return r.err
}

// parseRelayoutOp returns the syntax of linalg.pack (pack)
//
//	%src (padding_value(%p : T))? (outer_dims_perm = [..])?
//	    inner_dims_pos = [..] inner_tiles = [4, %t] into %dest {attrs}? : S -> D
//
// or of linalg.unpack, which has no padding value.
func parseRelayoutOp(pack bool) ParseFunc {
	return func(p *OpParser, st *ir.OperationState) error {
		r := &reader{p: p, st: st}
		src := r.operand()
		var pad []Operand
		var padType []ir.Type
		if pack && r.optKeyword("padding_value") {
			r.expect("(")
			pad = []Operand{r.operand()}
			padType = []ir.Type{r.colonType()}
			r.expect(")")
		}
		if r.optKeyword("outer_dims_perm") {
			r.expect("=")
			st.AddAttr("outer_dims_perm", r.i64List())
		}
		r.keyword("inner_dims_pos")
		r.expect("=")
		st.AddAttr("inner_dims_pos", r.i64List())
		r.keyword("inner_tiles")
		r.expect("=")
		tiles, static := r.indexList()
		st.AddAttr("static_inner_tiles", static)
		r.keyword("into")
		dest := r.operand()
		r.attrDict()
		from := r.colonType()
		r.expect("->")
		to := r.typ()
		st.ResultTypes = []ir.Type{to}
		r.resolve([]Operand{src, dest}, from, to)
		st.AddAttr("operandSegmentSizes", segmentSizes(1, 1, len(pad), len(tiles)))
		r.resolve(pad, padType...)
		r.resolveIndex(tiles)
		return r.err
	}
}
