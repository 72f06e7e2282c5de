package parser

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/gree-ml/gree/go/compiler/ir"
)

// denseElem is one element of a dense literal: a scalar, or a complex
// (re, im) pair.
type denseElem struct {
	re, im  scalarLit
	complex bool
}

// parseDense parses dense<literal> : type, where literal is empty, one
// element (a splat), nested lists, or a "0x…" hex string of raw data.
func (p *parser) parseDense() (ir.Attribute, error) {
	pos := p.tok.pos
	p.advance()
	if err := p.expect("<"); err != nil {
		return nil, err
	}
	var elems []denseElem
	var dims []int64 // nil: splat (or empty) literal
	var raw []byte
	isRaw, empty := false, false
	switch {
	case p.isPunct(">"):
		empty = true
	case p.tok.kind == tokString:
		s := p.tok.val
		if !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
			return nil, p.errorf(p.tok.pos, "dense string elements are not supported (only \"0x…\" hex data)")
		}
		data, err := hex.DecodeString(s[2:])
		if err != nil {
			return nil, p.errorf(p.tok.pos, "malformed hex data in dense literal: %v", err)
		}
		raw, isRaw = data, true
		p.advance()
	case p.isPunct("["):
		var err error
		if dims, err = p.parseDenseList(&elems); err != nil {
			return nil, err
		}
	default:
		e, err := p.parseDenseElem()
		if err != nil {
			return nil, err
		}
		elems = append(elems, e)
	}
	if err := p.expect(">"); err != nil {
		return nil, err
	}
	if err := p.expect(":"); err != nil {
		return nil, err
	}
	typePos := p.tok.pos
	t, err := p.parseType()
	if err != nil {
		return nil, err
	}
	st, ok := t.(ir.ShapedType)
	_, isMemRef := t.(*ir.MemRefType)
	if !ok || isMemRef || !ir.HasStaticShape(st) {
		return nil, p.errorf(typePos, "dense attribute type must be a statically shaped tensor or vector, found '%s'", t)
	}
	n, _ := ir.NumElements(st.Shape())
	if isRaw {
		a, err := ir.DecodeDense(st, raw)
		if err != nil {
			return nil, p.errorf(pos, "%s", strings.TrimPrefix(err.Error(), "ir: "))
		}
		return a, nil
	}
	a := &ir.DenseElementsAttr{Type: st}
	switch {
	case empty:
		if n != 0 {
			return nil, p.errorf(pos, "empty dense literal for '%s', which has %d elements", t, n)
		}
	case dims == nil:
		a.Splat = n != 1
	case !sameDims(dims, st.Shape()) && !(n == 0 && len(elems) == 0):
		return nil, p.errorf(pos, "dense literal has shape %s but its type '%s' has shape %s", fmtDims(dims), t, fmtDims(st.Shape()))
	}
	if err := p.fillDense(a, elems, pos); err != nil {
		return nil, err
	}
	return a, nil
}

func sameDims(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func fmtDims(d []int64) string { return strings.ReplaceAll(fmt.Sprint(d), " ", ", ") }

// parseDenseList parses a bracketed list, appending its elements, and
// returns its shape; every sub-list must have the same shape.
func (p *parser) parseDenseList(elems *[]denseElem) ([]int64, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	pos := p.tok.pos
	p.advance() // [
	var first []int64
	n := int64(0)
	err := p.parseCommaList("]", func() error {
		var sub []int64
		if p.isPunct("[") {
			var err error
			if sub, err = p.parseDenseList(elems); err != nil {
				return err
			}
		} else {
			e, err := p.parseDenseElem()
			if err != nil {
				return err
			}
			*elems = append(*elems, e)
			sub = []int64{}
		}
		if n == 0 {
			first = sub
		} else if !sameDims(first, sub) {
			return p.errorf(pos, "dense literal is not rectangular: sub-lists of shapes %s and %s", fmtDims(first), fmtDims(sub))
		}
		n++
		return nil
	})
	return append([]int64{n}, first...), err
}

// parseDenseElem parses a scalar or "(re, im)".
func (p *parser) parseDenseElem() (denseElem, error) {
	if !p.optional("(") {
		lit, err := p.parseScalarLit()
		return denseElem{re: lit}, err
	}
	re, err := p.parseScalarLit()
	if err != nil {
		return denseElem{}, err
	}
	if err := p.expect(","); err != nil {
		return denseElem{}, err
	}
	im, err := p.parseScalarLit()
	if err != nil {
		return denseElem{}, err
	}
	return denseElem{re: re, im: im, complex: true}, p.expect(")")
}

// fillDense converts the literal elements to the attribute's element type.
func (p *parser) fillDense(a *ir.DenseElementsAttr, elems []denseElem, pos int) error {
	et := a.ElementType()
	scalar, isComplex := et, false
	if ct, ok := et.(*ir.ComplexType); ok {
		scalar, isComplex = ct.Elem, true
	}
	ft, isFloat := scalar.(*ir.FloatType)
	if !isFloat && !ir.IsIntOrIndex(scalar) {
		return p.errorf(pos, "dense elements of type '%s' are not supported", et)
	}
	if isFloat {
		a.Floats = make([]float64, 0, len(elems)*2)
	} else {
		a.Ints = make([]int64, 0, len(elems)*2)
	}
	add := func(lit scalarLit) error {
		if isFloat {
			v, err := p.floatValue(lit, ft)
			a.Floats = append(a.Floats, v)
			return err
		}
		v, err := p.intValue(lit, scalar)
		a.Ints = append(a.Ints, v)
		return err
	}
	for _, e := range elems {
		if e.complex != isComplex {
			if isComplex {
				return p.errorf(e.re.pos, "expected a complex element '(re, im)' for type '%s'", et)
			}
			return p.errorf(e.re.pos, "complex element for non-complex type '%s'", et)
		}
		if err := add(e.re); err != nil {
			return err
		}
		if isComplex {
			if err := add(e.im); err != nil {
				return err
			}
		}
	}
	return nil
}

// parseDenseResource parses dense_resource<key> : type.
func (p *parser) parseDenseResource() (ir.Attribute, error) {
	p.advance()
	if err := p.expect("<"); err != nil {
		return nil, err
	}
	key, err := p.parseResourceKey()
	if err != nil {
		return nil, err
	}
	if err := p.expect(">"); err != nil {
		return nil, err
	}
	if err := p.expect(":"); err != nil {
		return nil, err
	}
	typePos := p.tok.pos
	t, err := p.parseType()
	if err != nil {
		return nil, err
	}
	st, ok := t.(ir.ShapedType)
	if !ok || !ir.HasStaticShape(st) {
		return nil, p.errorf(typePos, "dense_resource type must be statically shaped, found '%s'", t)
	}
	return &ir.DenseResourceAttr{Type: st, Resource: p.resource("builtin", key)}, nil
}
