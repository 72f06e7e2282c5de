package parser

import (
	"sort"

	"github.com/gree-ml/gree/go/compiler/ir"
)

// scope holds the SSA names and block labels of one region being parsed.
type scope struct {
	region   *ir.Region
	isolated bool
	values   map[string][]*ir.Value // %name → the values of its result group
	fwd      map[string]*fwdRef     // names used before their definition
	replace  map[*ir.Value]*ir.Value
	blocks   map[string]*blockLabel
}

// fwdRef records the placeholders created for uses of a name not yet
// defined, by result number.
type fwdRef struct {
	vals map[int]*ir.Value
	pos  int
}

type blockLabel struct {
	block   *ir.Block
	defined bool
	pos     int
}

func (p *parser) pushScope(r *ir.Region, isolated bool) {
	p.scopes = append(p.scopes, &scope{
		region: r, isolated: isolated,
		values: map[string][]*ir.Value{}, fwd: map[string]*fwdRef{},
		replace: map[*ir.Value]*ir.Value{}, blocks: map[string]*blockLabel{},
	})
}

func (p *parser) cur() *scope { return p.scopes[len(p.scopes)-1] }

// popScope closes the current region: forward references resolved inside
// it are patched, block labels must all be defined, and references still
// unresolved move to the enclosing scope (or are errors at an isolation
// boundary or at the top).
func (p *parser) popScope() error {
	s := p.cur()
	p.scopes = p.scopes[:len(p.scopes)-1]
	if len(s.replace) > 0 {
		replaceOperands(s.region, s.replace)
	}
	for _, name := range sortedKeys(s.blocks) {
		if l := s.blocks[name]; !l.defined {
			return p.errorf(l.pos, "reference to an undefined block '%s'", name)
		}
	}
	if len(s.fwd) == 0 {
		return nil
	}
	names := sortedKeys(s.fwd)
	if s.isolated || len(p.scopes) == 0 {
		f := s.fwd[names[0]]
		return p.errorf(f.pos, "use of undeclared SSA value '%s'", names[0])
	}
	parent := p.cur()
	for _, name := range names {
		f := s.fwd[name]
		pf := parent.fwd[name]
		if pf == nil {
			parent.fwd[name] = f
			continue
		}
		for idx, v := range f.vals {
			if pv, ok := pf.vals[idx]; ok {
				if !ir.TypesEqual(pv.Type, v.Type) {
					return p.errorf(f.pos, "use of value '%s' expects different type than prior uses: '%s' vs '%s'", name, v.Type, pv.Type)
				}
				parent.replace[v] = pv
			} else {
				pf.vals[idx] = v
			}
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func replaceOperands(r *ir.Region, repl map[*ir.Value]*ir.Value) {
	for _, b := range r.Blocks {
		for _, op := range b.Ops {
			op.Walk(func(o *ir.Operation) bool {
				for i, v := range o.Operands {
					if nv, ok := repl[v]; ok {
						o.Operands[i] = nv
					}
				}
				return true
			})
		}
	}
}

// splitValueName splits "%x#2" into "%x" and 2.
func splitValueName(text string) (string, int, bool) {
	for i := 1; i < len(text); i++ {
		if text[i] == '#' {
			n := 0
			for _, c := range text[i+1:] {
				n = n*10 + int(c-'0')
				if n > 1<<20 {
					return "", 0, false
				}
			}
			return text[:i], n, true
		}
	}
	return text, 0, true
}

// lookupValue resolves the use "name#idx" with the type t the user expects.
func (p *parser) lookupValue(name string, idx int, t ir.Type, pos int) (*ir.Value, error) {
	for i := len(p.scopes) - 1; i >= 0; i-- {
		s := p.scopes[i]
		if vals, ok := s.values[name]; ok {
			if idx >= len(vals) {
				return nil, p.errorf(pos, "reference to result #%d of '%s', which has only %d results", idx, name, len(vals))
			}
			v := vals[idx]
			if !ir.TypesEqual(v.Type, t) {
				return nil, p.errorf(pos, "use of value '%s' expects different type than prior uses: '%s' vs '%s'", name, t, v.Type)
			}
			return v, nil
		}
		if s.isolated {
			break
		}
	}
	s := p.cur()
	f := s.fwd[name]
	if f == nil {
		f = &fwdRef{vals: map[int]*ir.Value{}, pos: pos}
		s.fwd[name] = f
	}
	if v, ok := f.vals[idx]; ok {
		if !ir.TypesEqual(v.Type, t) {
			return nil, p.errorf(pos, "use of value '%s' expects different type than prior uses: '%s' vs '%s'", name, t, v.Type)
		}
		return v, nil
	}
	v := &ir.Value{Type: t}
	f.vals[idx] = v
	return v, nil
}

// defineValues binds name to a result group (or a block argument) in the
// current scope, resolving earlier forward references to it.
func (p *parser) defineValues(name string, vals []*ir.Value, pos int) error {
	for i := len(p.scopes) - 1; i >= 0; i-- {
		if _, dup := p.scopes[i].values[name]; dup {
			return p.errorf(pos, "redefinition of SSA value '%s'", name)
		}
		if p.scopes[i].isolated {
			break
		}
	}
	s := p.cur()
	s.values[name] = vals
	f := s.fwd[name]
	if f == nil {
		return nil
	}
	delete(s.fwd, name)
	for idx, ph := range f.vals {
		if idx >= len(vals) {
			return p.errorf(f.pos, "reference to result #%d of '%s', which has only %d results", idx, name, len(vals))
		}
		if !ir.TypesEqual(ph.Type, vals[idx].Type) {
			return p.errorf(pos, "definition of '%s' has type '%s', but an earlier use expected '%s'", name, vals[idx].Type, ph.Type)
		}
		s.replace[ph] = vals[idx]
	}
	return nil
}

// blockRef returns the block labelled name in the current region, creating
// it on first reference.
func (p *parser) blockRef(name string, pos int) *ir.Block {
	s := p.cur()
	if l, ok := s.blocks[name]; ok {
		return l.block
	}
	b := ir.NewBlock()
	s.blocks[name] = &blockLabel{block: b, pos: pos}
	return b
}

// defineBlock marks the label name as defined here and returns its block.
func (p *parser) defineBlock(name string, pos int) (*ir.Block, error) {
	b := p.blockRef(name, pos)
	l := p.cur().blocks[name]
	if l.defined {
		return nil, p.errorf(pos, "redefinition of block '%s'", name)
	}
	l.defined = true
	return b, nil
}
