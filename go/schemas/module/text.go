package module

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// The module as text, for iree-compile's
// --iree-vm-bytecode-module-output-format: JSON with the field names of
// IREE's bytecode module schema where gree's module has the same thing
// (flatbuffer-text), and the module in the VM dialect's structure
// (mlir-text). Neither holds the bytes of constants or executables.

type jsonModule struct {
	Name                string           `json:"name"`
	Version             uint32           `json:"version"`
	Attrs               []jsonAttr       `json:"attrs,omitempty"`
	ImportedFunctions   []jsonImport     `json:"imported_functions"`
	ExportedFunctions   []jsonExport     `json:"exported_functions"`
	FunctionDescriptors []jsonFunction   `json:"function_descriptors"`
	Globals             []jsonGlobal     `json:"globals"`
	RodataSegments      []jsonConstant   `json:"rodata_segments"`
	Executables         []jsonExecutable `json:"executables"`
	Signed              bool             `json:"signed"`
}

type jsonAttr struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

type jsonImport struct {
	FullName  string            `json:"full_name"`
	Signature map[string]string `json:"signature"`
	Flags     string            `json:"flags,omitempty"`
}

type jsonExport struct {
	LocalName       string `json:"local_name"`
	InternalOrdinal int    `json:"internal_ordinal"`
}

type jsonFunction struct {
	Name              string     `json:"name"`
	CallingConvention string     `json:"calling_convention"`
	RegisterCount     int        `json:"register_count"`
	ReflectionAttrs   []jsonAttr `json:"reflection_attrs,omitempty"`
	Instructions      []string   `json:"instructions"`
}

type jsonGlobal struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Mutable bool   `json:"mutable"`
}

type jsonConstant struct {
	ElementType string  `json:"element_type"`
	Shape       []int64 `json:"shape"`
	ByteLength  int64   `json:"byte_length"`
	Parameter   string  `json:"parameter,omitempty"`
}

type jsonExecutable struct {
	Format      string   `json:"format"`
	EntryPoints []string `json:"entry_points"`
	ByteLength  int      `json:"byte_length"`
	Variant     uint32   `json:"variant,omitempty"`
}

func attrs(as []Attr) []jsonAttr {
	var out []jsonAttr
	for _, a := range as {
		out = append(out, jsonAttr{a.Key, a.Value})
	}
	return out
}

