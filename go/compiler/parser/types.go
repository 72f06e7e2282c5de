package parser

import (
	"strconv"
	"strings"

	"github.com/gree-ml/gree/go/compiler/ir"
)

// maxIntWidth is MLIR's limit on integer type widths.
const maxIntWidth = 1<<24 - 1

// parseType parses any type.
func (p *parser) parseType() (ir.Type, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	switch {
	case p.tok.kind == tokBang:
		return p.parseDialectType()
	case p.isPunct("("):
		return p.parseFunctionType()
	case p.tok.kind != tokIdent:
		return nil, p.unexpected("a type")
	}
	name, pos := p.tok.text, p.tok.pos
	switch name {
	case "index":
		p.advance()
		return ir.Index, nil
	case "none":
		p.advance()
		return ir.None, nil
	case "tensor", "memref", "vector":
		return p.parseShapedType(name)
	case "complex":
		p.advance()
		if err := p.expect("<"); err != nil {
			return nil, err
		}
		elem, err := p.parseType()
		if err != nil {
			return nil, err
		}
		if !ir.IsFloat(elem) && !ir.IsInteger(elem) {
			return nil, p.errorf(pos, "invalid element type for complex: '%s'", elem)
		}
		return &ir.ComplexType{Elem: elem}, p.expect(">")
	case "tuple":
		p.advance()
		if err := p.expect("<"); err != nil {
			return nil, err
		}
		var ts []ir.Type
		err := p.parseCommaList(">", func() error {
			t, err := p.parseType()
			ts = append(ts, t)
			return err
		})
		return &ir.TupleType{Types: ts}, err
	}
	if k, ok := ir.FloatKindByName(name); ok {
		p.advance()
		return ir.Float(k), nil
	}
	if t, ok, err := p.integerType(name, pos); ok || err != nil {
		p.advance()
		return t, err
	}
	return nil, p.errorf(pos, "expected a type, found '%s'", name)
}

// integerType recognizes iN, siN and uiN.
func (p *parser) integerType(name string, pos int) (ir.Type, bool, error) {
	sign, digits := ir.Signless, ""
	switch {
	case strings.HasPrefix(name, "si"):
		sign, digits = ir.Signed, name[2:]
	case strings.HasPrefix(name, "ui"):
		sign, digits = ir.Unsigned, name[2:]
	case strings.HasPrefix(name, "i"):
		digits = name[1:]
	default:
		return nil, false, nil
	}
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return nil, false, nil
	}
	w, err := strconv.Atoi(digits)
	if err != nil || w < 1 || w > maxIntWidth {
		return nil, true, p.errorf(pos, "invalid integer width in '%s' (1 to %d bits)", name, maxIntWidth)
	}
	return &ir.IntegerType{Width: w, Signedness: sign}, true, nil
}

// parseFunctionType parses "(inputs) -> results".
func (p *parser) parseFunctionType() (*ir.FunctionType, error) {
	ins, err := p.parseParenTypeList()
	if err != nil {
		return nil, err
	}
	if err := p.expect("->"); err != nil {
		return nil, err
	}
	outs, err := p.parseResultTypes()
	if err != nil {
		return nil, err
	}
	return &ir.FunctionType{Inputs: ins, Results: outs}, nil
}

// parseParenTypeList parses "(T, U, …)", possibly empty.
func (p *parser) parseParenTypeList() ([]ir.Type, error) {
	if err := p.expect("("); err != nil {
		return nil, err
	}
	ts := []ir.Type{}
	err := p.parseCommaList(")", func() error {
		t, err := p.parseType()
		ts = append(ts, t)
		return err
	})
	return ts, err
}

// parseResultTypes parses the right side of '->': "(T, U)" or one type.
func (p *parser) parseResultTypes() ([]ir.Type, error) {
	if p.isPunct("(") {
		return p.parseParenTypeList()
	}
	t, err := p.parseType()
	if err != nil {
		return nil, err
	}
	return []ir.Type{t}, nil
}

