package ptxsim

import (
	"strconv"
	"strings"

	"github.com/gree-ml/gree/go/status"
)

// Syntax tree produced by the parser and consumed by the decoder.

type operandKind uint8

const (
	okReg  operandKind = iota // a register, special register, symbol or label name
	okImm                     // a number, with optional leading '-'
	okVec                     // {a, b, ...}
	okAddr                    // [name], [name+imm], [imm]
)

type operand struct {
	kind   operandKind
	name   string    // register/symbol name or number text
	not    bool      // '!' prefix (predicate operands)
	minus  bool      // '-' prefix on a number
	second string    // the q of a "p|q" destination
	elems  []operand // okVec elements
	off    int64     // okAddr offset
}

type stmt struct {
	line     int
	label    string // non-empty for "name:"
	guard    string // predicate register of @p / @!p
	guardNot bool
	opcode   string
	ops      []operand
}

type regDecl struct {
	name  string
	typ   string
	count int // -1: a single register named name; else name0..name(count-1)
	line  int
}

type varDecl struct {
	name  string
	typ   string
	align int
	n     int // elements (1 for scalars)
	line  int
}

type entryAST struct {
	name   string
	line   int
	params []string
	regs   []regDecl
	shared []varDecl
	body   []stmt
}

type moduleAST struct {
	shared  []varDecl
	entries []*entryAST
}

type parser struct {
	toks []token
	pos  int
}

func (p *parser) peek() token { return p.toks[p.pos] }
func (p *parser) next() token {
	t := p.toks[p.pos]
	if t.kind != tkEOF {
		p.pos++
	}
	return t
}

func (p *parser) errf(line int, format string, args ...any) error {
	return status.Errorf(status.InvalidArgument, "line %d: "+format, append([]any{line}, args...)...)
}

func (p *parser) isPunct(s string) bool {
	t := p.peek()
	return t.kind == tkPunct && t.text == s
}

func (p *parser) expect(s string) error {
	t := p.next()
	if t.text != s || (t.kind != tkPunct && t.kind != tkIdent) {
		if t.kind == tkEOF {
			return p.errf(t.line, "expected %q, found end of input", s)
		}
		return p.errf(t.line, "expected %q, found %q", s, t.text)
	}
	return nil
}

func (p *parser) ident() (token, error) {
	t := p.next()
	if t.kind != tkIdent {
		return t, p.errf(t.line, "expected a name, found %q", t.text)
	}
	return t, nil
}

func (p *parser) integer() (int64, int, error) {
	t := p.next()
	if t.kind != tkNumber {
		return 0, t.line, p.errf(t.line, "expected a number, found %q", t.text)
	}
	v, err := parseInt(t.text)
	if err != nil {
		return 0, t.line, p.errf(t.line, "bad integer %q", t.text)
	}
	return int64(v), t.line, nil
}

// parseInt parses a PTX integer literal: decimal, 0x hex, 0b binary, 0
// octal, with an optional U suffix; the value is returned as 64 bits.
func parseInt(s string) (uint64, error) {
	s = strings.TrimSuffix(strings.TrimSuffix(s, "U"), "u")
	switch {
	case len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X"):
		return strconv.ParseUint(s[2:], 16, 64)
	case len(s) > 2 && (s[:2] == "0b" || s[:2] == "0B"):
		return strconv.ParseUint(s[2:], 2, 64)
	case len(s) > 1 && s[0] == '0':
		return strconv.ParseUint(s[1:], 8, 64)
	}
	return strconv.ParseUint(s, 10, 64)
}

