package vmvx

import (
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/schemas/vmvx"
)

// forOp emits
//
//	mov iters ← inits
//	for_init iv, lo, hi, step → end
//	body: …
//	mov iters ← yields (parallel)
//	for_next iv, hi, step → body
//	end: mov results ← iters
func (em *emitter) forOp(op *kir.Op) error {
	s, e := em.live.start[op], em.live.end[op]
	bounds, err := em.regs(op.Args[:3])
	if err != nil {
		return err
	}
	inits, err := em.regs(op.Args[3:])
	if err != nil {
		return err
	}
	body := op.Regions[0]
	iv := em.define(body.Args[0])
	iters := make([]uint32, len(body.Args)-1)
	for i, a := range body.Args[1:] {
		iters[i] = em.define(a)
	}
	em.parallelMove(iters, inits)
	em.release(s)
	initAt := em.emit(vmvx.Instr{Op: vmvx.ForInit, Args: []uint32{iv, bounds[0], bounds[1], bounds[2]}})
	bodyAt := em.here()
	if err := em.block(body); err != nil {
		return err
	}
	yield := body.Ops[len(body.Ops)-1]
	yields, err := em.regs(yield.Args)
	if err != nil {
		return err
	}
	em.parallelMove(iters, yields)
	em.release(em.live.start[yield])
	em.emit(vmvx.Instr{Op: vmvx.ForNext, Args: []uint32{iv, bounds[1], bounds[2]}, Target: bodyAt})
	em.e.Code[initAt].Target = em.here()
	results := make([]uint32, len(op.Results))
	for i, r := range op.Results {
		results[i] = em.define(r)
	}
	em.parallelMove(results, iters)
	em.release(e)
	return nil
}

// ifOp emits
//
//	jz cond → else
//	then: …; mov results ← yields; jmp end
//	else: …; mov results ← yields
//	end:
func (em *emitter) ifOp(op *kir.Op) error {
	cond, err := em.r(op.Args[0])
	if err != nil {
		return err
	}
	results := make([]uint32, len(op.Results))
	for i, r := range op.Results {
		results[i] = em.define(r)
	}
	em.release(em.live.start[op])
	jz := em.emit(vmvx.Instr{Op: vmvx.Jz, Args: []uint32{cond}})
	if err := em.branch(op.Regions[0], results); err != nil {
		return err
	}
	jmp := em.emit(vmvx.Instr{Op: vmvx.Jmp})
	em.e.Code[jz].Target = em.here()
	if err := em.branch(op.Regions[1], results); err != nil {
		return err
	}
	if em.here() == uint32(jmp+1) {
		em.e.Code = em.e.Code[:jmp] // empty else: then falls through
		em.e.Code[jz].Target = em.here()
	} else {
		em.e.Code[jmp].Target = em.here()
	}
	em.release(em.live.end[op])
	return nil
}

// branch emits one region of an If and the moves of its yielded values.
func (em *emitter) branch(b *kir.Block, results []uint32) error {
	if err := em.block(b); err != nil {
		return err
	}
	if len(b.Ops) == 0 {
		return nil
	}
	yield := b.Ops[len(b.Ops)-1]
	yields, err := em.regs(yield.Args)
	if err != nil {
		return err
	}
	em.parallelMove(results, yields)
	em.release(em.live.start[yield])
	return nil
}

// parallelMove emits moves so that every dst[i] receives the value src[i]
// held before the moves, ordering them and breaking cycles with a
// temporary register.
func (em *emitter) parallelMove(dst, src []uint32) {
	type move struct{ d, s uint32 }
	var pending []move
	for i := range dst {
		if dst[i] != src[i] {
			pending = append(pending, move{dst[i], src[i]})
		}
	}
	for len(pending) > 0 {
		progressed := false
		for i := 0; i < len(pending); i++ {
			m := pending[i]
			blocked := false
			for j, o := range pending {
				if j != i && o.s == m.d {
					blocked = true
					break
				}
			}
			if blocked {
				continue
			}
			em.emit(vmvx.Instr{Op: vmvx.Mov, Dst: m.d, Args: []uint32{m.s}})
			pending = append(pending[:i], pending[i+1:]...)
			i--
			progressed = true
		}
		if progressed {
			continue
		}
		// Every remaining move's destination is another's source: a cycle.
		m := pending[0]
		tmp := em.newReg(em.types[m.s])
		em.emit(vmvx.Instr{Op: vmvx.Mov, Dst: tmp, Args: []uint32{m.s}})
		for j := range pending {
			if pending[j].s == m.s {
				pending[j].s = tmp
			}
		}
		defer em.freeReg(tmp)
	}
}
