package vm

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/schemas/module"
)

// scfFor emits
//
//	iv, iters = lb, inits
//	head: if !(iv < ub) goto exit
//	      body; iters = yields; iv += step; goto head
//	exit: results = iters
func (fe *fnEmitter) scfFor(op *ir.Operation) error {
	lb, err := fe.scalar(op.Operands[0])
	if err != nil {
		return err
	}
	ub, err := fe.scalar(op.Operands[1])
	if err != nil {
		return err
	}
	step, err := fe.scalar(op.Operands[2])
	if err != nil {
		return err
	}
	inits, err := fe.sources(op.Operands[3:])
	if err != nil {
		return err
	}
	body := op.Regions[0].Blocks[0]
	st, ok := scalarType(op.Operands[0].Type)
	if !ok {
		return ir.OpErrorf(op, "has an unsupported induction variable type")
	}
	ivKind := fe.f.Regs[lb]
	iv := fe.newReg(ivKind)
	iters, err := fe.slots(fe.types(op.Operands[3:]))
	if err != nil {
		return err
	}
	fe.move(append([]int32{iv}, iters...), append([]int32{lb}, inits...))
	head := fe.pc()
	cond := fe.newReg(module.KindI32)
	fe.emit(module.Instr{Op: module.OpCmp, Sub: 2 /* slt */, Type: st, Dst: []int32{cond}, Src: []int32{iv, ub}})
	br := fe.emit(module.Instr{Op: module.OpCondBranch, Src: []int32{cond}, Index: fe.pc() + 1})
	// The body sees iv and iters through its block arguments.
	fe.regOf[body.Args[0]] = iv
	if err := fe.regionArgs(body.Args[1:], iters); err != nil {
		return err
	}
	if err := fe.bodyOps(body); err != nil {
		return err
	}
	ys, err := fe.sources(terminatorOperands(body))
	if err != nil {
		return err
	}
	next := fe.newReg(ivKind)
	fe.emit(module.Instr{Op: module.OpArith, Sub: uint8(module.ArithAdd), Type: st, Dst: []int32{next}, Src: []int32{iv, step}})
	fe.emit(module.Instr{Op: module.OpBranch, Dst: append([]int32{iv}, iters...), Src: append([]int32{next}, ys...), Index: head})
	fe.f.Code[br].Index2 = fe.pc()
	// Results are the final iteration values.
	res, err := fe.results(op)
	if err != nil {
		return err
	}
	fe.move(res, iters)
	fe.defineResults(op.Results, res)
	return nil
}

// scfIf emits a two-way branch whose arms copy their yields into the
// result registers.
func (fe *fnEmitter) scfIf(op *ir.Operation) error {
	cond, err := fe.scalar(op.Operands[0])
	if err != nil {
		return err
	}
	res, err := fe.results(op)
	if err != nil {
		return err
	}
	br := fe.emit(module.Instr{Op: module.OpCondBranch, Src: []int32{cond}, Index: fe.pc() + 1})
	arm := func(r *ir.Region) error {
		if r == nil || len(r.Blocks) == 0 {
			return nil
		}
		b := r.Blocks[0]
		if err := fe.bodyOps(b); err != nil {
			return err
		}
		ys, err := fe.sources(terminatorOperands(b))
		if err != nil {
			return err
		}
		fe.move(res, ys)
		return nil
	}
	if err := arm(op.Regions[0]); err != nil {
		return err
	}
	jmp := fe.emit(module.Instr{Op: module.OpBranch})
	fe.f.Code[br].Index2 = fe.pc()
	if len(op.Regions) > 1 {
		if err := arm(op.Regions[1]); err != nil {
			return err
		}
	}
	// Keep the jump target inside the function even when nothing follows.
	fe.f.Code[jmp].Index = fe.pc()
	fe.defineResults(op.Results, res)
	return nil
}

// scfWhile emits
//
//	args = inits
//	before: cond, fwd = before(args); if !cond goto exit
//	        after(fwd) → args; goto before
//	exit:   results = fwd
func (fe *fnEmitter) scfWhile(op *ir.Operation) error {
	inits, err := fe.sources(op.Operands)
	if err != nil {
		return err
	}
	before := op.Regions[0].Blocks[0]
	after := op.Regions[1].Blocks[0]
	args, err := fe.slots(fe.types(before.Args))
	if err != nil {
		return err
	}
	fe.move(args, inits)
	head := fe.pc()
	if err := fe.regionArgs(before.Args, args); err != nil {
		return err
	}
	if err := fe.bodyOps(before); err != nil {
		return err
	}
	condOp := before.Terminator()
	cond, err := fe.scalar(condOp.Operands[0])
	if err != nil {
		return err
	}
	fwd, err := fe.sources(condOp.Operands[1:])
	if err != nil {
		return err
	}
	carried, err := fe.slots(fe.types(condOp.Operands[1:]))
	if err != nil {
		return err
	}
	fe.move(carried, fwd)
	br := fe.emit(module.Instr{Op: module.OpCondBranch, Src: []int32{cond}, Index: fe.pc() + 1})
	if err := fe.regionArgs(after.Args, carried); err != nil {
		return err
	}
	if err := fe.bodyOps(after); err != nil {
		return err
	}
	ys, err := fe.sources(terminatorOperands(after))
	if err != nil {
		return err
	}
	fe.emit(module.Instr{Op: module.OpBranch, Dst: args, Src: ys, Index: head})
	fe.f.Code[br].Index2 = fe.pc()
	res, err := fe.results(op)
	if err != nil {
		return err
	}
	fe.move(res, carried)
	fe.defineResults(op.Results, res)
	return nil
}
