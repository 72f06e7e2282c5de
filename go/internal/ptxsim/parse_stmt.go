package ptxsim

import "strings"

// Statement-level parsing: declarations, instructions and operands.

func (p *parser) regDecl(e *entryAST) error {
	p.next() // .reg
	ty, err := p.ident()
	if err != nil {
		return err
	}
	if ty.text == ".v2" || ty.text == ".v4" {
		return p.errf(ty.line, "vector registers are not supported")
	}
	for {
		n, err := p.ident()
		if err != nil {
			return err
		}
		d := regDecl{name: n.text, typ: ty.text, count: -1, line: n.line}
		if p.isPunct("<") {
			p.next()
			c, _, err := p.integer()
			if err != nil {
				return err
			}
			if err := p.expect(">"); err != nil {
				return err
			}
			if c < 0 || c > 1<<20 {
				return p.errf(n.line, "bad register count %d", c)
			}
			d.count = int(c)
		}
		e.regs = append(e.regs, d)
		if p.isPunct(",") {
			p.next()
			continue
		}
		return p.expect(";")
	}
}

func (p *parser) varDecl() (varDecl, error) {
	p.next() // .shared
	v := varDecl{n: 1}
	for p.peek().kind == tkIdent && strings.HasPrefix(p.peek().text, ".") {
		d := p.next()
		if d.text == ".align" {
			a, _, err := p.integer()
			if err != nil {
				return v, err
			}
			if a <= 0 || a&(a-1) != 0 {
				return v, p.errf(d.line, ".align %d is not a power of two", a)
			}
			v.align = int(a)
		} else {
			v.typ = d.text
		}
	}
	n, err := p.ident()
	if err != nil {
		return v, err
	}
	v.name, v.line = n.text, n.line
	if _, ok := typeSize[v.typ]; !ok {
		return v, p.errf(n.line, "bad .shared type %q", v.typ)
	}
	if p.isPunct("[") {
		p.next()
		c, _, err := p.integer()
		if err != nil {
			return v, err
		}
		if c <= 0 || c > 1<<24 {
			return v, p.errf(n.line, "bad array size %d", c)
		}
		v.n = int(c)
		if err := p.expect("]"); err != nil {
			return v, err
		}
	}
	return v, p.expect(";")
}

func (p *parser) statement() (stmt, error) {
	t := p.next()
	s := stmt{line: t.line}
	if t.kind == tkIdent && p.isPunct(":") {
		p.next()
		s.label = t.text
		return s, nil
	}
	if t.kind == tkPunct && t.text == "@" {
		if p.isPunct("!") {
			p.next()
			s.guardNot = true
		}
		g, err := p.ident()
		if err != nil {
			return s, err
		}
		s.guard = g.text
		t = p.next()
	}
	if t.kind != tkIdent {
		return s, p.errf(t.line, "expected an instruction, found %q", t.text)
	}
	s.opcode = t.text
	if p.isPunct(";") {
		p.next()
		return s, nil
	}
	for {
		o, err := p.operand()
		if err != nil {
			return s, err
		}
		s.ops = append(s.ops, o)
		if p.isPunct(",") {
			p.next()
			continue
		}
		if err := p.expect(";"); err != nil {
			return s, err
		}
		return s, nil
	}
}

func (p *parser) operand() (operand, error) {
	t := p.next()
	switch {
	case t.kind == tkPunct && t.text == "{":
		o := operand{kind: okVec}
		for {
			e, err := p.operand()
			if err != nil {
				return o, err
			}
			o.elems = append(o.elems, e)
			if p.isPunct(",") {
				p.next()
				continue
			}
			return o, p.expect("}")
		}
	case t.kind == tkPunct && t.text == "[":
		o := operand{kind: okAddr}
		b := p.next()
		switch b.kind {
		case tkIdent:
			o.name = b.text
		case tkNumber:
			v, err := parseInt(b.text)
			if err != nil {
				return o, p.errf(b.line, "bad address %q", b.text)
			}
			o.off = int64(v)
		default:
			return o, p.errf(b.line, "bad address operand %q", b.text)
		}
		if p.isPunct("+") || p.isPunct("-") {
			sign := p.next().text
			if p.isPunct("-") {
				p.next()
				sign = map[string]string{"+": "-", "-": "+"}[sign]
			}
			n, _, err := p.integer()
			if err != nil {
				return o, err
			}
			if sign == "-" {
				n = -n
			}
			o.off += n
		}
		return o, p.expect("]")
	case t.kind == tkPunct && t.text == "!":
		o, err := p.operand()
		o.not = !o.not
		return o, err
	case t.kind == tkPunct && t.text == "-":
		n := p.next()
		if n.kind != tkNumber {
			return operand{}, p.errf(n.line, "expected a number after '-', found %q", n.text)
		}
		return operand{kind: okImm, name: n.text, minus: true}, nil
	case t.kind == tkNumber:
		return operand{kind: okImm, name: t.text}, nil
	case t.kind == tkIdent:
		o := operand{kind: okReg, name: t.text}
		if p.isPunct("|") {
			p.next()
			q, err := p.ident()
			if err != nil {
				return o, err
			}
			o.second = q.text
		}
		return o, nil
	}
	if t.kind == tkEOF {
		return operand{}, p.errf(t.line, "unexpected end of input in operand list")
	}
	return operand{}, p.errf(t.line, "unexpected %q in operand list", t.text)
}