// JSON returns m as indented JSON (iree-compile's flatbuffer-text output).
func JSON(m *Module) ([]byte, error) {
	j := jsonModule{Name: m.Name, Version: m.Version, Attrs: attrs(m.Attrs), Signed: m.Signature != nil,
		ImportedFunctions: []jsonImport{}, ExportedFunctions: []jsonExport{}, FunctionDescriptors: []jsonFunction{},
		Globals: []jsonGlobal{}, RodataSegments: []jsonConstant{}, Executables: []jsonExecutable{}}
	for _, im := range m.Imports {
		f := Function{Args: im.Args, Results: im.Results}
		ji := jsonImport{FullName: im.Module + "." + im.Name, Signature: map[string]string{"calling_convention": f.CConv()}}
		if im.Optional {
			ji.Flags = "OPTIONAL"
		}
		j.ImportedFunctions = append(j.ImportedFunctions, ji)
	}
	for _, e := range m.Exports {
		j.ExportedFunctions = append(j.ExportedFunctions, jsonExport{e.Name, e.Function})
	}
	for i := range m.Functions {
		f := &m.Functions[i]
		jf := jsonFunction{Name: f.Name, CallingConvention: f.CConv(), RegisterCount: len(f.Regs), ReflectionAttrs: attrs(f.Reflection), Instructions: []string{}}
		for pc := range f.Code {
			jf.Instructions = append(jf.Instructions, InstrString(&f.Code[pc]))
		}
		j.FunctionDescriptors = append(j.FunctionDescriptors, jf)
	}
	for _, g := range m.Globals {
		j.Globals = append(j.Globals, jsonGlobal{g.Name, kindName(g.Kind), g.Mutable})
	}
	for i := range m.Constants {
		c := &m.Constants[i]
		jc := jsonConstant{ElementType: fmt.Sprintf("0x%08x", c.ElementType), Shape: c.Shape, ByteLength: int64(len(c.Data))}
		if c.Parameter != nil {
			jc.Parameter, jc.ByteLength = c.Parameter.String(), c.ByteLength()
		}
		j.RodataSegments = append(j.RodataSegments, jc)
	}
	for _, e := range m.Executables {
		j.Executables = append(j.Executables, jsonExecutable{e.Format, e.Entries, len(e.Data), e.Variant})
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // tensor<4xf32>, not tensor\u003c4xf32\u003e
	enc.SetIndent("", "  ")
	if err := enc.Encode(j); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// vmType spells a register kind as the VM dialect's type.
func vmType(k Kind) string {
	if k == KindRef {
		return "!vm.ref<?>"
	}
	return kindName(k)
}

func vmTypes(ks []Kind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = vmType(k)
	}
	return strings.Join(s, ", ")
}

// MLIRText returns m in the VM dialect's structure (iree-compile's
// mlir-text output): vm.module holding its imports, globals, constants and
// executables (as rodata, without their bytes), functions and exports;
// each function's body lists gree's VM instructions, one per line.
func MLIRText(m *Module) string {
	var b strings.Builder
	fmt.Fprintf(&b, "vm.module public @%s", m.Name)
	if len(m.Attrs) > 0 {
		var as []string
		for _, a := range m.Attrs {
			as = append(as, fmt.Sprintf("%q = %q", a.Key, a.Value))
		}
		fmt.Fprintf(&b, " attributes {%s}", strings.Join(as, ", "))
	}
	b.WriteString(" {\n")
	for _, im := range m.Imports {
		opt := ""
		if im.Optional {
			opt = "optional "
		}
		fmt.Fprintf(&b, "  vm.import private %s@%s.%s(%s) -> (%s)\n", opt, im.Module, im.Name, vmTypes(im.Args), vmTypes(im.Results))
	}
	for _, g := range m.Globals {
		mut := ""
		if g.Mutable {
			mut = "mutable "
		}
		fmt.Fprintf(&b, "  vm.global.%s private %s@%s : %s\n", map[bool]string{true: "ref", false: kindName(g.Kind)}[g.Kind == KindRef], mut, g.Name, vmType(g.Kind))
	}
	for i := range m.Constants {
		c := &m.Constants[i]
		if c.Parameter != nil {
			fmt.Fprintf(&b, "  vm.rodata private @constant_%d {element_type = 0x%08x, shape = %v, parameter = %q, byte_length = %d}\n", i, c.ElementType, c.Shape, c.Parameter.String(), c.ByteLength())
			continue
		}
		fmt.Fprintf(&b, "  vm.rodata private @constant_%d {element_type = 0x%08x, shape = %v, byte_length = %d}\n", i, c.ElementType, c.Shape, len(c.Data))
	}
	for i, e := range m.Executables {
		fmt.Fprintf(&b, "  vm.rodata private @executable_%d {format = %q, entry_points = [%s], variant = %d, byte_length = %d}\n", i, e.Format, quoteAll(e.Entries), e.Variant, len(e.Data))
	}
	for fi := range m.Functions {
		f := &m.Functions[fi]
		var params []string
		for i, k := range f.Args {
			params = append(params, fmt.Sprintf("%%r%d: %s", i, vmType(k)))
		}
		fmt.Fprintf(&b, "  vm.func private @%s(%s) -> (%s)", f.Name, strings.Join(params, ", "), vmTypes(f.Results))
		if len(f.Reflection) > 0 {
			var as []string
			for _, a := range f.Reflection {
				as = append(as, fmt.Sprintf("%s = %q", a.Key, a.Value))
			}
			fmt.Fprintf(&b, " attributes {iree.reflection = {%s}}", strings.Join(as, ", "))
		}
		b.WriteString(" {\n")
		for pc := range f.Code {
			fmt.Fprintf(&b, "    %s  // %d\n", InstrString(&f.Code[pc]), pc)
		}
		b.WriteString("  }\n")
	}
	for _, e := range m.Exports {
		if name := m.Functions[e.Function].Name; name != e.Name {
			fmt.Fprintf(&b, "  vm.export @%s as(%q)\n", name, e.Name)
			continue
		}
		fmt.Fprintf(&b, "  vm.export @%s\n", e.Name)
	}
	b.WriteString("}\n")
	return b.String()
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
