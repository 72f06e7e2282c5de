package parser

import (
	"strconv"

	"github.com/gree-ml/gree/go/compiler/ir"
)

// parseLocation parses "loc(…)"; the current token is "loc".
func (p *parser) parseLocation() (ir.Location, error) {
	p.advance()
	if err := p.expect("("); err != nil {
		return nil, err
	}
	l, err := p.parseLocBody()
	if err != nil {
		return nil, err
	}
	return l, p.expect(")")
}

// parseLocBody parses what goes inside loc(…): unknown, "file":line:col
// (optionally "to line:col"), "name" or "name"(child), callsite(a at b),
// fused<meta>?[…], or a #alias, which may be defined later in the file.
func (p *parser) parseLocBody() (ir.Location, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	pos := p.tok.pos
	switch {
	case p.tok.kind == tokHash:
		name := p.tok.text[1:]
		p.advance()
		if a, ok := p.attrAliases[name]; ok {
			l, ok := a.(ir.Location)
			if !ok {
				return nil, p.errorf(pos, "'#%s' is not a location (it is '%s')", name, a)
			}
			return l, nil
		}
		ph := &ir.NameLoc{Name: "#" + name}
		p.pendingLocs[ph] = pos
		return ph, nil
	case p.isKeyword("unknown"):
		p.advance()
		return ir.Unknown, nil
	case p.isKeyword("callsite"):
		p.advance()
		if err := p.expect("("); err != nil {
			return nil, err
		}
		callee, err := p.parseLocBody()
		if err != nil {
			return nil, err
		}
		if !p.isKeyword("at") {
			return nil, p.unexpected("'at' in callsite location")
		}
		p.advance()
		caller, err := p.parseLocBody()
		if err != nil {
			return nil, err
		}
		return &ir.CallSiteLoc{Callee: callee, Caller: caller}, p.expect(")")
	case p.isKeyword("fused"):
		p.advance()
		l := &ir.FusedLoc{}
		if p.optional("<") {
			meta, err := p.parseAttribute()
			if err != nil {
				return nil, err
			}
			l.Metadata = meta
			if err := p.expect(">"); err != nil {
				return nil, err
			}
		}
		if err := p.expect("["); err != nil {
			return nil, err
		}
		err := p.parseCommaList("]", func() error {
			c, err := p.parseLocBody()
			l.Locs = append(l.Locs, c)
			return err
		})
		return l, err
	case p.tok.kind == tokString:
		s := p.tok.val
		p.advance()
		if p.optional(":") {
			return p.parseFileLineCol(s)
		}
		l := &ir.NameLoc{Name: s}
		if p.optional("(") {
			child, err := p.parseLocBody()
			if err != nil {
				return nil, err
			}
			l.Child = child
			return l, p.expect(")")
		}
		return l, nil
	}
	return nil, p.unexpected("a location")
}

// parseFileLineCol parses "line:col" (col optional) and an optional
// "to line:col" / "to :col" range end, after `"file":`.
func (p *parser) parseFileLineCol(file string) (ir.Location, error) {
	l := &ir.FileLineColLoc{File: file}
	var err error
	if l.Line, err = p.parseLocNumber(); err != nil {
		return nil, err
	}
	if p.optional(":") {
		if l.Col, err = p.parseLocNumber(); err != nil {
			return nil, err
		}
	}
	if p.isKeyword("to") {
		p.advance()
		l.EndLine = l.Line
		if !p.isPunct(":") {
			if l.EndLine, err = p.parseLocNumber(); err != nil {
				return nil, err
			}
		}
		if err := p.expect(":"); err != nil {
			return nil, err
		}
		if l.EndCol, err = p.parseLocNumber(); err != nil {
			return nil, err
		}
	}
	return l, nil
}

func (p *parser) parseLocNumber() (int, error) {
	if p.tok.kind != tokInt {
		return 0, p.unexpected("a line or column number")
	}
	n, err := strconv.Atoi(p.tok.text)
	if err != nil || n < 0 || n > 1<<31-1 {
		return 0, p.errorf(p.tok.pos, "invalid line or column number '%s'", p.tok.text)
	}
	p.advance()
	return n, nil
}

// resolvePendingLocs replaces the placeholders of forward #alias location
// references, in alias definitions and in every operation and block
// argument under root.
func (p *parser) resolvePendingLocs(root *ir.Operation) error {
	if len(p.pendingLocs) == 0 {
		return nil
	}
	done := map[*ir.NameLoc]ir.Location{}
	for _, name := range sortedKeys(p.attrAliases) {
		if l, ok := p.attrAliases[name].(ir.Location); ok {
			fixed, err := p.fixLoc(l, done, 0)
			if err != nil {
				return err
			}
			p.attrAliases[name] = fixed
		}
	}
	if root == nil {
		return nil
	}
	var err error
	root.Walk(func(op *ir.Operation) bool {
		if err != nil {
			return false
		}
		if op.Loc, err = p.fixLoc(op.Loc, done, 0); err != nil {
			return false
		}
		for _, r := range op.Regions {
			for _, b := range r.Blocks {
				for _, a := range b.Args {
					if a.Loc != nil {
						if a.Loc, err = p.fixLoc(a.Loc, done, 0); err != nil {
							return false
						}
					}
				}
			}
		}
		return true
	})
	return err
}

func (p *parser) fixLoc(l ir.Location, done map[*ir.NameLoc]ir.Location, depth int) (ir.Location, error) {
	if depth > maxDepth {
		return nil, p.errorf(0, "location aliases nest too deeply (or refer to each other in a cycle)")
	}
	var err error
	switch x := l.(type) {
	case *ir.NameLoc:
		pos, pending := p.pendingLocs[x]
		if !pending {
			if x.Child != nil {
				x.Child, err = p.fixLoc(x.Child, done, depth+1)
			}
			return x, err
		}
		if r, ok := done[x]; ok {
			return r, nil
		}
		a, ok := p.attrAliases[x.Name[1:]]
		if !ok {
			return nil, p.errorf(pos, "undefined location alias '%s'", x.Name)
		}
		target, ok := a.(ir.Location)
		if !ok {
			return nil, p.errorf(pos, "'%s' is not a location (it is '%s')", x.Name, a)
		}
		r, err := p.fixLoc(target, done, depth+1)
		if err == nil {
			done[x] = r
		}
		return r, err
	case *ir.CallSiteLoc:
		if x.Callee, err = p.fixLoc(x.Callee, done, depth+1); err != nil {
			return nil, err
		}
		x.Caller, err = p.fixLoc(x.Caller, done, depth+1)
		return x, err
	case *ir.FusedLoc:
		for i := range x.Locs {
			if x.Locs[i], err = p.fixLoc(x.Locs[i], done, depth+1); err != nil {
				return nil, err
			}
		}
	}
	return l, nil
}