// parseShapedType parses tensor<…>, vector<…> and memref<…>.
func (p *parser) parseShapedType(kind string) (ir.Type, error) {
	pos := p.tok.pos
	p.advance()
	if !p.isPunct("<") {
		return nil, p.unexpected("'<' after '" + kind + "'")
	}
	dims, scalable, unranked, err := p.parseDims(kind != "vector", kind == "vector")
	if err != nil {
		return nil, err
	}
	elem, err := p.parseType()
	if err != nil {
		return nil, err
	}
	switch kind {
	case "vector":
		for _, d := range dims {
			if d == ir.DynamicSize {
				return nil, p.errorf(pos, "vector dimensions must be static")
			}
		}
		return &ir.VectorType{Dims: dims, Scalable: scalable, Elem: elem}, p.expect(">")
	case "tensor":
		var enc ir.Attribute
		if p.optional(",") {
			if enc, err = p.parseAttribute(); err != nil {
				return nil, err
			}
		}
		if err := p.expect(">"); err != nil {
			return nil, err
		}
		if unranked {
			if enc != nil {
				return nil, p.errorf(pos, "unranked tensors cannot have an encoding")
			}
			return &ir.UnrankedTensorType{Elem: elem}, nil
		}
		return &ir.RankedTensorType{Dims: dims, Elem: elem, Encoding: enc}, nil
	}
	var attrs []ir.Attribute
	for p.optional(",") {
		a, err := p.parseAttribute()
		if err != nil {
			return nil, err
		}
		attrs = append(attrs, a)
	}
	if err := p.expect(">"); err != nil {
		return nil, err
	}
	if unranked {
		if len(attrs) > 1 {
			return nil, p.errorf(pos, "an unranked memref takes only a memory space")
		}
		t := &ir.UnrankedMemRefType{Elem: elem}
		if len(attrs) == 1 {
			t.MemorySpace = attrs[0]
		}
		return t, nil
	}
	t := &ir.MemRefType{Dims: dims, Elem: elem}
	switch len(attrs) {
	case 0:
	case 1:
		if isLayout(attrs[0]) {
			t.Layout = attrs[0]
		} else {
			t.MemorySpace = attrs[0]
		}
	case 2:
		t.Layout, t.MemorySpace = attrs[0], attrs[1]
	default:
		return nil, p.errorf(pos, "a memref takes at most a layout and a memory space")
	}
	return t, nil
}

func isLayout(a ir.Attribute) bool {
	switch x := a.(type) {
	case *ir.AffineMapAttr:
		return true
	case *ir.OpaqueAttr:
		return strings.HasPrefix(x.Text, "strided<")
	}
	return false
}

// parseDims scans a dimension list "2x?x[4]x" raw from the source, starting
// at the current token ('<'), and leaves the parser at the element type.
func (p *parser) parseDims(allowUnranked, allowScalable bool) (dims []int64, scalable []bool, unranked bool, err error) {
	src := p.lex.src
	pos := p.tok.pos + 1
	skip := func() {
		p.lex.pos = pos
		p.lex.skipSpace()
		pos = p.lex.pos
	}
	dims = []int64{}
	for {
		skip()
		if pos >= len(src) {
			break
		}
		c := src[pos]
		start := pos
		sc := false
		switch {
		case c == '*' && allowUnranked && len(dims) == 0:
			unranked = true
			pos++
		case c == '?':
			dims = append(dims, ir.DynamicSize)
			pos++
		case c == '[' && allowScalable:
			sc = true
			pos++
			skip()
			fallthrough
		case isDigit(c):
			end := pos
			for end < len(src) && isDigit(src[end]) {
				end++
			}
			d, perr := strconv.ParseInt(src[pos:end], 10, 64)
			if end == pos || perr != nil {
				return nil, nil, false, p.errorf(pos, "invalid dimension size")
			}
			pos = end
			if sc {
				skip()
				if pos >= len(src) || src[pos] != ']' {
					return nil, nil, false, p.errorf(pos, "expected ']' to close a scalable dimension")
				}
				pos++
			}
			dims = append(dims, d)
		}
		if pos == start {
			break // the element type starts here
		}
		if allowScalable {
			scalable = append(scalable, sc)
		}
		skip()
		if pos >= len(src) || src[pos] != 'x' {
			return nil, nil, false, p.errorf(pos, "expected 'x' after a dimension size")
		}
		pos++
		if unranked {
			break
		}
	}
	p.seek(pos)
	if !anyTrue(scalable) {
		scalable = nil
	}
	return dims, scalable, unranked, nil
}

func anyTrue(bs []bool) bool {
	for _, b := range bs {
		if b {
			return true
		}
	}
	return false
}

// parseDialectType parses !alias, !dialect.name and !dialect.name<…>.
func (p *parser) parseDialectType() (ir.Type, error) {
	name, pos := p.tok.text[1:], p.tok.pos
	end := pos + len(p.tok.text)
	hasBody := end < len(p.lex.src) && p.lex.src[end] == '<'
	if !hasBody && !strings.Contains(name, ".") {
		t, ok := p.typeAliases[name]
		if !ok {
			return nil, p.errorf(pos, "undefined type alias '!%s'", name)
		}
		p.advance()
		return t, nil
	}
	text := "!" + name
	if hasBody {
		body, err := p.rawBody(end)
		if err != nil {
			return nil, err
		}
		text += body
	} else {
		p.advance()
	}
	return &ir.OpaqueType{Text: text}, nil
}
