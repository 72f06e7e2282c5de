package vmvx

import (
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/schemas/vmvx"
	"github.com/gree-ml/gree/go/status"
)

// Subgroups of another size than vmvx's own.
//
// vmvx's subgroups are min(vmvx.MaxSubgroupSize, threads) consecutive
// threads (vmvx.Entry.SubgroupSize). A kernel whose subgroups
// (kir.Kernel.SubgroupSize, min(size, threads) threads) differ gets them
// emulated: LaneID and SubgroupSize come from the linear thread id, and
// each SubgroupReduce or SubgroupShuffle goes through a workgroup-memory
// array of one element per thread between two barriers, reading the
// subgroup's elements in lane order (so a reduction rounds as kir.Run's
// does). Barriers are valid there because kir.Verify admits subgroup ops
// only in workgroup-uniform control flow: every thread of the workgroup
// reaches each of them, together.

// emulated holds the registers (i64, computed at the entry) and the
// scratch allocations of emulated subgroups.
type emulated struct {
	size                   int64 // threads per subgroup (the last may have fewer)
	lin, lane, base, count uint32
	scratch                map[vmvx.Elem]uint32 // shared allocation by element type
}

var i64Reg = vmvx.RegType{Elem: vmvx.I64, Lanes: 1}

// kernelSubgroup returns k's subgroup size as kir.Run counts it.
func kernelSubgroup(k *kir.Kernel) int {
	threads := k.WorkgroupSize[0] * k.WorkgroupSize[1] * k.WorkgroupSize[2]
	s := k.SubgroupSize
	if s <= 0 {
		s = kir.MaxSubgroupSize
	}
	return min(s, threads)
}

// usesSubgroups reports whether b has an op whose meaning depends on the
// subgroup size.
func usesSubgroups(b *kir.Block) bool {
	for _, op := range b.Ops {
		switch op.Kind {
		case kir.LaneID, kir.SubgroupSize, kir.SubgroupReduce, kir.SubgroupShuffle:
			return true
		}
		for _, r := range op.Regions {
			if usesSubgroups(r) {
				return true
			}
		}
	}
	return false
}

// setupSubgroups starts the entry with the registers of emulated
// subgroups when k's subgroup size is not vmvx's.
func (em *emitter) setupSubgroups() {
	k := em.k
	size := kernelSubgroup(k)
	if size == em.e.SubgroupSize() || !usesSubgroups(k.Body) {
		return
	}
	ws := k.WorkgroupSize
	threads := int64(ws[0] * ws[1] * ws[2])
	g := &emulated{size: int64(size), scratch: map[vmvx.Elem]uint32{}}
	var temps []uint32
	tmp := func() uint32 {
		r := em.newReg(i64Reg)
		temps = append(temps, r)
		return r
	}
	konst := func(x int64) uint32 {
		r := tmp()
		em.emit(vmvx.Instr{Op: vmvx.ConstInt, Dst: r, Imm: x})
		return r
	}
	bin := func(op vmvx.Opcode, d, a, b uint32) {
		em.emit(vmvx.Instr{Op: op, Dst: d, Args: []uint32{a, b}})
	}
	var tid [3]uint32
	for d := range tid {
		tid[d] = tmp()
		em.emit(vmvx.Instr{Op: vmvx.ThreadID, Dst: tid[d], Imm: int64(d)})
	}
	// lin = x + X·(y + Y·z)
	g.lin, g.lane, g.base, g.count = em.newReg(i64Reg), em.newReg(i64Reg), em.newReg(i64Reg), em.newReg(i64Reg)
	yz := tmp()
	bin(vmvx.Mul, yz, konst(int64(ws[1])), tid[2])
	bin(vmvx.Add, yz, yz, tid[1])
	bin(vmvx.Mul, yz, konst(int64(ws[0])), yz)
	bin(vmvx.Add, g.lin, tid[0], yz)
	s := konst(g.size)
	bin(vmvx.RemS, g.lane, g.lin, s)
	bin(vmvx.Sub, g.base, g.lin, g.lane)
	rest := tmp()
	bin(vmvx.Sub, rest, konst(threads), g.base)
	bin(vmvx.MinS, g.count, s, rest)
	for _, r := range temps {
		em.freeReg(r)
	}
	em.sub = g
}

// scratchFor returns the shared allocation emulated subgroup ops of
// element type e exchange values through, adding it at first use.
func (em *emitter) scratchFor(e vmvx.Elem) (uint32, error) {
	g := em.sub
	if a, ok := g.scratch[e]; ok {
		return a, nil
	}
	if len(em.e.Shared) >= vmvx.MaxShared {
		return 0, status.Errorf(status.Unimplemented, "emulating subgroups of %d needs a shared allocation beyond vmvx's %d", g.size, vmvx.MaxShared)
	}
	ws := em.k.WorkgroupSize
	em.e.Shared = append(em.e.Shared, vmvx.Shared{Elem: e, Count: uint64(ws[0] * ws[1] * ws[2])})
	a := uint32(len(em.e.Shared) - 1)
	g.scratch[e] = a
	return a, nil
}

