package ir

import (
	"bufio"
	"io"
	"strings"
)

// ModuleOpName is the name of the top-level module operation.
const ModuleOpName = "builtin.module"

// Module is a top-level builtin.module operation and the resources of its
// file (the blobs that dense_resource attributes name).
type Module struct {
	Op        *Operation
	Resources []*Resource
}

// NewModule returns an empty module: a builtin.module with one region of
// one empty block.
func NewModule(loc Location) *Module {
	op := NewOperation(&OperationState{Name: ModuleOpName, Loc: loc, Regions: []*Region{{}}})
	op.Regions[0].AddBlock(NewBlock())
	return &Module{Op: op}
}

// Body returns the module's single block.
func (m *Module) Body() *Block { return m.Op.Regions[0].Blocks[0] }

// Name returns the module's symbol name, or "" when it has none.
func (m *Module) Name() string {
	if s, ok := m.Op.Attr("sym_name").(*StringAttr); ok {
		return s.Value
	}
	return ""
}

// Lookup returns the operation of the module's body whose sym_name is sym,
// or nil.
func (m *Module) Lookup(sym string) *Operation {
	for _, op := range m.Body().Ops {
		if s, ok := op.Attr("sym_name").(*StringAttr); ok && s.Value == sym {
			return op
		}
	}
	return nil
}

// Resource returns the resource dialect/key, or nil.
func (m *Module) Resource(dialect, key string) *Resource {
	for _, r := range m.Resources {
		if r.Dialect == dialect && r.Key == key {
			return r
		}
	}
	return nil
}

// String prints the module in generic form without locations.
func (m *Module) String() string {
	var sb strings.Builder
	_ = m.Print(&sb, PrintOptions{})
	return sb.String()
}

// Print writes the module in generic form, followed by the resource
// section when the module has resources with values.
func (m *Module) Print(w io.Writer, opts PrintOptions) error {
	bw := bufio.NewWriter(w)
	p := newPrinter(bw, opts)
	p.op(m.Op, 0)
	p.resources(m.Resources)
	return bw.Flush()
}

// resources writes the {-# dialect_resources: … #-} section.
func (p *printer) resources(rs []*Resource) {
	var dialects []string
	byDialect := map[string][]*Resource{}
	for _, r := range rs {
		if !r.Defined {
			continue
		}
		if _, ok := byDialect[r.Dialect]; !ok {
			dialects = append(dialects, r.Dialect)
		}
		byDialect[r.Dialect] = append(byDialect[r.Dialect], r)
	}
	if len(dialects) == 0 {
		return
	}
	p.w.WriteString("\n{-#\n  dialect_resources: {\n")
	for i, d := range dialects {
		p.w.WriteString("    " + resourceKey(d) + ": {\n")
		for j, r := range byDialect[d] {
			p.w.WriteString("      " + resourceKey(r.Key) + ": ")
			if r.Blob != nil {
				p.w.WriteString(r.BlobString())
			} else {
				p.w.WriteString(r.Value)
			}
			if j+1 < len(byDialect[d]) {
				p.w.WriteByte(',')
			}
			p.w.WriteByte('\n')
		}
		p.w.WriteString("    }")
		if i+1 < len(dialects) {
			p.w.WriteByte(',')
		}
		p.w.WriteByte('\n')
	}
	p.w.WriteString("  }\n#-}\n")
}

func resourceKey(k string) string {
	if IsBareIdentifier(k) {
		return k
	}
	return Quote(k)
}
