package vm

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/schemas/module"
)

// results gives op's results fresh registers (tensors read their
// dynamic dimensions from the buffer view) and returns the registers.
func (fe *fnEmitter) results(op *ir.Operation) ([]int32, error) {
	regs := make([]int32, len(op.Results))
	for i, res := range op.Results {
		if _, ok := res.Type.(*ir.RankedTensorType); ok {
			regs[i] = fe.newReg(module.KindRef)
			continue
		}
		r, err := fe.newValue(res)
		if err != nil {
			return nil, err
		}
		regs[i] = r
	}
	return regs, nil
}

// defineResults records tensor results held in regs (after the
// instruction that fills them).
func (fe *fnEmitter) defineResults(vals []*ir.Value, regs []int32) {
	for i, v := range vals {
		if rt, ok := v.Type.(*ir.RankedTensorType); ok {
			fe.tensors[v] = &tensor{reg: regs[i], typ: rt, dims: fe.readDims(regs[i], rt)}
		}
	}
}

func (fe *fnEmitter) call(op *ir.Operation) error {
	callee, _ := op.Attr("callee").(*ir.SymbolRefAttr)
	if callee == nil {
		return ir.OpErrorf(op, "has no callee")
	}
	src, err := fe.sources(op.Operands)
	if err != nil {
		return err
	}
	dst, err := fe.results(op)
	if err != nil {
		return err
	}
	if fi, ok := fe.e.funcs[callee.Root]; ok {
		// A call inside the module passes null fences to a function with
		// the coarse-fences ABI: only the caller of an export waits or
		// signals.
		for len(src) < len(fe.e.mod.Functions[fi].Args) {
			src = append(src, fe.newReg(module.KindRef))
		}
		fe.emit(module.Instr{Op: module.OpCall, Index: int32(fi), Src: src, Dst: dst})
	} else {
		ii, err := fe.e.importFunc(op, callee.Root)
		if err != nil {
			return err
		}
		fe.emit(module.Instr{Op: module.OpCallImport, Index: int32(ii), Src: src, Dst: dst})
	}
	fe.defineResults(op.Results, dst)
	return nil
}

// importFunc declares a call to a function of another module, named
// "module.function" as in IREE.
func (e *emitter) importFunc(op *ir.Operation, sym string) (int, error) {
	if i, ok := e.imports[sym]; ok {
		return i, nil
	}
	decl := e.in.Module.Lookup(sym)
	if decl == nil {
		return 0, ir.OpErrorf(op, "calls @%s, which is not defined", sym)
	}
	modName, fnName, ok := cutLast(sym, '.')
	if !ok {
		return 0, ir.OpErrorf(op, "calls external function @%s; external functions must be named module.function", sym)
	}
	f, err := signature(decl, false)
	if err != nil {
		return 0, err
	}
	e.imports[sym] = len(e.mod.Imports)
	e.mod.Imports = append(e.mod.Imports, module.Import{Module: modName, Name: fnName, Args: f.Args, Results: f.Results})
	return e.imports[sym], nil
}

func cutLast(s string, sep byte) (string, string, bool) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == sep {
			return s[:i], s[i+1:], true
		}
	}
	return "", "", false
}

// regionArgs binds a region's block arguments to fresh registers dst
// (reading tensor dimensions at the block start).
func (fe *fnEmitter) regionArgs(args []*ir.Value, regs []int32) error {
	for i, a := range args {
		if err := fe.bindArg(a, regs[i]); err != nil {
			return err
		}
	}
	return nil
}

// terminatorOperands returns the operands of the block's terminator.
func terminatorOperands(b *ir.Block) []*ir.Value {
	if t := b.Terminator(); t != nil {
		return t.Operands
	}
	return nil
}

// bodyOps emits a region block without its terminator.
func (fe *fnEmitter) bodyOps(b *ir.Block) error {
	for _, op := range b.Ops {
		if op == b.Terminator() && (op.Name == "scf.yield" || op.Name == "scf.condition") {
			continue
		}
		if err := fe.op(op); err != nil {
			return err
		}
	}
	return nil
}

func (fe *fnEmitter) types(vs []*ir.Value) []ir.Type {
	ts := make([]ir.Type, len(vs))
	for i, v := range vs {
		ts[i] = v.Type
	}
	return ts
}

// tensorTrace emits flow.tensor.trace: the runtime hands the tensors,
// once the work writing them is done, to the context's trace sink (by
// default it prints them to stderr) under the op's key.
func (fe *fnEmitter) tensorTrace(op *ir.Operation) error {
	key, _ := op.Attr("key").(*ir.StringAttr)
	if key == nil {
		return ir.OpErrorf(op, "has no key")
	}
	n := len(op.Operands)
	if seg, ok := op.Attr("operandSegmentSizes").(*ir.DenseArrayAttr); ok && len(seg.Ints) > 0 {
		n = int(seg.Ints[0])
	}
	src, err := fe.sources(op.Operands[:n])
	if err != nil {
		return err
	}
	fe.emit(module.Instr{Op: module.OpTrace, Str: key.Value, Src: src})
	return nil
}
