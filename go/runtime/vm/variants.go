package vm

import (
	"fmt"
	"io"
	"strings"

	"github.com/gree-ml/gree/go/schemas/module"
	"github.com/gree-ml/gree/go/status"
)

// variantSel says where a dispatch of one executable group finds the
// workgroup counts of the variant the device prepared: the triple at
// at, and the push constants after counts operands (3 per variant).
type variantSel struct {
	at, counts int
}

// prepareExecutables prepares one executable per group of m's
// executables, as IREE selects an executable variant: the first variant,
// in the module's order (the order the targets were given to the
// compiler), that the device can run. A variant is passed over when the
// device does not load its format (UNIMPLEMENTED: another driver's
// format, or a local device's loader disabled by --executable_loaders)
// or cannot run what it was built for (FAILED_PRECONDITION: an llvm-cpu
// executable for CPU features this host lacks); any other failure is the
// module's error. execs holds the prepared executable at each group's
// first index (nil elsewhere); sels says which workgroup counts a
// dispatch of the group uses.
func (c *Context) prepareExecutables(m *Module) (execs []any, sels []variantSel, err error) {
	exes := m.Def.Executables
	execs = make([]any, len(exes))
	sels = make([]variantSel, len(exes))
	defer func() {
		if err == nil {
			return
		}
		for _, e := range execs {
			if cl, ok := e.(io.Closer); ok {
				cl.Close()
			}
		}
		execs, sels = nil, nil
	}()
	for _, g := range m.Def.Groups() {
		if g.Size == 1 {
			e, err := c.dev.PrepareExecutable(&exes[g.First])
			if err != nil {
				return nil, nil, fmt.Errorf("module '%s': executable %d (%s): %w", m.Name(), g.First, exes[g.First].Format, err)
			}
			execs[g.First], sels[g.First] = e, variantSel{at: 0, counts: 3}
			continue
		}
		var reasons []string
		for v := 0; v < g.Size && execs[g.First] == nil; v++ {
			x := &exes[g.First+v]
			e, err := c.dev.PrepareExecutable(x)
			switch {
			case err == nil:
				execs[g.First], sels[g.First] = e, variantSel{at: 3 * v, counts: 3 * g.Size}
			case status.CodeOf(err) == status.Unimplemented || status.CodeOf(err) == status.FailedPrecondition:
				reasons = append(reasons, fmt.Sprintf("variant %d (%s): %v", v, x.Format, err))
			default:
				return nil, nil, fmt.Errorf("module '%s': executable %d, variant %d (%s): %w", m.Name(), g.First+v, v, x.Format, err)
			}
		}
		if execs[g.First] == nil {
			return nil, nil, status.Errorf(status.Unimplemented, "module '%s': the device runs none of the %d variants of executable %d: %s",
				m.Name(), g.Size, g.First, strings.Join(reasons, "; "))
		}
	}
	return execs, sels, nil
}

// SelectedVariants returns, for each executable group of the module
// registered in the context under name, the variant the device runs (its
// index in the module's executable table), in group order; nil when no
// such module is registered. Tools and tests use it to say which target's
// kernels run.
func (c *Context) SelectedVariants(name string) []int {
	inst := c.byName[name]
	if inst == nil || inst.sels == nil {
		return nil
	}
	var out []int
	for _, g := range inst.m.Def.Groups() {
		out = append(out, g.First+inst.sels[g.First].at/3)
	}
	return out
}

// dispatchOperands splits a dispatch's operands into the workgroup counts
// of the prepared variant and the rest (push constants, then bindings).
func dispatchOperands(in *module.Instr, sel variantSel) (grid, rest []int32) {
	return in.Src[sel.at : sel.at+3], in.Src[sel.counts:]
}
