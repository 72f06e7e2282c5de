package parser

import (
	"github.com/gree-ml/gree/go/compiler/ir"
)

// Pretty syntax of StableHLO's complex, FFT and random-number ops:
//
//	stablehlo.real %z : (tensor<4xcomplex<f32>>) -> tensor<4xf32>   (or ": Tcomplex")
//	stablehlo.imag %z : …                                             (same)
//	stablehlo.complex %re, %im : tensor<4xcomplex<f32>>               (or "(T, T) -> U")
//	stablehlo.fft %x, type = RFFT, length = [32] : (T) -> U
//	stablehlo.rng %a, %b, %shape, distribution = NORMAL : (A, B, S) -> U
//	stablehlo.rng_bit_generator %state, algorithm = PHILOX : (S) -> (S, U)
func init() {
	registerOwn("stablehlo.real", parseHLOPart)
	registerOwn("stablehlo.imag", parseHLOPart)
	registerOwn("stablehlo.complex", parseHLOComplex)
	registerOwn("stablehlo.fft", parseHLOFft)
	registerOwn("stablehlo.rng", parseHLORng)
	registerOwn("stablehlo.rng_bit_generator", parseHLORngBitGenerator)
}

// componentType is the real type of a complex-element shaped type.
func componentType(t ir.Type) ir.Type {
	if ct, ok := ir.ElementTypeOf(t).(*ir.ComplexType); ok {
		return ir.WithElementType(t, ct.Elem)
	}
	return t
}

func parseHLOPart(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	x := r.operand()
	r.attrDict()
	t := r.colonType()
	if !r.ok() {
		return r.err
	}
	if ft, ok := t.(*ir.FunctionType); ok {
		if len(ft.Inputs) != 1 || len(ft.Results) != 1 {
			return p.Errorf("'%s' expects one operand and one result type", p.Name())
		}
		st.ResultTypes = ft.Results
		r.resolve([]Operand{x}, ft.Inputs[0])
		return r.err
	}
	st.ResultTypes = []ir.Type{componentType(t)}
	r.resolve([]Operand{x}, t)
	return r.err
}

func parseHLOComplex(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	a := r.operand()
	r.expect(",")
	c := r.operand()
	r.attrDict()
	t := r.colonType()
	if !r.ok() {
		return r.err
	}
	if ft, ok := t.(*ir.FunctionType); ok {
		if len(ft.Inputs) != 2 || len(ft.Results) != 1 {
			return p.Errorf("'%s' expects two operand types and one result type", p.Name())
		}
		st.ResultTypes = ft.Results
		r.resolve([]Operand{a, c}, ft.Inputs...)
		return r.err
	}
	st.ResultTypes = []ir.Type{t}
	part := componentType(t)
	r.resolve([]Operand{a, c}, part, part)
	return r.err
}

// keywordAttr parses "name = KEYWORD" into an opaque #stablehlo<kind KEYWORD>.
func (r *reader) keywordAttr(name, attr, kind string) {
	r.expect(",")
	r.keyword(name)
	r.expect("=")
	if !r.ok() {
		return
	}
	kw, err := r.p.ParseKeyword()
	if err != nil {
		r.set(err)
		return
	}
	r.st.AddAttr(attr, &ir.OpaqueAttr{Text: "#stablehlo<" + kind + " " + kw + ">"})
}

// functionTyped reads ": (T…) -> (U…)" and resolves ops against it.
func (r *reader) functionTyped(ops []Operand) {
	r.attrDict()
	r.expect(":")
	ft := r.functionType()
	if !r.ok() {
		return
	}
	if len(ft.Inputs) != len(ops) {
		r.set(r.p.Errorf("'%s' expects %d operand types, found %d", r.p.Name(), len(ops), len(ft.Inputs)))
		return
	}
	r.st.ResultTypes = ft.Results
	r.resolve(ops, ft.Inputs...)
}

func parseHLOFft(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	x := r.operand()
	r.keywordAttr("type", "fft_type", "fft_type")
	r.expect(",")
	r.keyword("length")
	r.expect("=")
	if r.ok() {
		st.AddAttr("fft_length", r.i64List())
	}
	r.functionTyped([]Operand{x})
	return r.err
}

func parseHLORng(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	var ops []Operand
	for i := 0; i < 3 && r.ok(); i++ {
		if i > 0 {
			r.expect(",")
		}
		ops = append(ops, r.operand())
	}
	r.keywordAttr("distribution", "rng_distribution", "rng_distribution")
	r.functionTyped(ops)
	return r.err
}

func parseHLORngBitGenerator(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	x := r.operand()
	r.keywordAttr("algorithm", "rng_algorithm", "rng_algorithm")
	r.functionTyped([]Operand{x})
	return r.err
}
