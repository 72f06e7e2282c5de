package parser

import (
	"github.com/gree-ml/gree/go/compiler/ir"
)

// Pretty syntax of IREE's iree_linalg_ext ops that gree runs:
//
//	iree_linalg_ext.scatter {attrs}? dimension_map = [0, 1] unique_indices(true)
//	    ins(%upd, %idx (, %mask)? : T, U (, M)?) outs(%orig : V) { region } (-> V)?
//	iree_linalg_ext.gather {attrs}? dimension_map = [0]
//	    ins(%src, %idx (, %mask)? : T, U (, M)?) outs(%out : V) (-> V)?
//	iree_linalg_ext.sort {attrs}? dimension(0) (ins(…))? outs(%a, … : T, …) { region } (-> T, …)?
//	iree_linalg_ext.topk {attrs}? dimension(0) ins(%v (, %i)? : …) outs(%ov, %oi : …) { region } (-> …)?
//	iree_linalg_ext.topk_v2 {attrs}? dimension(0) is_sorted? ins(%v (, %i)? : …) outs(%ov (, %oi)? : …) { region } (-> …)?
//	iree_linalg_ext.arg_compare {attrs}? dimension(0) ins(%v (, %i)? : …) outs(%ov, %oi : …)
//	    (index_base(%b : index))? { region } (-> …)?
//	iree_linalg_ext.scan {attrs}? dimension(0) inclusive(true) ins(%x : T) outs(%y, %acc : T, U) { region } (-> T, U)?
//	iree_linalg_ext.attention {indexing_maps = […]} ins(%q, %k, %v, %scale (, %mask)? : …) outs(%o : …) { region } (-> …)?
//	iree_linalg_ext.online_attention (as attention, outs(%o, %max, %sum : …))
//	iree_linalg_ext.winograd.input_transform/output_transform {attrs}? output_tile_size(6) kernel_size(3)
//	    image_dimensions([1, 2]) ins(%x : T) outs(%y : U) (-> U)?
//	iree_linalg_ext.yield %v, … : T, …
//
// Operands are ins, outs and (arg_compare) the index base, with
// operandSegmentSizes = [#ins, #outs(, #base)] (topk_v2: [1, #input
// indices, 1, #output indices]).
func init() {
	for _, n := range []string{"scatter", "gather", "sort", "topk", "topk_v2", "arg_compare", "scan", "attention", "online_attention",
		"winograd.input_transform", "winograd.output_transform"} {
		registerOwn("iree_linalg_ext."+n, parseLinalgExtOp)
	}
	registerOwn("iree_linalg_ext.yield", parseLinalgYieldOp)
}

func parseLinalgExtOp(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	r.attrDict()
	if r.optKeyword("dimension_map") {
		r.expect("=")
		st.AddAttr("dimension_map", r.i64List())
	}
	if r.optKeyword("unique_indices") {
		r.expect("(")
		kw := get(r, p.ParseKeyword)
		if r.ok() && kw != "true" && kw != "false" {
			return p.Errorf("expected 'true' or 'false' for unique_indices, found '%s'", kw)
		}
		st.AddAttr("unique_indices", &ir.BoolAttr{Value: kw == "true"})
		r.expect(")")
	}
	if r.optKeyword("dimension") {
		r.expect("(")
		st.AddAttr("dimension", ir.IntAttr(r.integer(), ir.I64))
		r.expect(")")
	}
	if r.optKeyword("inclusive") {
		r.expect("(")
		kw := get(r, p.ParseKeyword)
		if r.ok() && kw != "true" && kw != "false" {
			return p.Errorf("expected 'true' or 'false' for inclusive, found '%s'", kw)
		}
		st.AddAttr("inclusive", &ir.BoolAttr{Value: kw == "true"})
		r.expect(")")
	}
	for _, kw := range []string{"output_tile_size", "kernel_size"} {
		if r.optKeyword(kw) {
			r.expect("(")
			st.AddAttr(kw, ir.IntAttr(r.integer(), ir.I64))
			r.expect(")")
		}
	}
	if r.optKeyword("image_dimensions") {
		r.expect("(")
		st.AddAttr("image_dimensions", r.i64List())
		r.expect(")")
	}
	if r.optKeyword("is_sorted") {
		st.AddAttr("is_sorted", ir.Unit)
	}
	nIn, nOut, _ := r.structuredParts()
	sizes := []int{nIn, nOut}
	if p.Name() == "iree_linalg_ext.topk_v2" {
		sizes = []int{min(nIn, 1), max(nIn-1, 0), min(nOut, 1), max(nOut-1, 0)}
	}
	if r.optKeyword("index_base") {
		r.expect("(")
		b := r.operand()
		r.resolve([]Operand{b}, r.colonType())
		r.expect(")")
		sizes = append(sizes, 1)
	} else if p.Name() == "iree_linalg_ext.arg_compare" {
		sizes = append(sizes, 0)
	}
	if r.ok() && p.IsNext("{") {
		r.region(nil)
	}
	// Several results are written without parentheses: "-> T, U".
	if r.ok() && p.IsNext("->") {
		r.expect("->")
		paren := r.ok() && p.Optional("(")
		st.ResultTypes = append(st.ResultTypes, r.typ())
		for r.ok() && p.Optional(",") {
			st.ResultTypes = append(st.ResultTypes, r.typ())
		}
		if paren {
			r.expect(")")
		}
	}
	st.AddAttr("operandSegmentSizes", segmentSizes(sizes...))
	return r.err
}