// reduceOps maps reduction kinds to the binary instruction combining two
// values.
var reduceOps = [...]vmvx.Opcode{
	kir.ReduceAdd: vmvx.Add, kir.ReduceMul: vmvx.Mul, kir.ReduceMinS: vmvx.MinS,
	kir.ReduceMaxS: vmvx.MaxS, kir.ReduceMinU: vmvx.MinU, kir.ReduceMaxU: vmvx.MaxU,
	kir.ReduceMinF: vmvx.MinF, kir.ReduceMaxF: vmvx.MaxF, kir.ReduceAnd: vmvx.And,
	kir.ReduceOr: vmvx.Or, kir.ReduceXor: vmvx.Xor,
}

// emulatedSubgroupOp emits op, a subgroup-size query or subgroup op, for
// emulated subgroups.
func (em *emitter) emulatedSubgroupOp(op *kir.Op) error {
	g := em.sub
	switch op.Kind {
	case kir.SubgroupSize:
		em.emit(vmvx.Instr{Op: vmvx.ConstInt, Dst: em.define(op.Results[0]), Imm: g.size})
		em.release(em.live.start[op])
		return nil
	case kir.LaneID:
		em.emit(vmvx.Instr{Op: vmvx.Mov, Dst: em.define(op.Results[0]), Args: []uint32{g.lane}})
		em.release(em.live.start[op])
		return nil
	}
	t := em.k.Types[op.Args[0]]
	if t.IsVector() {
		return status.Errorf(status.Unimplemented, "vmvx shuffles scalars only, not %s", t)
	}
	args, err := em.regs(op.Args)
	if err != nil {
		return err
	}
	sh, err := em.scratchFor(vmvx.Elem(t.Elem))
	if err != nil {
		return err
	}
	em.emit(vmvx.Instr{Op: vmvx.StoreShared, Bindings: [3]uint32{sh}, Args: []uint32{g.lin, args[0]}})
	em.emit(vmvx.Instr{Op: vmvx.Barrier})
	d := em.define(op.Results[0])
	idx := em.newReg(i64Reg)
	if op.Kind == kir.SubgroupShuffle {
		// lane ((l mod n) + n) mod n of the subgroup's n threads.
		for _, in := range []vmvx.Instr{
			{Op: vmvx.RemS, Dst: idx, Args: []uint32{args[1], g.count}},
			{Op: vmvx.Add, Dst: idx, Args: []uint32{idx, g.count}},
			{Op: vmvx.RemS, Dst: idx, Args: []uint32{idx, g.count}},
			{Op: vmvx.Add, Dst: idx, Args: []uint32{idx, g.base}},
			{Op: vmvx.LoadShared, Dst: d, Bindings: [3]uint32{sh}, Args: []uint32{idx}},
		} {
			em.emit(in)
		}
	} else {
		// d = x[base]; for j in 1..count: d = d ∘ x[base+j]
		j, one, y := em.newReg(i64Reg), em.newReg(i64Reg), em.newReg(regType(t))
		em.emit(vmvx.Instr{Op: vmvx.LoadShared, Dst: d, Bindings: [3]uint32{sh}, Args: []uint32{g.base}})
		em.emit(vmvx.Instr{Op: vmvx.ConstInt, Dst: one, Imm: 1})
		init := em.emit(vmvx.Instr{Op: vmvx.ForInit, Args: []uint32{j, one, g.count, one}})
		body := em.here()
		em.emit(vmvx.Instr{Op: vmvx.Add, Dst: idx, Args: []uint32{g.base, j}})
		em.emit(vmvx.Instr{Op: vmvx.LoadShared, Dst: y, Bindings: [3]uint32{sh}, Args: []uint32{idx}})
		em.emit(vmvx.Instr{Op: reduceOps[op.Imm], Dst: d, Args: []uint32{d, y}})
		em.emit(vmvx.Instr{Op: vmvx.ForNext, Args: []uint32{j, g.count, one}, Target: body})
		em.e.Code[init].Target = em.here()
		em.freeReg(j)
		em.freeReg(one)
		em.freeReg(y)
	}
	em.freeReg(idx)
	// The next exchange may overwrite the array only once every thread
	// has read its subgroup's values.
	em.emit(vmvx.Instr{Op: vmvx.Barrier})
	em.release(em.live.start[op])
	return nil
}
