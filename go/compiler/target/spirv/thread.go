package spirv

import (
	"github.com/gree-ml/gree/go/compiler/kir"
)

// Interface queries, barriers and subgroup operations.

// builtin returns the Input variable decorated with BuiltIn b: a uvec3
// when vec, else a u32.
func (e *emitter) builtin(b uint32, vec bool) uint32 {
	if v, ok := e.builtins[b]; ok {
		return v
	}
	t := e.u32()
	if vec {
		t = e.m.tVec(t, 3)
	}
	v := e.m.variable(e.m.tPtr(scInput, t), scInput)
	e.m.decorate(v, decBuiltIn, b)
	e.builtins[b] = v
	return v
}

// builtinU32 loads component d of built-in b (d < 0: a scalar built-in).
func (e *emitter) builtinU32(b uint32, d int) uint32 {
	u32 := e.u32()
	if d < 0 {
		return e.val(u32, opLoad, e.builtin(b, false))
	}
	v := e.val(e.m.tVec(u32, 3), opLoad, e.builtin(b, true))
	return e.val(u32, opCompositeExtract, v, uint32(d))
}

// linearID is the invocation's index in its workgroup (x fastest).
func (e *emitter) linearID() uint32 { return e.builtinU32(builtinLocalInvocationIndex, -1) }

func (e *emitter) threads() int {
	ws := e.k.WorkgroupSize
	return ws[0] * ws[1] * ws[2]
}

// query translates PushConstant, WorkgroupID, WorkgroupCount, ThreadID,
// WorkgroupSize, SubgroupSize and LaneID (all i64).
func (e *emitter) query(op *kir.Op) uint32 {
	narrow := e.k.Types[op.Results[0]].Elem == kir.I32
	wide := func(x uint32) uint32 {
		if narrow {
			return x
		}
		return e.val(e.u64(), opUConvert, x)
	}
	d := int(op.Imm)
	switch op.Kind {
	case kir.PushConstant:
		return e.pushConstant(d, narrow)
	case kir.WorkgroupID:
		return wide(e.builtinU32(builtinWorkgroupID, d))
	case kir.WorkgroupCount:
		return wide(e.builtinU32(builtinNumWorkgroups, d))
	case kir.ThreadID:
		return wide(e.builtinU32(builtinLocalInvocationID, d))
	case kir.WorkgroupSize:
		return wide(e.cU32(uint32(e.k.WorkgroupSize[d])))
	case kir.SubgroupSize:
		return wide(e.subgroupSize())
	}
	e.need("GroupNonUniform", "the lane id ("+e.where()+")")
	return wide(e.builtinU32(builtinSubgroupLocalInvocationID, -1))
}

// subgroupSize is kir's subgroup size: min(size, threads in the
// workgroup), a constant when the size is known.
func (e *emitter) subgroupSize() uint32 {
	if e.sg > 0 {
		return e.cU32(uint32(min(e.sg, e.threads())))
	}
	e.need("GroupNonUniform", "the subgroup size ("+e.where()+")")
	sg := e.builtinU32(builtinSubgroupSize, -1)
	return e.val(e.u32(), opSelect, e.val(e.bool(), opULessThan, sg, e.cU32(uint32(e.threads()))), sg, e.cU32(uint32(e.threads())))
}

// activeLanes is the number of threads in this invocation's subgroup:
// min(size, threads − first thread of the subgroup); the last subgroup
// of a workgroup may be partial.
func (e *emitter) activeLanes() uint32 {
	u32 := e.u32()
	sg := e.subgroupSize()
	l := e.linearID()
	first := e.val(u32, opIMul, e.val(u32, opUDiv, l, sg), sg)
	left := e.val(u32, opISub, e.cU32(uint32(e.threads())), first)
	return e.val(u32, opSelect, e.val(e.bool(), opULessThan, left, sg), left, sg)
}

// barrier emits a workgroup barrier (execution and workgroup memory;
// storage-buffer memory too when bindings is set).
func (e *emitter) barrier(bindings bool) {
	w := e.cU32(scopeWorkgroup)
	sem := uint32(semAcquireRelease | semWorkgroupMemory)
	if bindings {
		sem |= semUniformMemory
	}
	e.emit(opControlBarrier, w, w, e.cU32(sem))
}

// shuffle reads x (a register value of s) from lane id of the subgroup.
// Values travel as 32-bit words, so that no subgroup operation needs
// 8-, 16- or 64-bit types.
func (e *emitter) shuffle(s kir.Scalar, x, id uint32) uint32 {
	e.need("GroupNonUniform", "a subgroup operation ("+e.where()+")")
	e.need("GroupNonUniformShuffle", "a subgroup operation ("+e.where()+")")
	u32, scope := e.u32(), e.cU32(scopeSubgroup)
	sh := func(t, w uint32) uint32 { return e.val(t, opGroupNonUniformShuffle, scope, w, id) }
	switch s {
	case kir.I1:
		w := sh(u32, e.val(u32, opSelect, x, e.cU32(1), e.cU32(0)))
		return e.val(e.bool(), opINotEqual, w, e.cU32(0))
	case kir.I8, kir.I16:
		t := e.reg(s)
		return e.val(t, opUConvert, sh(u32, e.val(u32, opUConvert, x)))
	case kir.F16:
		f32 := e.f32()
		return e.val(e.reg(s), opFConvert, sh(f32, e.val(f32, opFConvert, x)))
	case kir.I64, kir.F64:
		v2 := e.m.tVec(u32, 2)
		w := e.val(v2, opBitcast, x)
		lo := sh(u32, e.val(u32, opCompositeExtract, w, 0))
		hi := sh(u32, e.val(u32, opCompositeExtract, w, 1))
		return e.val(e.reg(s), opBitcast, e.val(v2, 80 /* OpCompositeConstruct */, lo, hi))
	}
	return sh(e.reg(s), x)
}

// subgroupShuffle translates SubgroupShuffle: the value of the lane (i
// mod the subgroup's thread count).
func (e *emitter) subgroupShuffle(op *kir.Op, rt kir.Type) {
	var lane uint32
	if e.k.Types[op.Args[1]].Elem == kir.I32 {
		lane = e.val(e.u32(), opSMod, e.lane(op.Args[1], 0), e.activeLanes())
	} else {
		u64 := e.u64()
		n := e.val(u64, opUConvert, e.activeLanes())
		lane = e.val(e.u32(), opUConvert, e.val(u64, opSMod, e.lane(op.Args[1], 0), n))
	}
	e.lanewise(op, rt, func(i int) uint32 { return e.shuffle(rt.Elem, e.lane(op.Args[0], i), lane) })
}

// subgroupReduce combines x over the subgroup's lanes in lane order, lane
// 0 first, as the interpreter does (a loop of shuffles).
func (e *emitter) subgroupReduce(r kir.ReduceKind, s kir.Scalar, x uint32) uint32 {
	u32, b := e.u32(), e.bool()
	n := e.activeLanes()
	first := e.shuffle(s, x, e.cU32(0))
	out := e.loop([]uint32{u32, e.reg(s)}, []uint32{e.cU32(1), first}, func(c []uint32) uint32 {
		return e.val(b, opULessThan, c[0], n)
	}, func(c []uint32) []uint32 {
		y := e.shuffle(s, x, c[0])
		return []uint32{e.val(u32, opIAdd, c[0], e.cU32(1)), e.combine(r, s, c[1], y)}
	})
	return out[1]
}