func init() {
	registerOwn("iree_linalg_ext.map_load", parseMapLoadStore)
	registerOwn("iree_linalg_ext.map_store", parseMapLoadStore)
	registerOwn("affine.linearize_index", parseLinearizeIndex)
	registerOwn("affine.delinearize_index", parseDelinearizeIndex)
	// flow.tensor.reshape %x : T{dims} -> U{dims}, the syntax of
	// flow.tensor.bitcast.
	registerOwn("flow.tensor.reshape", parseFlowBitcastOp)
}

// parseMapLoadStore: {attrs}? %src into %out { region } : T into U (-> V)?
// (the region's block arguments are written with their index types).
func parseMapLoadStore(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	r.attrDict()
	src := r.operand()
	r.keyword("into")
	out := r.operand()
	if r.ok() {
		r.region(nil)
	}
	st1 := r.colonType()
	r.keyword("into")
	st2 := r.typ()
	r.resolve([]Operand{src, out}, st1, st2)
	st.ResultTypes = r.arrowTypes()
	return r.err
}

// basis parses "(b, …)" where each entry is an index value or an integer;
// it returns the values and the static entries (DynamicIndex for values).
func (r *reader) basis() ([]Operand, *ir.DenseArrayAttr) {
	var ops []Operand
	static := []int64{}
	r.expect("(")
	for r.ok() && !r.p.Optional(")") {
		if len(static) > 0 {
			r.expect(",")
		}
		if r.p.IsNextOperand() {
			ops = append(ops, r.operand())
			static = append(static, DynamicIndex)
		} else {
			static = append(static, r.integer())
		}
	}
	return ops, ir.I64Array(static...)
}

// parseLinearizeIndex: (disjoint)? [%i, …] by (b, …) {attrs}? : index
func parseLinearizeIndex(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	if r.optKeyword("disjoint") {
		st.AddAttr("disjoint", ir.Unit)
	}
	r.expect("[")
	var idx []Operand
	for r.ok() && !p.Optional("]") {
		if len(idx) > 0 {
			r.expect(",")
		}
		idx = append(idx, r.operand())
	}
	r.keyword("by")
	dyn, static := r.basis()
	st.AddAttr("static_basis", static)
	r.attrDict()
	st.ResultTypes = []ir.Type{r.colonType()}
	r.resolveIndex(idx)
	r.resolveIndex(dyn)
	st.AddAttr("operandSegmentSizes", segmentSizes(len(idx), len(dyn)))
	return r.err
}

// parseDelinearizeIndex: %x into (b, …) {attrs}? : index, …
func parseDelinearizeIndex(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	x := r.operand()
	r.keyword("into")
	dyn, static := r.basis()
	st.AddAttr("static_basis", static)
	r.attrDict()
	st.ResultTypes = r.colonTypes()
	r.resolveIndex([]Operand{x})
	r.resolveIndex(dyn)
	return r.err
}
