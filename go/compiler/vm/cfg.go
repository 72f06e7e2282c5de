package vm

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/schemas/module"
)

// cfg emits a function body of several blocks joined by cf.br and
// cf.cond_br: block arguments get registers up front, branches copy into
// them and jump, and jump targets are patched once every block's address
// is known.
func (fe *fnEmitter) cfg(blocks []*ir.Block) error {
	fe.blockPC = map[*ir.Block]int32{}
	fe.blockArgs = map[*ir.Block][]int32{}
	for _, b := range blocks[1:] {
		regs, err := fe.slots(fe.types(b.Args))
		if err != nil {
			return err
		}
		fe.blockArgs[b] = regs
	}
	for i, b := range blocks {
		fe.blockPC[b] = fe.pc()
		if i > 0 {
			if err := fe.regionArgs(b.Args, fe.blockArgs[b]); err != nil {
				return err
			}
		}
		if err := fe.block(b); err != nil {
			return err
		}
	}
	for _, f := range fe.fixups {
		if f.second {
			fe.f.Code[f.pc].Index2 = fe.blockPC[f.block]
		} else {
			fe.f.Code[f.pc].Index = fe.blockPC[f.block]
		}
	}
	return nil
}

// jump emits a parallel copy of vals into dest's argument registers and a
// jump to dest.
func (fe *fnEmitter) jump(dest *ir.Block, vals []*ir.Value) error {
	src, err := fe.sources(vals)
	if err != nil {
		return err
	}
	pc := fe.emit(module.Instr{Op: module.OpBranch, Dst: fe.blockArgs[dest], Src: src})
	fe.fixups = append(fe.fixups, fixup{pc: pc, block: dest})
	return nil
}

// branch emits cf.br and cf.cond_br.
func (fe *fnEmitter) branch(op *ir.Operation) error {
	if fe.blockArgs == nil {
		return ir.OpErrorf(op, "is not inside a multi-block function")
	}
	if op.Name == "cf.br" {
		return fe.jump(op.Successors[0], op.Operands)
	}
	seg, _ := op.Attr("operandSegmentSizes").(*ir.DenseArrayAttr)
	if seg == nil || seg.Len() != 3 || len(op.Successors) != 2 {
		return ir.OpErrorf(op, "has malformed operands")
	}
	nt := int(seg.Ints[1])
	cond, err := fe.scalar(op.Operands[0])
	if err != nil {
		return err
	}
	br := fe.emit(module.Instr{Op: module.OpCondBranch, Src: []int32{cond}, Index: fe.pc() + 1})
	if err := fe.jump(op.Successors[0], op.Operands[1:1+nt]); err != nil {
		return err
	}
	fe.f.Code[br].Index2 = fe.pc()
	return fe.jump(op.Successors[1], op.Operands[1+nt:])
}
