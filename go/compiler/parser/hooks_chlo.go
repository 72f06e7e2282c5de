package parser

import "github.com/gree-ml/gree/go/compiler/ir"

// CHLO's non-broadcasting binary ops as JAX prints them:
//
//	chlo.next_after %x, %y : tensor<6xf32>, tensor<6xf32> -> tensor<6xf32>
//	chlo.polygamma %n, %x : T, T -> T
//	chlo.zeta %s, %q : T, T -> T
func init() {
	for _, n := range []string{"next_after", "polygamma", "zeta"} {
		registerOwn("chlo."+n, parseCHLOBinary)
	}
}

func parseCHLOBinary(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	a := r.operand()
	r.expect(",")
	c := r.operand()
	r.attrDict()
	ts := r.colonTypes()
	if !r.ok() {
		return r.err
	}
	if len(ts) == 1 {
		if ft, ok := ts[0].(*ir.FunctionType); ok {
			ts = ft.Inputs
			st.ResultTypes = ft.Results
		} else {
			ts = []ir.Type{ts[0], ts[0]}
		}
	}
	if st.ResultTypes == nil {
		if p.IsNext("->") {
			st.ResultTypes = r.arrowTypes()
		} else {
			st.ResultTypes = []ir.Type{ts[len(ts)-1]}
		}
	}
	if len(ts) != 2 {
		return p.Errorf("'%s' expects two operand types", p.Name())
	}
	r.resolve([]Operand{a, c}, ts...)
	return r.err
}
