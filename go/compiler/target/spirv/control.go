package spirv

import (
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/schemas/llvmcpu"
)

// Structured control flow: every If is a selection construct (its merge
// block holds an OpPhi per result lane) and every For a loop construct
// whose header carries the induction variable and the loop-carried lanes
// in OpPhis.

// ifElse emits a selection on cond: then and els (nil: empty) each
// return values of types ts, which become phis at the merge block.
func (e *emitter) ifElse(cond uint32, ts []uint32, then, els func() []uint32) []uint32 {
	tl, el, merge := e.m.id(), e.m.id(), e.m.id()
	e.emit(opSelectionMerge, merge, 0)
	e.emit(opBranchConditional, cond, tl, el)
	e.label(tl)
	tv := then()
	tEnd := e.block
	e.emit(opBranch, merge)
	e.label(el)
	var ev []uint32
	if els != nil {
		ev = els()
	}
	eEnd := e.block
	e.emit(opBranch, merge)
	e.label(merge)
	out := make([]uint32, len(ts))
	for i, t := range ts {
		out[i] = e.val(t, opPhi, tv[i], tEnd, ev[i], eEnd)
	}
	return out
}

// loop emits a loop construct carrying values of types ts (initially
// inits): cond gets the carried values and returns whether to run the
// body, body returns the next values. It returns the carried values at
// the exit.
func (e *emitter) loop(ts, inits []uint32, cond func(cur []uint32) uint32, body func(cur []uint32) []uint32) []uint32 {
	pre := e.block
	header, bodyL, cont, merge := e.m.id(), e.m.id(), e.m.id(), e.m.id()
	e.emit(opBranch, header)
	e.label(header)
	cur := make([]uint32, len(ts))
	patch := make([]int, len(ts))
	for i, t := range ts {
		cur[i] = e.val(t, opPhi, inits[i], pre, 0, cont)
		patch[i] = len(e.fn) - 2 // the value from the continue block
	}
	c := cond(cur)
	e.emit(opLoopMerge, merge, cont, 0)
	e.emit(opBranchConditional, c, bodyL, merge)
	e.label(bodyL)
	next := body(cur)
	e.emit(opBranch, cont)
	e.label(cont)
	e.emit(opBranch, header)
	for i, p := range patch {
		e.fn[p] = next[i]
	}
	e.label(merge)
	return cur
}

// laneTypes returns the register types of the lanes of vs, flattened.
func (e *emitter) laneTypes(vs []kir.Value) []uint32 {
	var ts []uint32
	for _, v := range vs {
		t := e.k.Types[v]
		r := e.reg(t.Elem)
		for i := 0; i < t.Width(); i++ {
			ts = append(ts, r)
		}
	}
	return ts
}

// flat returns the lane ids of vs, flattened.
func (e *emitter) flat(vs []kir.Value) []uint32 {
	var ids []uint32
	for _, v := range vs {
		for i := 0; i < e.k.Types[v].Width(); i++ {
			ids = append(ids, e.lane(v, i))
		}
	}
	return ids
}

// unflat gives vs their lanes from ids.
func (e *emitter) unflat(vs []kir.Value, ids []uint32) {
	for _, v := range vs {
		n := e.k.Types[v].Width()
		e.set(v, ids[:n:n])
		ids = ids[n:]
	}
}

// ifOp translates If.
func (e *emitter) ifOp(op *kir.Op) {
	region := func(r int) func() []uint32 {
		return func() []uint32 {
			save := e.op
			ys := e.ops(op.Regions[r])
			e.op = save
			return e.flat(ys)
		}
	}
	out := e.ifElse(e.lane(op.Args[0], 0), e.laneTypes(op.Results), region(0), region(1))
	e.unflat(op.Results, out)
}

// forOp translates For: the loop runs while iv < hi (signed) and the
// increment has not overflowed; a step that is not positive (unless it
// is a positive constant) is a failed check that skips the loop.
func (e *emitter) forOp(op *kir.Op) {
	u64, cU64 := e.idxT(op.Args[0])
	b := e.bool()
	lo, hi, step := e.lane(op.Args[0], 0), e.lane(op.Args[1], 0), e.lane(op.Args[2], 0)
	stepOK := e.cBool(true)
	if s, ok := e.constIndex(op.Args[2]); !ok || s <= 0 {
		stepOK = e.val(b, opSGreaterThan, step, cU64(0))
		e.ifElse(stepOK, nil, func() []uint32 { return nil }, func() []uint32 {
			e.fail(llvmcpu.ErrStep, 0)
			return nil
		})
	}
	body := op.Regions[0]
	ts := append([]uint32{u64, b}, e.laneTypes(op.Args[3:])...)
	inits := append([]uint32{lo, stepOK}, e.flat(op.Args[3:])...)
	save := e.op
	out := e.loop(ts, inits, func(cur []uint32) uint32 {
		return e.val(b, opLogicalAnd, cur[1], e.val(b, opSLessThan, cur[0], hi))
	}, func(cur []uint32) []uint32 {
		e.set(body.Args[0], cur[:1])
		e.unflat(body.Args[1:], cur[2:])
		ys := e.ops(body)
		e.op = save
		next := e.val(u64, opIAdd, cur[0], step)
		live := e.val(b, opSGreaterThan, next, cur[0])
		return append([]uint32{next, live}, e.flat(ys)...)
	})
	e.unflat(op.Results, out[2:])
}
