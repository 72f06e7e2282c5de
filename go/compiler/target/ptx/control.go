package ptx

import (
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/schemas/llvmcpu"
)

// Structured control flow: an If is a conditional branch around its
// regions, whose yielded lanes are copied into the result registers; a
// For is a loop whose induction variable and carried lanes live in fixed
// registers, updated at the end of each iteration through temporaries (a
// parallel copy).

// laneRegs returns fresh registers for the lanes of vs, flattened.
func (e *emitter) laneRegs(vs []kir.Value) []string {
	var rs []string
	for _, v := range vs {
		t := e.k.Types[v]
		for i := 0; i < t.Width(); i++ {
			rs = append(rs, e.regOf(t.Elem))
		}
	}
	return rs
}

// flat returns the lane registers of vs, flattened.
func (e *emitter) flat(vs []kir.Value) []string {
	var rs []string
	for _, v := range vs {
		for i := 0; i < e.k.Types[v].Width(); i++ {
			rs = append(rs, e.lane(v, i))
		}
	}
	return rs
}

// unflat gives vs their lanes from rs.
func (e *emitter) unflat(vs []kir.Value, rs []string) {
	for _, v := range vs {
		n := e.k.Types[v].Width()
		e.set(v, rs[:n:n])
		rs = rs[n:]
	}
}

// classOfReg returns the class of a register by its name.
func classOfReg(r string) regClass {
	switch {
	case len(r) > 2 && r[:3] == "%rd":
		return cls64
	case r[:2] == "%p":
		return clsPred
	case r[:2] == "%h":
		return cls16
	}
	return cls32
}

// copies moves srcs into dsts.
func (e *emitter) copies(dsts, srcs []string) {
	for i, d := range dsts {
		e.mov(classOfReg(d), d, srcs[i])
	}
}

// ifOp translates If.
func (e *emitter) ifOp(op *kir.Op) {
	res := e.laneRegs(op.Results)
	els, end := e.newLabel(), e.newLabel()
	e.ins("@!%s bra %s", e.lane(op.Args[0], 0), els)
	save := e.op
	ys := e.ops(op.Regions[0])
	e.op = save
	e.copies(res, e.flat(ys))
	e.ins("bra %s", end)
	e.place(els)
	if len(op.Regions) > 1 {
		ys = e.ops(op.Regions[1])
		e.op = save
		e.copies(res, e.flat(ys))
	}
	e.place(end)
	e.unflat(op.Results, res)
}

// forOp translates For: the loop runs while iv < hi (signed) and the
// increment has not overflowed; a step that is not a positive constant
// is checked at run time, and a step that is not positive is a failed
// check (ErrStep) that runs no iteration.
func (e *emitter) forOp(op *kir.Op) {
	it := e.k.Types[op.Args[0]].Elem
	w := bitsOf(it)
	c := classOf(it)
	lo, hi, step := e.lane(op.Args[0], 0), e.lane(op.Args[1], 0), e.lane(op.Args[2], 0)
	var live string
	if s, ok := e.constIndex(op.Args[2]); ok && s > 0 {
		live = e.imm(clsPred, 1)
	} else {
		live = e.reg(clsPred)
		e.ins("setp.gt.s%s %s, %s, 0", w, live, step)
		bad := e.reg(clsPred)
		e.ins("not.pred %s, %s", bad, live)
		e.report(bad, llvmcpu.ErrStep, 0)
	}
	body := op.Regions[0]
	iv := e.reg(c)
	e.mov(c, iv, lo)
	carried := e.laneRegs(op.Args[3:])
	e.copies(carried, e.flat(op.Args[3:]))
	head, end := e.newLabel(), e.newLabel()
	e.place(head)
	run := e.reg(clsPred)
	e.ins("setp.lt.s%s %s, %s, %s", w, run, iv, hi)
	e.ins("and.pred %s, %s, %s", run, run, live)
	e.ins("@!%s bra %s", run, end)
	e.set(body.Args[0], []string{iv})
	e.unflat(body.Args[1:], carried)
	save := e.op
	ys := e.flat(e.ops(body))
	e.op = save
	tmps := make([]string, len(ys))
	for i, y := range ys {
		tmps[i] = e.reg(classOfReg(carried[i]))
		e.mov(classOfReg(carried[i]), tmps[i], y)
	}
	e.copies(carried, tmps)
	next := e.op3(c, "add.s"+w, iv, step)
	e.ins("setp.gt.s%s %s, %s, %s", w, live, next, iv)
	e.mov(c, iv, next)
	e.ins("bra %s", head)
	e.place(end)
	e.unflat(op.Results, carried)
}
