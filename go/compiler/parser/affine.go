package parser

import (
	"github.com/gree-ml/gree/go/compiler/ir"
)

// parseAffineMapAttr parses affine_map<(d0, …)[s0, …] -> (exprs)>.
func (p *parser) parseAffineMapAttr() (ir.Attribute, error) {
	p.advance()
	if err := p.expect("<"); err != nil {
		return nil, err
	}
	m, err := p.parseAffineMap()
	if err != nil {
		return nil, err
	}
	return &ir.AffineMapAttr{Map: m}, p.expect(">")
}

// parseAffineMap parses "(dims)[syms] -> (results)". Dimension and symbol
// names are whatever identifiers the map declares.
func (p *parser) parseAffineMap() (*ir.AffineMap, error) {
	names := map[string]ir.AffineExpr{}
	declare := func(mk func(i int) ir.AffineExpr, count *int) func() error {
		return func() error {
			if p.tok.kind != tokIdent {
				return p.unexpected("a dimension or symbol name")
			}
			if _, dup := names[p.tok.text]; dup {
				return p.errorf(p.tok.pos, "redefinition of affine identifier '%s'", p.tok.text)
			}
			names[p.tok.text] = mk(*count)
			*count++
			p.advance()
			return nil
		}
	}
	m := &ir.AffineMap{}
	if err := p.expect("("); err != nil {
		return nil, err
	}
	dim := func(i int) ir.AffineExpr { return &ir.AffineDimExpr{Pos: i} }
	sym := func(i int) ir.AffineExpr { return &ir.AffineSymbolExpr{Pos: i} }
	if err := p.parseCommaList(")", declare(dim, &m.NumDims)); err != nil {
		return nil, err
	}
	if p.optional("[") {
		if err := p.parseCommaList("]", declare(sym, &m.NumSymbols)); err != nil {
			return nil, err
		}
	}
	if err := p.expect("->"); err != nil {
		return nil, err
	}
	if err := p.expect("("); err != nil {
		return nil, err
	}
	m.Results = []ir.AffineExpr{}
	err := p.parseCommaList(")", func() error {
		e, err := p.parseAffineExpr(names)
		m.Results = append(m.Results, e)
		return err
	})
	return m, err
}

// parseAffineExpr parses sums of terms: term (('+' | '-') term)*.
func (p *parser) parseAffineExpr(names map[string]ir.AffineExpr) (ir.AffineExpr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	lhs, err := p.parseAffineTerm(names)
	if err != nil {
		return nil, err
	}
	for p.isPunct("+") || p.isPunct("-") {
		sub := p.tok.text == "-"
		p.advance()
		rhs, err := p.parseAffineTerm(names)
		if err != nil {
			return nil, err
		}
		if sub {
			lhs = ir.AffineSub(lhs, rhs)
		} else {
			lhs = ir.AffineBinary(ir.AffineAdd, lhs, rhs)
		}
	}
	return lhs, nil
}

var affineMulOps = map[string]ir.AffineBinaryKind{
	"floordiv": ir.AffineFloorDiv, "ceildiv": ir.AffineCeilDiv, "mod": ir.AffineMod,
}

// parseAffineTerm parses products: unary (('*' | floordiv | ceildiv | mod)
// unary)*.
func (p *parser) parseAffineTerm(names map[string]ir.AffineExpr) (ir.AffineExpr, error) {
	lhs, err := p.parseAffineUnary(names)
	if err != nil {
		return nil, err
	}
	for {
		var kind ir.AffineBinaryKind
		if p.isPunct("*") {
			kind = ir.AffineMul
		} else if k, ok := affineMulOps[p.tok.text]; ok && p.tok.kind == tokIdent {
			kind = k
		} else {
			return lhs, nil
		}
		p.advance()
		rhs, err := p.parseAffineUnary(names)
		if err != nil {
			return nil, err
		}
		lhs = ir.AffineBinary(kind, lhs, rhs)
	}
}

// parseAffineUnary parses '-' unary, an identifier, a constant or a
// parenthesized expression.
func (p *parser) parseAffineUnary(names map[string]ir.AffineExpr) (ir.AffineExpr, error) {
	switch {
	case p.isPunct("-"):
		p.advance()
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		e, err := p.parseAffineUnary(names)
		if err != nil {
			return nil, err
		}
		return ir.AffineNeg(e), nil
	case p.isPunct("("):
		p.advance()
		e, err := p.parseAffineExpr(names)
		if err != nil {
			return nil, err
		}
		return e, p.expect(")")
	case p.tok.kind == tokInt:
		v, err := parseUintText(p.tok.text)
		if err != nil || v > 1<<63-1 {
			return nil, p.errorf(p.tok.pos, "affine constant '%s' does not fit in 64 bits", p.tok.text)
		}
		p.advance()
		return &ir.AffineConstantExpr{Value: int64(v)}, nil
	case p.tok.kind == tokIdent:
		e, ok := names[p.tok.text]
		if !ok {
			return nil, p.errorf(p.tok.pos, "use of undeclared affine identifier '%s'", p.tok.text)
		}
		p.advance()
		return e, nil
	}
	return nil, p.unexpected("an affine expression")
}