func parse(src string) (*moduleAST, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	m := &moduleAST{}
	for {
		t := p.peek()
		if t.kind == tkEOF {
			return m, nil
		}
		if t.kind != tkIdent {
			return nil, p.errf(t.line, "unexpected %q at module level", t.text)
		}
		switch t.text {
		case ".version", ".address_size":
			p.next()
			n := p.next()
			if n.kind != tkNumber {
				return nil, p.errf(n.line, "%s needs a number", t.text)
			}
			if t.text == ".address_size" && n.text != "64" {
				return nil, p.errf(n.line, "only .address_size 64 is supported")
			}
		case ".target":
			p.next()
			if _, err := p.ident(); err != nil {
				return nil, err
			}
			for p.isPunct(",") {
				p.next()
				if _, err := p.ident(); err != nil {
					return nil, err
				}
			}
		case ".visible", ".weak", ".extern":
			p.next()
		case ".entry":
			e, err := p.entry()
			if err != nil {
				return nil, err
			}
			m.entries = append(m.entries, e)
		case ".shared":
			v, err := p.varDecl()
			if err != nil {
				return nil, err
			}
			m.shared = append(m.shared, v)
		default:
			return nil, p.errf(t.line, "unsupported module-level directive %q", t.text)
		}
	}
}

func (p *parser) entry() (*entryAST, error) {
	p.next() // .entry
	name, err := p.ident()
	if err != nil {
		return nil, err
	}
	e := &entryAST{name: name.text, line: name.line}
	if p.isPunct("(") {
		p.next()
		for !p.isPunct(")") {
			pt, err := p.ident()
			if err != nil {
				return nil, err
			}
			if pt.text != ".param" {
				return nil, p.errf(pt.line, "expected .param, found %q", pt.text)
			}
			ty, err := p.ident()
			if err != nil {
				return nil, err
			}
			if ty.text != ".u64" && ty.text != ".b64" && ty.text != ".s64" {
				return nil, p.errf(ty.line, "parameter type %s: gree's ABI passes every parameter as .u64", ty.text)
			}
			// Pointer attributes: .ptr [.global|.const|.local|.shared] [.align N].
			for p.peek().kind == tkIdent && (p.peek().text == ".ptr" || p.peek().text == ".global" ||
				p.peek().text == ".const" || p.peek().text == ".local" || p.peek().text == ".shared" || p.peek().text == ".align") {
				if p.next().text == ".align" {
					if _, _, err := p.integer(); err != nil {
						return nil, err
					}
				}
			}
			pn, err := p.ident()
			if err != nil {
				return nil, err
			}
			e.params = append(e.params, pn.text)
			if p.isPunct(",") {
				p.next()
			} else if !p.isPunct(")") {
				t := p.peek()
				return nil, p.errf(t.line, "expected ',' or ')' in parameter list, found %q", t.text)
			}
		}
		p.next()
	}
	for p.peek().kind == tkIdent {
		d := p.next()
		switch d.text {
		case ".reqntid", ".maxntid", ".minnctapersm", ".maxnreg", ".maxnctapersm":
			if _, _, err := p.integer(); err != nil {
				return nil, err
			}
			for p.isPunct(",") {
				p.next()
				if _, _, err := p.integer(); err != nil {
					return nil, err
				}
			}
		case ".noreturn":
		default:
			return nil, p.errf(d.line, "unsupported entry directive %q", d.text)
		}
	}
	if err := p.expect("{"); err != nil {
		return nil, err
	}
	depth := 1
	for depth > 0 {
		t := p.peek()
		switch {
		case t.kind == tkEOF:
			return nil, p.errf(e.line, "entry %s: missing closing '}'", e.name)
		case t.kind == tkPunct && t.text == "{":
			p.next()
			depth++
		case t.kind == tkPunct && t.text == "}":
			p.next()
			depth--
		case t.kind == tkIdent && t.text == ".reg":
			if err := p.regDecl(e); err != nil {
				return nil, err
			}
		case t.kind == tkIdent && t.text == ".shared":
			v, err := p.varDecl()
			if err != nil {
				return nil, err
			}
			e.shared = append(e.shared, v)
		case t.kind == tkIdent && t.text == ".pragma":
			p.next()
			for !p.isPunct(";") && p.peek().kind != tkEOF {
				p.next()
			}
			p.next()
		default:
			s, err := p.statement()
			if err != nil {
				return nil, err
			}
			e.body = append(e.body, s)
		}
	}
	return e, nil
}
