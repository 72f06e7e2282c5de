package module

import (
	"fmt"

	"github.com/gree-ml/gree/go/status"
)

// Verify checks that every index, register and kind in m is consistent,
// so the runtime can execute m without further checks on its structure.
// Decode calls it; the compiler calls it on what it builds.
func Verify(m *Module) error {
	for i, e := range m.Exports {
		if e.Function < 0 || e.Function >= len(m.Functions) {
			return corrupt("export %q names function %d of %d", e.Name, e.Function, len(m.Functions))
		}
		if e.Name == "" {
			return corrupt("export %d has an empty name", i)
		}
	}
	for i, g := range m.Globals {
		if g.Kind < KindI32 || g.Kind > KindRef {
			return corrupt("global %q has invalid kind %d", g.Name, g.Kind)
		}
		if g.Kind == KindRef && (g.Init < -1 || int(g.Init) >= len(m.Constants)) {
			return corrupt("global %d (%q) is initialized from constant %d of %d", i, g.Name, g.Init, len(m.Constants))
		}
	}
	for i, c := range m.Constants {
		n := int64(1)
		for _, d := range c.Shape {
			if d < 0 || (d > 0 && n > (1<<48)/d) {
				return corrupt("constant %d has invalid shape %v", i, c.Shape)
			}
			n *= d
		}
		bits := int64(c.ElementType & 0xff)
		if c.Parameter != nil && bits != 0 && len(c.Data) == 0 {
			continue // its bytes come from the parameter when loaded
		}
		if bits == 0 || n*((bits+7)/8) != int64(len(c.Data)) {
			return corrupt("constant %d: %d bytes do not hold shape %v of element type 0x%08x", i, len(c.Data), c.Shape, c.ElementType)
		}
	}
	if err := verifyVariants(m); err != nil {
		return err
	}
	for i := range m.Functions {
		if err := verifyFunction(m, i); err != nil {
			return err
		}
	}
	return nil
}

func corrupt(format string, args ...any) error {
	return status.Errorf(status.DataLoss, "module file is corrupt: "+format, args...)
}

type fnVerifier struct {
	m  *Module
	f  *Function
	pc int
}

func (v *fnVerifier) errf(format string, args ...any) error {
	return corrupt("function %q, instruction %d (%s): %s", v.f.Name, v.pc, v.f.Code[v.pc].Op, fmt.Sprintf(format, args...))
}

// reg checks that r is a register of one of the kinds (any kind if none).
func (v *fnVerifier) reg(r int32, kinds ...Kind) error {
	if r < 0 || int(r) >= len(v.f.Regs) {
		return v.errf("register %d out of range (%d registers)", r, len(v.f.Regs))
	}
	if len(kinds) == 0 {
		return nil
	}
	for _, k := range kinds {
		if v.f.Regs[r] == k {
			return nil
		}
	}
	return v.errf("register %d has kind %d, want one of %v", r, v.f.Regs[r], kinds)
}

func (v *fnVerifier) regs(rs []int32, kinds ...Kind) error {
	for _, r := range rs {
		if err := v.reg(r, kinds...); err != nil {
			return err
		}
	}
	return nil
}

// sig checks that regs have exactly the kinds of a signature.
func (v *fnVerifier) sig(rs []int32, want []Kind, what string) error {
	if len(rs) != len(want) {
		return v.errf("%s: %d values for %d", what, len(rs), len(want))
	}
	for i, r := range rs {
		if err := v.reg(r, want[i]); err != nil {
			return err
		}
	}
	return nil
}

func (v *fnVerifier) counts(dst, src int) error {
	in := &v.f.Code[v.pc]
	if (dst >= 0 && len(in.Dst) != dst) || (src >= 0 && len(in.Src) != src) {
		return v.errf("has %d results and %d operands, want %d and %d", len(in.Dst), len(in.Src), dst, src)
	}
	return nil
}

func scalarKinds(t uint8) []Kind {
	switch t {
	case TypeI1, TypeI8, TypeI16, TypeI32:
		return []Kind{KindI32}
	case TypeI64:
		return []Kind{KindI64}
	case TypeF16, TypeBF16, TypeF32:
		return []Kind{KindF32}
	case TypeF64:
		return []Kind{KindF64}
	}
	return nil
}

func verifyFunction(m *Module, fi int) error {
	f := &m.Functions[fi]
	v := &fnVerifier{m: m, f: f}
	if len(f.Regs) < len(f.Args) {
		return corrupt("function %q has %d registers for %d arguments", f.Name, len(f.Regs), len(f.Args))
	}
	for i, k := range f.Args {
		if f.Regs[i] != k {
			return corrupt("function %q: argument %d kind does not match its register", f.Name, i)
		}
	}
	if len(f.ArgTypes) != 0 && len(f.ArgTypes) != len(f.Args) {
		return corrupt("function %q has %d argument types for %d arguments", f.Name, len(f.ArgTypes), len(f.Args))
	}
	if len(f.Code) == 0 {
		return corrupt("function %q has no code", f.Name)
	}
	last := f.Code[len(f.Code)-1].Op
	if last != OpReturn && last != OpBranch && last != OpFail && last != OpCondBranch {
		return corrupt("function %q does not end in a terminator", f.Name)
	}
	for v.pc = range f.Code {
		if err := v.instr(); err != nil {
			return err
		}
	}
	return nil
}
