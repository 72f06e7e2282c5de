package compiler

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gree-ml/gree/go/compiler/codegen"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/vm"
	"github.com/gree-ml/gree/go/schemas/module"
)

// Several target backends in one compilation (--iree-hal-target-backends=
// llvm-cpu,vmvx) make one module whose executables have a variant per
// target, as IREE's executable variants: every dispatch region is lowered
// once per target with that target's strategy, each target's kernels
// become one executable, and the executables form one group whose first
// variant is the first target's. The host program is shared: each
// dispatch passes the same push constants and bindings to whichever
// variant the runtime's device prepared (the first, in the targets'
// order, that it can run), with workgroup counts computed on the host
// for every variant from its own kernel's grid (a GPU target tiles unlike
// a CPU one).

// selectBackends returns the registered backends the names ask for, in
// order (the first is the preferred variant).
func selectBackends(names []string) ([]*Backend, error) {
	if len(names) == 0 {
		return nil, fmt.Errorf("the program has dispatches but no target backend was given; add --iree-hal-target-backends=vmvx (or --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx)")
	}
	var out []*Backend
	seen := map[string]bool{}
	for _, name := range names {
		if seen[name] {
			continue
		}
		seen[name] = true
		mu.Lock()
		b := backends[name]
		mu.Unlock()
		if b == nil {
			return nil, fmt.Errorf("target backend '%s' not registered; registered backends: [%s]", name, strings.Join(TargetNames(), ", "))
		}
		out = append(out, b)
	}
	return out, nil
}

// configureBackends applies the options to each selected backend.
func configureBackends(bes []*Backend, opts Options) ([]*Backend, error) {
	out := make([]*Backend, len(bes))
	for i, be := range bes {
		c, err := configureBackend(be, opts)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// chainOptions returns flow's convolution-chain predicate: chains merge
// into one dispatch only where every target lowers the merged region.
func chainOptions(bes []*Backend) func(p, r, c *ir.Operation) bool {
	for _, be := range bes {
		if be.Strategy.ConvChainChannels <= 0 {
			return nil
		}
	}
	return func(p, r, c *ir.Operation) bool {
		for _, be := range bes {
			if !codegen.ChainLowerable(p, r, c, be.Strategy) {
				return false
			}
		}
		return true
	}
}

// recurrenceOptions returns flow's recurrence predicate: a host loop
// becomes one dispatch only where every target lowers it as one kernel.
func recurrenceOptions(bes []*Backend) func(loop *ir.Operation) bool {
	for _, be := range bes {
		if !be.Strategy.Recurrence {
			return nil
		}
	}
	return func(loop *ir.Operation) bool {
		for _, be := range bes {
			if !codegen.RecurrenceLowerable(loop, be.Strategy) {
				return false
			}
		}
		return true
	}
}

// lowerRegion lowers one dispatch region for a backend: codegen with its
// strategy, then its legalization.
func lowerRegion(be *Backend, r *ir.Operation, name string) (*codegen.Dispatch, error) {
	d, err := codegen.Lower(r, name, be.Strategy)
	if err != nil {
		return nil, err
	}
	if be.Legalize != nil {
		if err := be.Legalize(d.Kernel); err != nil {
			return nil, fmt.Errorf("%s: %w", be.Name, err)
		}
	}
	return d, nil
}

// lowerVariant lowers region r for an alternative target and checks that
// its kernel takes what the first target's kernel (ref) takes: the same
// tensors as bindings and the same push constants, in the same order,
// since one dispatch instruction serves every variant. The host zeroes a
// result buffer unless every variant writes it before reading it.
func lowerVariant(first *Backend, ref *vm.DispatchRef, be *Backend, r *ir.Operation, name string) (*kir.Kernel, error) {
	d, err := lowerRegion(be, r, name)
	if err != nil {
		return nil, err
	}
	same := slices.Equal(d.Bindings, ref.Bindings) && slices.Equal(d.Push, ref.Push)
	if !same {
		return nil, ir.OpErrorf(r, "is lowered by targets %s and %s to kernels (%s) that take different bindings or push constants (%d bindings and %d push constants, against %d and %d); gree puts several targets in one module only when their kernels agree: compile one module per target",
			first.Name, be.Name, name, len(ref.Bindings), len(ref.Push), len(d.Bindings), len(d.Push))
	}
	for b := range ref.WrittenFirst {
		if !d.WrittenFirst[b] {
			delete(ref.WrittenFirst, b)
		}
	}
	return d.Kernel, nil
}

// emitVariants makes one executable per target from its kernels
// (kernels[t] are bes[t]'s), in the targets' order: the variants of one
// group. It returns them with the module attributes the emitters record
// and "target", the targets in variant order.
func emitVariants(bes []*Backend, kernels [][]*kir.Kernel, opts Options) ([]module.Executable, []module.Attr, error) {
	var execs []module.Executable
	var attrs []module.Attr
	var targets []string
	for t, be := range bes {
		var names []string
		for _, k := range kernels[t] {
			file := k.Name + ".kir"
			if len(bes) > 1 {
				file = k.Name + "_" + be.Name + ".kir"
			}
			if err := dumpFile(opts.Dump.Sources, file, []byte(k.String())); err != nil {
				return nil, nil, err
			}
			names = append(names, k.Name)
		}
		data, extra, err := emitExecutable(be, kernels[t], opts)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", be.Name, err)
		}
		attrs = append(attrs, extra...)
		execs = append(execs, module.Executable{Format: be.Format, Entries: names, Data: data, Variant: uint32(t)})
		targets = append(targets, be.Name)
	}
	attrs = append(attrs, module.Attr{Key: "target", Value: strings.Join(targets, ",")})
	return execs, attrs, nil
}
