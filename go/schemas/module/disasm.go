package module

import (
	"fmt"
	"strings"
)

// Disassemble returns a readable listing of m's host program: one block
// per function with its signature, registers and instructions.
func Disassemble(m *Module) string {
	var b strings.Builder
	fmt.Fprintf(&b, "module @%s : version %d\n", m.Name, m.Version)
	for _, im := range m.Imports {
		fmt.Fprintf(&b, "  import @%s.%s %s\n", im.Module, im.Name, sigString(im.Args, im.Results))
	}
	for i, g := range m.Globals {
		fmt.Fprintf(&b, "  global %d @%s : %s", i, g.Name, kindName(g.Kind))
		if g.Mutable {
			b.WriteString(" mutable")
		}
		b.WriteString("\n")
	}
	for i, c := range m.Constants {
		if c.Parameter != nil {
			fmt.Fprintf(&b, "  constant %d : shape %v element 0x%08x = parameter %q (%d bytes, loaded from --parameters)\n", i, c.Shape, c.ElementType, c.Parameter.String(), c.ByteLength())
			continue
		}
		fmt.Fprintf(&b, "  constant %d : shape %v element 0x%08x (%d bytes)\n", i, c.Shape, c.ElementType, len(c.Data))
	}
	for i, e := range m.Executables {
		variant := ""
		if e.Variant > 0 {
			variant = fmt.Sprintf(" variant %d of executable %d", e.Variant, i-int(e.Variant))
		}
		fmt.Fprintf(&b, "  executable %d \"%s\"%s entries %v (%d bytes)\n", i, e.Format, variant, e.Entries, len(e.Data))
	}
	for fi := range m.Functions {
		f := &m.Functions[fi]
		fmt.Fprintf(&b, "\n  func %d @%s %s (%s) registers %d\n", fi, f.Name, sigString(f.Args, f.Results), f.CConv(), len(f.Regs))
		for pc, in := range f.Code {
			variants := 1
			if in.Op == OpDispatch {
				variants = max(m.VariantCount(int(in.Index)), 1)
			}
			fmt.Fprintf(&b, "    %4d: %s\n", pc, instrString(&in, variants))
		}
	}
	return b.String()
}

func kindName(k Kind) string {
	switch k {
	case KindI32:
		return "i32"
	case KindI64:
		return "i64"
	case KindF32:
		return "f32"
	case KindF64:
		return "f64"
	case KindRef:
		return "ref"
	}
	return "?"
}

func sigString(args, results []Kind) string {
	var a, r []string
	for _, k := range args {
		a = append(a, kindName(k))
	}
	for _, k := range results {
		r = append(r, kindName(k))
	}
	return "(" + strings.Join(a, ", ") + ") -> (" + strings.Join(r, ", ") + ")"
}

func regList(rs []int32) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = fmt.Sprintf("%%r%d", r)
	}
	return strings.Join(s, ", ")
}

// InstrString formats one instruction (a dispatch as one whose
// executable has no variants).
func InstrString(in *Instr) string { return instrString(in, 1) }

// instrString formats one instruction; a dispatch has a workgroup-count
// triple for each of its executable's variants.
func instrString(in *Instr, variants int) string {
	var b strings.Builder
	if len(in.Dst) > 0 && in.Op != OpBranch {
		b.WriteString(regList(in.Dst) + " = ")
	}
	b.WriteString(in.Op.String())
	switch in.Op {
	case OpConstI:
		fmt.Fprintf(&b, " %d : t%d", in.Imm, in.Type)
	case OpConstF:
		fmt.Fprintf(&b, " %g : t%d", in.F, in.Type)
	case OpArith, OpCmp:
		fmt.Fprintf(&b, ".%d t%d %s", in.Sub, in.Type, regList(in.Src))
	case OpCast:
		fmt.Fprintf(&b, ".%d t%d->t%d %s", in.Sub, in.Type, in.Type2, regList(in.Src))
	case OpBranch:
		fmt.Fprintf(&b, " ^%d", in.Index)
		if len(in.Dst) > 0 {
			fmt.Fprintf(&b, " (%s) <- (%s)", regList(in.Dst), regList(in.Src))
		}
	case OpCondBranch:
		fmt.Fprintf(&b, " %s ? ^%d : ^%d", regList(in.Src), in.Index, in.Index2)
	case OpCall, OpCallImport, OpGlobalLoad, OpGlobalStore, OpConstant:
		fmt.Fprintf(&b, " #%d %s", in.Index, regList(in.Src))
	case OpFail:
		fmt.Fprintf(&b, " %d %q", in.Imm, in.Str)
	case OpAlloc:
		if in.Sub == 1 {
			b.WriteString(".uninit")
		}
		fmt.Fprintf(&b, " 0x%08x [%s]", in.Imm, regList(in.Src))
	case OpDim:
		fmt.Fprintf(&b, " %s, %d", regList(in.Src), in.Imm)
	case OpDispatch:
		npc, ng := int(in.Imm), 3*variants
		fmt.Fprintf(&b, " exec %d entry %d", in.Index, in.Index2)
		for v := 0; v < variants; v++ {
			if variants == 1 {
				fmt.Fprintf(&b, " grid(%s)", regList(in.Src[:3]))
			} else {
				fmt.Fprintf(&b, " grid.v%d(%s)", v, regList(in.Src[3*v:3*v+3]))
			}
		}
		fmt.Fprintf(&b, " push(%s) bindings(%s)", regList(in.Src[ng:ng+npc]), regList(in.Src[ng+npc:]))
	case OpLoad, OpStore:
		fmt.Fprintf(&b, " t%d %s", in.Type, regList(in.Src))
	case OpDiscard:
		b.WriteString([...]string{DiscardScan: "", DiscardRelease: ".release", DiscardKeep: ".keep"}[min(in.Sub, DiscardKeep)])
		b.WriteString(" " + regList(in.Src))
	default:
		if len(in.Src) > 0 {
			b.WriteString(" " + regList(in.Src))
		}
	}
	return b.String()
}
