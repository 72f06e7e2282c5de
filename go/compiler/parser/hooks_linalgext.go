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
//	iree_linalg_ext.yield %v, … : T, …
//
// Operands are ins, outs and (arg_compare) the index base, with
// operandSegmentSizes = [#ins, #outs(, #base)] (topk_v2: [1, #input
// indices, 1, #output indices]).
func init() {
	for _, n := range []string{"scatter", "gather", "sort", "topk", "topk_v2", "arg_compare", "scan"} {
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
