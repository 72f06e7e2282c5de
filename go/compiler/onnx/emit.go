package onnx

import (
	"strconv"
	"strings"
)

// The importer builds a small tree of the ops it prints, then names the
// values as MLIR's printer does (SSANameState) and prints it.

// value is one SSA value: a block argument or an op result.
type value struct {
	typ  string
	def  *op // nil for block arguments
	idx  int
	name string // assigned by numbering: "arg0", "3", "none_0"
}

// op is one printed operation.
type op struct {
	kind     opKind
	name     string // onnx.<OpType> for torch.operator
	operands []*value
	results  []*value
	attrs    []namedAttr
	regions  []*region
	loc      *nodeLoc // Options.NodeLocs: the node it came from
}

type opKind uint8

const (
	opOperator    opKind = iota // torch.operator "onnx.X"(...)
	opNone                      // torch.constant.none
	opReturn                    // return
	opTerminator                // torch.operator_terminator
	opGlobalLoad                // util.global.load @name (a parameter)
	opFromBuiltin               // torch_c.from_builtin_tensor
)

// region is one single-block region.
type region struct {
	args []*value
	ops  []*op
}

func (o *op) addResult(typ string) *value {
	v := &value{typ: typ, def: o, idx: len(o.results)}
	o.results = append(o.results, v)
	return v
}

// namer reproduces MLIR's SSA naming: numbered values and arguments per
// region, with counters and used names inherited by nested regions from
// the end of their parent region.
type namer struct {
	nextValue, nextArg, nextConflict int
	used                             []map[string]bool
}

func (n *namer) isUsed(s string) bool {
	for _, m := range n.used {
		if m[s] {
			return true
		}
	}
	return false
}

func (n *namer) unique(s string) string {
	if n.isUsed(s) {
		for {
			p := s + "_" + strconv.Itoa(n.nextConflict)
			n.nextConflict++
			if !n.isUsed(p) {
				s = p
				break
			}
		}
	}
	n.used[len(n.used)-1][s] = true
	return s
}

func (n *namer) region(r *region) {
	n.used = append(n.used, map[string]bool{})
	for _, a := range r.args {
		a.name = "arg" + strconv.Itoa(n.nextArg)
		n.nextArg++
	}
	for _, o := range r.ops {
		if len(o.results) == 0 {
			continue
		}
		if o.kind == opNone {
			o.results[0].name = n.unique("none")
			continue
		}
		id := strconv.Itoa(n.nextValue)
		n.nextValue++
		for _, v := range o.results {
			v.name = id
		}
	}
	saved := *n
	for _, o := range r.ops {
		for _, sub := range o.regions {
			n.nextValue, n.nextArg, n.nextConflict = saved.nextValue, saved.nextArg, saved.nextConflict
			n.region(sub)
			n.used = n.used[:len(saved.used)]
		}
	}
	n.nextValue, n.nextArg, n.nextConflict = saved.nextValue, saved.nextArg, saved.nextConflict
	n.used = n.used[:len(saved.used)-1]
}

func (v *value) ref() string {
	if v.def != nil && len(v.def.results) > 1 {
		return "%" + v.name + "#" + strconv.Itoa(v.idx)
	}
	return "%" + v.name
}

func typeList(vs []*value) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.typ
	}
	return strings.Join(parts, ", ")
}

func refList(vs []*value) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.ref()
	}
	return strings.Join(parts, ", ")
}

func writeAttrDict(b *strings.Builder, attrs []namedAttr) {
	b.WriteByte('{')
	for i, a := range attrs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(keyOrString(a.key))
		b.WriteString(" = ")
		b.WriteString(a.value)
	}
	b.WriteByte('}')
}

func (r *region) print(b *strings.Builder, indent int) {
	pad := strings.Repeat("  ", indent)
	if len(r.args) > 0 {
		b.WriteString(strings.Repeat("  ", indent-1))
		b.WriteString("^bb0(")
		for i, a := range r.args {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("%" + a.name + ": " + a.typ)
		}
		b.WriteString("):\n")
	}
	for _, o := range r.ops {
		if o.loc != nil {
			o.loc.line, o.loc.col = o.loc.w.lineAt(b), len(pad)+1
		}
		b.WriteString(pad)
		o.print(b, indent)
		b.WriteByte('\n')
	}
}

func (o *op) print(b *strings.Builder, indent int) {
	if len(o.results) > 0 {
		b.WriteString("%" + o.results[0].name)
		if len(o.results) > 1 {
			b.WriteString(":" + strconv.Itoa(len(o.results)))
		}
		b.WriteString(" = ")
	}
	switch o.kind {
	case opNone:
		b.WriteString("torch.constant.none")
	case opReturn:
		b.WriteString("return")
		if len(o.operands) > 0 {
			b.WriteString(" " + refList(o.operands) + " : " + typeList(o.operands))
		}
	case opTerminator:
		b.WriteString("torch.operator_terminator")
		if len(o.operands) > 0 {
			b.WriteString(" " + refList(o.operands) + " : " + typeList(o.operands))
		}
	case opGlobalLoad:
		b.WriteString("util.global.load @" + escapeString(o.name) + " : " + o.results[0].typ)
	case opFromBuiltin:
		b.WriteString("torch_c.from_builtin_tensor " + refList(o.operands) + " : " + o.operands[0].typ + " -> " + o.results[0].typ)
	case opOperator:
		b.WriteString("torch.operator " + escapeString(o.name) + "(" + refList(o.operands) + ") ")
		if len(o.attrs) > 0 {
			writeAttrDict(b, o.attrs)
			b.WriteByte(' ')
		}
		b.WriteString(": (" + typeList(o.operands) + ") -> ")
		if len(o.results) == 1 {
			b.WriteString(o.results[0].typ)
		} else {
			b.WriteString("(" + typeList(o.results) + ")")
		}
		b.WriteByte(' ')
		for i, r := range o.regions {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("{\n")
			r.print(b, indent+1)
			b.WriteString(strings.Repeat("  ", indent) + "}")
		}
		if o.loc != nil {
			o.loc.write(b)
		}
	}
}

// function is the entry func.func.
type function struct {
	name    string
	body    *region
	results []string
	attrs   []namedAttr
	// globals are declared before the function (parameters).
	globals []global
}

func (f *function) print(b *strings.Builder, res *resources) {
	n := &namer{}
	n.region(f.body)
	b.WriteString("module {\n")
	for _, g := range f.globals {
		g.print(b)
	}
	b.WriteString("  func.func @")
	b.WriteString(keyOrString(f.name))
	b.WriteByte('(')
	for i, a := range f.body.args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("%" + a.name + ": " + a.typ)
	}
	b.WriteByte(')')
	if len(f.results) == 1 {
		b.WriteString(" -> " + f.results[0])
	} else if len(f.results) > 1 {
		b.WriteString(" -> (" + strings.Join(f.results, ", ") + ")")
	}
	if len(f.attrs) > 0 {
		b.WriteString(" attributes ")
		writeAttrDict(b, f.attrs)
	}
	b.WriteString(" {\n")
	body := *f.body
	body.args = nil
	body.print(b, 2)
	b.WriteString("  }\n}\n")
	res.write(b)
}
