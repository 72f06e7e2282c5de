package parser

import (
	"github.com/gree-ml/gree/go/compiler/ir"
)

// parseAttribute parses any attribute.
func (p *parser) parseAttribute() (ir.Attribute, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	switch p.tok.kind {
	case tokPunct:
		switch p.tok.text {
		case "[":
			return p.parseArrayAttr()
		case "{":
			entries, err := p.parseAttrDict()
			return &ir.DictAttr{Entries: entries}, err
		case "-":
			return p.parseNumberAttr()
		case "(":
			return p.parseTypeAttr()
		}
	case tokInt, tokFloat:
		return p.parseNumberAttr()
	case tokString:
		s := p.tok.val
		p.advance()
		a := &ir.StringAttr{Value: s}
		if p.optional(":") {
			t, err := p.parseType()
			if err != nil {
				return nil, err
			}
			a.Type = t
		}
		return a, nil
	case tokSymbol:
		return p.parseSymbolRef()
	case tokHash:
		return p.parseHashAttr()
	case tokBang:
		return p.parseTypeAttr()
	case tokIdent:
		switch p.tok.text {
		case "true", "false":
			b := p.tok.text == "true"
			p.advance()
			return &ir.BoolAttr{Value: b}, nil
		case "unit":
			p.advance()
			return ir.Unit, nil
		case "dense":
			return p.parseDense()
		case "dense_resource":
			return p.parseDenseResource()
		case "array":
			return p.parseDenseArray()
		case "affine_map":
			return p.parseAffineMapAttr()
		case "loc":
			return p.parseLocation()
		case "affine_set", "strided", "sparse", "distinct", "opaque", "dense_elements":
			return p.parseRawBuiltinAttr()
		}
		return p.parseTypeAttr()
	}
	return nil, p.unexpected("an attribute")
}

// parseTypeAttr parses a type used as an attribute.
func (p *parser) parseTypeAttr() (ir.Attribute, error) {
	t, err := p.parseType()
	if err != nil {
		return nil, err
	}
	return &ir.TypeAttr{Type: t}, nil
}

// parseRawBuiltinAttr keeps builtin attributes gree does not model
// (strided<…>, affine_set<…>, distinct[…]<…>, …) as opaque text.
func (p *parser) parseRawBuiltinAttr() (ir.Attribute, error) {
	text := p.tok.text
	p.advance()
	if p.tok.kind == tokPunct && p.tok.text == "[" {
		// distinct[N]<…>
		start := p.tok.pos
		p.advance()
		if p.tok.kind != tokInt {
			return nil, p.unexpected("an integer id")
		}
		p.advance()
		if err := p.expect("]"); err != nil {
			return nil, err
		}
		text += p.lex.src[start:p.tok.pos]
	}
	if !p.isPunct("<") {
		return nil, p.unexpected("'<' after '" + text + "'")
	}
	body, err := p.rawBody(p.tok.pos)
	if err != nil {
		return nil, err
	}
	return &ir.OpaqueAttr{Text: text + body}, nil
}

// parseArrayAttr parses "[a, b, …]".
func (p *parser) parseArrayAttr() (ir.Attribute, error) {
	p.advance()
	a := &ir.ArrayAttr{Elems: []ir.Attribute{}}
	err := p.parseCommaList("]", func() error {
		e, err := p.parseAttribute()
		a.Elems = append(a.Elems, e)
		return err
	})
	return a, err
}

// parseAttrDict parses "{name = value, unitName, "quoted" = value}" and
// returns its entries sorted by name; a repeated name is an error.
func (p *parser) parseAttrDict() ([]ir.NamedAttr, error) {
	if err := p.expect("{"); err != nil {
		return nil, err
	}
	var entries []ir.NamedAttr
	err := p.parseCommaList("}", func() error {
		var name string
		pos := p.tok.pos
		switch p.tok.kind {
		case tokIdent:
			name = p.tok.text
		case tokString:
			name = p.tok.val
			if name == "" {
				return p.errorf(pos, "empty attribute name")
			}
		default:
			return p.unexpected("an attribute name")
		}
		p.advance()
		if ir.GetAttr(entries, name) != nil {
			return p.errorf(pos, "duplicate key '%s' in dictionary attribute", name)
		}
		var v ir.Attribute = ir.Unit
		if p.optional("=") {
			var err error
			if v, err = p.parseAttribute(); err != nil {
				return err
			}
		}
		entries = ir.SetAttr(entries, name, v)
		return nil
	})
	return entries, err
}

// parseSymbolRef parses "@a::@b::@c".
func (p *parser) parseSymbolRef() (ir.Attribute, error) {
	a := &ir.SymbolRefAttr{Root: p.tok.val}
	p.advance()
	for p.isPunct(":") && p.lex.peekByte(0) == ':' {
		p.advance() // first ':'
		p.advance() // second ':'
		if p.tok.kind != tokSymbol {
			return nil, p.unexpected("a nested symbol reference after '::'")
		}
		a.Nested = append(a.Nested, p.tok.val)
		p.advance()
	}
	return a, nil
}

// parseNumberAttr parses an integer or float literal with an optional
// ": type" (i64 and f64 by default).
func (p *parser) parseNumberAttr() (ir.Attribute, error) {
	lit, err := p.parseScalarLit()
	if err != nil {
		return nil, err
	}
	var t ir.Type
	if p.optional(":") {
		if t, err = p.parseType(); err != nil {
			return nil, err
		}
	} else if lit.kind == litFloat {
		t = ir.F64
	} else {
		t = ir.I64
	}
	switch tt := t.(type) {
	case *ir.FloatType:
		v, err := p.floatValue(lit, tt)
		return &ir.FloatAttr{Value: v, Type: t}, err
	case *ir.IntegerType, *ir.IndexType:
		v, err := p.intValue(lit, t)
		return &ir.IntegerAttr{Value: v, Type: t}, err
	}
	return nil, p.errorf(lit.pos, "a number literal cannot have type '%s' (expected an integer, index or float type)", t)
}

// parseDenseArray parses "array<T: v, …>" and "array<T>".
func (p *parser) parseDenseArray() (ir.Attribute, error) {
	p.advance()
	if err := p.expect("<"); err != nil {
		return nil, err
	}
	pos := p.tok.pos
	t, err := p.parseType()
	if err != nil {
		return nil, err
	}
	a := &ir.DenseArrayAttr{Elem: t}
	ft, isFloat := t.(*ir.FloatType)
	if isFloat {
		a.Floats = []float64{}
	} else if _, ok := t.(*ir.IntegerType); ok {
		a.Ints = []int64{}
	} else {
		return nil, p.errorf(pos, "array<…> elements must be integers or floats, not '%s'", t)
	}
	if !p.optional(":") {
		return a, p.expect(">")
	}
	for {
		lit, err := p.parseScalarLit()
		if err != nil {
			return nil, err
		}
		if isFloat {
			v, err := p.floatValue(lit, ft)
			if err != nil {
				return nil, err
			}
			a.Floats = append(a.Floats, v)
		} else {
			v, err := p.intValue(lit, t)
			if err != nil {
				return nil, err
			}
			a.Ints = append(a.Ints, v)
		}
		if !p.optional(",") {
			break
		}
	}
	return a, p.expect(">")
}
