package ir

import (
	"bufio"
	"strconv"
	"strings"
)

// PrintOptions control the printer.
type PrintOptions struct {
	// Locations prints "loc(…)" after every operation and block argument.
	Locations bool
}

// String prints op (and everything nested in it) in generic form.
func (op *Operation) String() string {
	var sb strings.Builder
	bw := bufio.NewWriter(&sb)
	p := newPrinter(bw, PrintOptions{})
	root := op
	for root.ParentOp() != nil && !IsIsolatedFromAbove(root.Name) {
		root = root.ParentOp()
	}
	p.name(root)
	p.op(op, 0)
	_ = bw.Flush()
	return sb.String()
}

type printer struct {
	w      *bufio.Writer
	opts   PrintOptions
	values map[*Value]string
	blocks map[*Block]string
	// counters of the innermost isolated scope
	nextValue, nextArg, nextBlock int
}

func newPrinter(w *bufio.Writer, opts PrintOptions) *printer {
	return &printer{w: w, opts: opts, values: map[*Value]string{}, blocks: map[*Block]string{}}
}

// name assigns SSA and block names to everything defined in op's regions,
// down to (not into) nested isolated-from-above operations, which number
// their own values.
func (p *printer) name(op *Operation) {
	saved := [3]int{p.nextValue, p.nextArg, p.nextBlock}
	p.nextValue, p.nextArg, p.nextBlock = 0, 0, 0
	if len(op.Results) > 0 {
		if _, ok := p.values[op.Results[0]]; !ok {
			p.nameResults(op)
		}
	}
	p.nameRegions(op)
	p.nextValue, p.nextArg, p.nextBlock = saved[0], saved[1], saved[2]
}

func (p *printer) nameRegions(op *Operation) {
	for _, r := range op.Regions {
		for _, b := range r.Blocks {
			p.blocks[b] = "^bb" + strconv.Itoa(p.nextBlock)
			p.nextBlock++
			for _, a := range b.Args {
				p.values[a] = "%arg" + strconv.Itoa(p.nextArg)
				p.nextArg++
			}
			for _, inner := range b.Ops {
				p.nameResults(inner)
				if !IsIsolatedFromAbove(inner.Name) {
					p.nameRegions(inner)
				}
			}
		}
	}
}

func (p *printer) nameResults(op *Operation) {
	if len(op.Results) == 0 {
		return
	}
	base := "%" + strconv.Itoa(p.nextValue)
	p.nextValue++
	for i, res := range op.Results {
		if len(op.Results) == 1 {
			p.values[res] = base
		} else {
			p.values[res] = base + "#" + strconv.Itoa(i)
		}
	}
}

func (p *printer) valueName(v *Value) string {
	if n, ok := p.values[v]; ok {
		return n
	}
	return "%<<UNKNOWN SSA VALUE>>"
}

func (p *printer) indent(n int) {
	for i := 0; i < n; i++ {
		p.w.WriteString("  ")
	}
}

// op prints one operation in generic form at the given indentation.
func (p *printer) op(op *Operation, depth int) {
	if op.block == nil || IsIsolatedFromAbove(op.Name) {
		p.name(op)
	}
	p.indent(depth)
	if n := len(op.Results); n > 0 {
		first := p.valueName(op.Results[0])
		if n > 1 {
			first, _, _ = strings.Cut(first, "#")
			first += ":" + strconv.Itoa(n)
		}
		p.w.WriteString(first + " = ")
	}
	p.w.WriteString(Quote(op.Name))
	p.w.WriteByte('(')
	for i, v := range op.Operands {
		if i > 0 {
			p.w.WriteString(", ")
		}
		p.w.WriteString(p.valueName(v))
	}
	p.w.WriteByte(')')
	if len(op.Successors) > 0 {
		p.w.WriteByte('[')
		for i, b := range op.Successors {
			if i > 0 {
				p.w.WriteString(", ")
			}
			p.w.WriteString(p.blockName(b))
		}
		p.w.WriteByte(']')
	}
	if len(op.Regions) > 0 {
		p.w.WriteString(" (")
		for i, r := range op.Regions {
			if i > 0 {
				p.w.WriteString(", ")
			}
			p.region(r, depth)
		}
		p.w.WriteByte(')')
	}
	if len(op.Attrs) > 0 {
		p.w.WriteByte(' ')
		p.w.WriteString(FormatAttrDict(op.Attrs))
	}
	p.w.WriteString(" : (")
	for i, v := range op.Operands {
		if i > 0 {
			p.w.WriteString(", ")
		}
		p.w.WriteString(typeString(v.Type))
	}
	p.w.WriteString(") -> ")
	var results []Type
	for _, r := range op.Results {
		results = append(results, r.Type)
	}
	p.w.WriteString(resultList(results))
	if p.opts.Locations && op.Loc != nil {
		p.w.WriteString(" " + op.Loc.String())
	}
	p.w.WriteByte('\n')
}

func (p *printer) blockName(b *Block) string {
	if n, ok := p.blocks[b]; ok {
		return n
	}
	return "^<<UNKNOWN BLOCK>>"
}

func typeString(t Type) string {
	if t == nil {
		return "<<NULL TYPE>>"
	}
	return t.String()
}

// region prints "{ blocks }"; the entry block's label is left out when it
// has no arguments and is not empty.
func (p *printer) region(r *Region, depth int) {
	p.w.WriteString("{\n")
	for i, b := range r.Blocks {
		if i > 0 || len(b.Args) > 0 || len(b.Ops) == 0 {
			p.indent(depth)
			p.w.WriteString(p.blockName(b))
			if len(b.Args) > 0 {
				p.w.WriteByte('(')
				for j, a := range b.Args {
					if j > 0 {
						p.w.WriteString(", ")
					}
					p.w.WriteString(p.valueName(a) + ": " + typeString(a.Type))
					if p.opts.Locations && a.Loc != nil {
						p.w.WriteString(" " + a.Loc.String())
					}
				}
				p.w.WriteByte(')')
			}
			p.w.WriteString(":\n")
		}
		for _, op := range b.Ops {
			p.op(op, depth+1)
		}
	}
	p.indent(depth)
	p.w.WriteByte('}')
}
