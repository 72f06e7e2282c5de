package parser

import (
	"strconv"

	"github.com/gree-ml/gree/go/compiler/ir"
)

// resultGroup is one name on the left of '=': %x (one value) or %x:N.
type resultGroup struct {
	name  string
	count int
	pos   int
}

// parseOperation parses one operation (generic or custom form) and appends
// it to block.
func (p *parser) parseOperation(block *ir.Block) error {
	start := p.tok.pos
	var groups []resultGroup
	numResults := 0
	if p.tok.kind == tokValue {
		for {
			if p.tok.kind != tokValue {
				return p.unexpected("an SSA value name")
			}
			name, _, _ := splitValueName(p.tok.text)
			if name != p.tok.text {
				return p.errorf(p.tok.pos, "result name '%s' cannot have a result number; write '%s:N' to name N results", p.tok.text, name)
			}
			g := resultGroup{name: name, count: 1, pos: p.tok.pos}
			p.advance()
			if p.optional(":") {
				if p.tok.kind != tokInt {
					return p.unexpected("a result count")
				}
				n, err := strconv.Atoi(p.tok.text)
				if err != nil || n < 1 || n > 1<<16 {
					return p.errorf(p.tok.pos, "invalid result count %s", p.tok.text)
				}
				g.count = n
				p.advance()
			}
			groups = append(groups, g)
			numResults += g.count
			if !p.optional(",") {
				break
			}
		}
		if err := p.expect("="); err != nil {
			return err
		}
	}
	st := &ir.OperationState{Loc: p.fileLoc(start)}
	var err error
	switch p.tok.kind {
	case tokString:
		err = p.parseGenericOp(st)
	case tokIdent:
		err = p.parseCustomOp(st, numResults)
	default:
		err = p.unexpected("an operation name (a custom op name, or a generic \"dialect.op\" in quotes)")
	}
	if err != nil {
		return err
	}
	loc, err := p.parseOptionalTrailingLoc()
	if err != nil {
		return err
	}
	if loc != nil {
		st.Loc = loc
	}
	op := ir.NewOperation(st)
	if groups != nil && len(op.Results) != numResults {
		return p.errorf(start, "operation '%s' defines %d results but %d names were given", op.Name, len(op.Results), numResults)
	}
	off := 0
	for _, g := range groups {
		if err := p.defineValues(g.name, op.Results[off:off+g.count], g.pos); err != nil {
			return err
		}
		off += g.count
	}
	block.Append(op)
	return nil
}

// parseGenericOp parses
//
//	"name"(operands) [successors]? <{properties}>? (regions)? {attrs}? : (types) -> results
//
// Properties are merged into the attributes.
func (p *parser) parseGenericOp(st *ir.OperationState) error {
	st.Name = p.tok.val
	if st.Name == "" {
		return p.errorf(p.tok.pos, "empty operation name")
	}
	p.advance()
	if err := p.expect("("); err != nil {
		return err
	}
	var operands []Operand
	err := p.parseCommaList(")", func() error {
		o, err := p.parseOperand()
		operands = append(operands, o)
		return err
	})
	if err != nil {
		return err
	}
	if p.optional("[") {
		err := p.parseCommaList("]", func() error {
			b, err := p.parseSuccessor()
			st.Successors = append(st.Successors, b)
			return err
		})
		if err != nil {
			return err
		}
	}
	if p.optional("<") {
		props, err := p.parseAttrDict()
		if err != nil {
			return err
		}
		st.Attrs = append(st.Attrs, props...)
		if err := p.expect(">"); err != nil {
			return err
		}
	}
	if p.optional("(") {
		err := p.parseCommaList(")", func() error {
			r, err := p.parseRegion(nil, ir.IsIsolatedFromAbove(st.Name))
			st.Regions = append(st.Regions, r)
			return err
		})
		if err != nil {
			return err
		}
	}
	if p.isPunct("{") {
		attrs, err := p.parseAttrDict()
		if err != nil {
			return err
		}
		st.Attrs = append(st.Attrs, attrs...)
	}
	if err := p.expect(":"); err != nil {
		return err
	}
	typePos := p.tok.pos
	t, err := p.parseType()
	if err != nil {
		return err
	}
	ft, ok := t.(*ir.FunctionType)
	if !ok {
		return p.errorf(typePos, "expected a function type '(operand types) -> result types' for '%s', found '%s'", st.Name, t)
	}
	if len(ft.Inputs) != len(operands) {
		return p.errorf(typePos, "'%s' has %d operands but its type lists %d operand types", st.Name, len(operands), len(ft.Inputs))
	}
	for i, o := range operands {
		v, err := p.resolveOperand(o, ft.Inputs[i])
		if err != nil {
			return err
		}
		st.Operands = append(st.Operands, v)
	}
	st.ResultTypes = ft.Results
	return nil
}

// parseCustomOp dispatches to the registered syntax of the op named by the
// current identifier.
func (p *parser) parseCustomOp(st *ir.OperationState, numResults int) error {
	name, pos := p.tok.text, p.tok.pos
	full, fn := p.reg.resolve(name)
	if fn == nil {
		return p.errorf(pos, "unknown op '%s' (no custom syntax registered; use the generic form \"%s\"(...))", name, name)
	}
	st.Name = full
	p.advance()
	return fn(&OpParser{p: p, name: full, pos: pos, numResults: numResults}, st)
}

// parseOperand parses a use %x or %x#N.
func (p *parser) parseOperand() (Operand, error) {
	if p.tok.kind != tokValue {
		return Operand{}, p.unexpected("an SSA value")
	}
	name, idx, ok := splitValueName(p.tok.text)
	if !ok {
		return Operand{}, p.errorf(p.tok.pos, "invalid result number in '%s'", p.tok.text)
	}
	o := Operand{Name: name, Number: idx, Pos: Pos(p.tok.pos)}
	p.advance()
	return o, nil
}

func (p *parser) resolveOperand(o Operand, t ir.Type) (*ir.Value, error) {
	return p.lookupValue(o.Name, o.Number, t, int(o.Pos))
}

// parseSuccessor parses a block reference ^bb.
func (p *parser) parseSuccessor() (*ir.Block, error) {
	if p.tok.kind != tokBlock {
		return nil, p.unexpected("a block name")
	}
	b := p.blockRef(p.tok.text, p.tok.pos)
	p.advance()
	return b, nil
}

// parseOptionalTrailingLoc parses "loc(…)" if present.
func (p *parser) parseOptionalTrailingLoc() (ir.Location, error) {
	if !p.isKeyword("loc") {
		return nil, nil
	}
	return p.parseLocation()
}
