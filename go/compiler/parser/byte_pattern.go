package parser

import (
	"math"
	"strconv"
	"strings"

	"github.com/gree-ml/gree/go/compiler/ir"
)

// Global addresses, as IREE's older TensorFlow imports wrote them:
//
//	%p = util.global.address @g : !util.ptr<T>
//	%v = util.global.load.indirect %p : !util.ptr<T> -> T
//
// (input conversion turns the pair into util.global.load @g).
func init() {
	registerOwn("util.global.address", parseUtilGlobalAddressOp)
	registerOwn("util.global.load.indirect", parseUtilGlobalLoadIndirectOp)
}

func parseUtilGlobalAddressOp(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	st.AddAttr("global", ir.SymRef(r.symbol()))
	r.attrDict()
	st.ResultTypes = []ir.Type{r.colonType()}
	return r.err
}

func parseUtilGlobalLoadIndirectOp(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	x := r.operand()
	r.attrDict()
	pt := r.colonType()
	r.expect("->")
	st.ResultTypes = []ir.Type{r.typ()}
	r.resolve([]Operand{x}, pt)
	return r.err
}

// bytePatternValue turns IREE's #util.byte_pattern<N> (every byte of the
// value is N, as placeholder weights in IREE's tests use) into a splat
// dense value of the static tensor type t, or nil when it does not apply
// (other attributes, dynamic shapes, elements that are not whole bytes).
func bytePatternValue(v ir.Attribute, t ir.Type) *ir.DenseElementsAttr {
	o, ok := v.(*ir.OpaqueAttr)
	if !ok || !strings.HasPrefix(o.Text, "#util.byte_pattern<") || !strings.HasSuffix(o.Text, ">") {
		return nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(o.Text[len("#util.byte_pattern<"):len(o.Text)-1]), 0, 64)
	rt, ok := t.(*ir.RankedTensorType)
	if err != nil || !ok || !ir.HasStaticShape(rt) {
		return nil
	}
	b := uint64(n) & 0xff
	word := func(bytes int) uint64 {
		var w uint64
		for i := 0; i < bytes; i++ {
			w = w<<8 | b
		}
		return w
	}
	d := &ir.DenseElementsAttr{Type: rt, Splat: true}
	switch et := rt.Elem.(type) {
	case *ir.IntegerType:
		if et.Width%8 != 0 || et.Width > 64 {
			return nil
		}
		w := word(et.Width / 8)
		if et.Width < 64 && et.Signedness != ir.Unsigned && w>>(et.Width-1)&1 == 1 {
			w |= ^uint64(0) << et.Width // sign-extend
		}
		d.Ints = []int64{int64(w)}
	case *ir.FloatType:
		switch et.Kind {
		case ir.KindF32:
			d.Floats = []float64{float64(math.Float32frombits(uint32(word(4))))}
		case ir.KindF64:
			d.Floats = []float64{math.Float64frombits(word(8))}
		default:
			return nil
		}
	default:
		return nil
	}
	return d
}
