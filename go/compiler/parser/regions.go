package parser

import "github.com/gree-ml/gree/go/compiler/ir"

// Argument is a declared block argument (or function argument): an SSA name
// (empty Operand.Name when the syntax allows unnamed arguments), a type,
// optional attributes and a location.
type Argument struct {
	Operand Operand
	Type    ir.Type
	Attrs   []ir.NamedAttr
	Loc     ir.Location
}

// parseRegion parses "{ blocks }". args, when given, are the entry block's
// arguments declared by the op's custom syntax (the entry block then has no
// label). isolated starts a fresh SSA name scope.
func (p *parser) parseRegion(args []Argument, isolated bool) (*ir.Region, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	if err := p.expect("{"); err != nil {
		return nil, err
	}
	r := &ir.Region{}
	p.pushScope(r, isolated)
	if err := p.parseRegionBody(r, args); err != nil {
		p.scopes = p.scopes[:len(p.scopes)-1]
		return nil, err
	}
	return r, p.popScope()
}

func (p *parser) parseRegionBody(r *ir.Region, args []Argument) error {
	if p.optional("}") {
		if len(args) > 0 {
			entry := ir.NewBlock()
			r.AddBlock(entry)
			return p.addArgs(entry, args)
		}
		return nil
	}
	if p.tok.kind != tokBlock {
		entry := ir.NewBlock()
		r.AddBlock(entry)
		if err := p.addArgs(entry, args); err != nil {
			return err
		}
		if err := p.parseBlockOps(entry); err != nil {
			return err
		}
	} else if len(args) > 0 {
		return p.errorf(p.tok.pos, "invalid block label '%s' in a region whose entry arguments are already declared", p.tok.text)
	}
	for p.tok.kind == tokBlock {
		if err := p.parseBlock(r); err != nil {
			return err
		}
	}
	if !p.isPunct("}") {
		return p.unexpected("'}' to close the region")
	}
	p.advance()
	return nil
}

// parseBlockOps parses operations until a block label, '}' or the end.
func (p *parser) parseBlockOps(b *ir.Block) error {
	for p.tok.kind != tokBlock && !p.isPunct("}") && p.tok.kind != tokEOF {
		if err := p.parseOperation(b); err != nil {
			return err
		}
	}
	return nil
}

// parseBlock parses "^label(%a: T, …): ops".
func (p *parser) parseBlock(r *ir.Region) error {
	b, err := p.defineBlock(p.tok.text, p.tok.pos)
	if err != nil {
		return err
	}
	p.advance()
	r.AddBlock(b)
	if p.optional("(") {
		var args []Argument
		err := p.parseCommaList(")", func() error {
			a, err := p.parseArgument(true, false)
			args = append(args, a)
			return err
		})
		if err != nil {
			return err
		}
		if err := p.addArgs(b, args); err != nil {
			return err
		}
	}
	if err := p.expect(":"); err != nil {
		return err
	}
	return p.parseBlockOps(b)
}

// addArgs adds arguments to b and binds their names.
func (p *parser) addArgs(b *ir.Block, args []Argument) error {
	for _, a := range args {
		v := b.AddArgument(a.Type, a.Loc)
		if a.Operand.Name != "" {
			if err := p.defineValues(a.Operand.Name, []*ir.Value{v}, int(a.Operand.Pos)); err != nil {
				return err
			}
		}
	}
	return nil
}

// parseArgument parses "%name: type {attrs}? loc(…)?"; without named, just
// "type {attrs}? loc(…)?".
func (p *parser) parseArgument(named, allowAttrs bool) (Argument, error) {
	var a Argument
	pos := p.tok.pos
	if named {
		if p.tok.kind != tokValue {
			return a, p.unexpected("an argument name like '%arg0'")
		}
		if containsHash(p.tok.text) {
			return a, p.errorf(pos, "argument name '%s' cannot have a result number", p.tok.text)
		}
		o, err := p.parseOperand()
		if err != nil {
			return a, err
		}
		a.Operand = o
		if err := p.expect(":"); err != nil {
			return a, err
		}
	}
	t, err := p.parseType()
	if err != nil {
		return a, err
	}
	a.Type = t
	if allowAttrs && p.isPunct("{") {
		if a.Attrs, err = p.parseAttrDict(); err != nil {
			return a, err
		}
	}
	if a.Loc, err = p.parseOptionalTrailingLoc(); err != nil {
		return a, err
	}
	if a.Loc == nil {
		a.Loc = p.fileLoc(pos)
	}
	return a, nil
}

func containsHash(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '#' {
			return true
		}
	}
	return false
}
