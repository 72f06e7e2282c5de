package spirv

import (
	"fmt"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/schemas/llvmcpu"
)

// declareBindings declares every binding as a storage buffer (descriptor
// set 0, binding i: a Block struct holding a runtime array of the element
// type) and every shared allocation as a Workgroup array.
func (e *emitter) declareBindings() {
	for i, b := range e.k.Bindings {
		elem := e.storage(b.Elem, fmt.Sprintf("binding %d of %s", i, b.Elem))
		v := e.m.variable(e.m.tPtr(scStorageBuffer, e.m.tBlock(elem, -1, b.Elem.ByteSize())), scStorageBuffer)
		e.m.decorate(v, decDescriptorSet, 0)
		e.m.decorate(v, decBinding, uint32(i))
		if b.Access == kir.Read {
			e.m.decorate(v, decNonWritable)
		}
		e.bindings = append(e.bindings, v)
	}
	for i, s := range e.k.Shared {
		n := max(s.Count, 1)
		if n > 1<<30 {
			e.failf(3, "shared allocation %d has %d elements", i, s.Count)
		}
		t := e.reg(s.Elem)
		v := e.m.variable(e.m.tPtr(scWorkgroup, e.m.tArray(t, int(n), 0)), scWorkgroup)
		e.shared = append(e.shared, v)
	}
}

// pushConstant loads push constant i: an i64, or its low word (i32).
func (e *emitter) pushConstant(i int, narrow bool) uint32 {
	u32 := e.u32()
	if e.push == 0 {
		blk := e.m.tBlock(u32, 2*e.k.NumPushConstants, 4)
		e.push = e.m.variable(e.m.tPtr(scPushConstant, blk), scPushConstant)
	}
	word := func(j int) uint32 {
		p := e.val(e.m.tPtr(scPushConstant, u32), opAccessChain, e.push, e.cU32(0), e.cU32(uint32(j)))
		return e.val(u32, opLoad, p)
	}
	if narrow {
		return word(2 * i)
	}
	v2 := e.m.tVec(u32, 2)
	return e.val(e.u64(), opBitcast, e.val(v2, opCompositeConstruct, word(2*i), word(2*i+1)))
}

// pushWord loads word j of the push constants.
func (e *emitter) pushWord(j int) uint32 {
	u32 := e.u32()
	p := e.val(e.m.tPtr(scPushConstant, u32), opAccessChain, e.push, e.cU32(0), e.cU32(uint32(j)))
	return e.val(u32, opLoad, p)
}

// narrowIndex reports whether v, an index operand, is i32.
func (e *emitter) narrowIndex(v kir.Value) bool { return e.k.Types[v].Elem == kir.I32 }

// idxT returns the register type of index values like v, and a constant maker.
func (e *emitter) idxT(v kir.Value) (uint32, func(uint64) uint32) {
	if e.narrowIndex(v) {
		return e.u32(), func(x uint64) uint32 { return e.cU32(uint32(x)) }
	}
	return e.u64(), e.cU64
}

// reportFn returns the function that records a failed check: it stores
// the low word of the error code into the status buffer's first word by
// an atomic compare-exchange from 0 and, when it wins, the high word
// (the check number) into the second.
func (e *emitter) reportFn() uint32 {
	if e.status == 0 {
		u32 := e.u32()
		e.status = e.m.variable(e.m.tPtr(scStorageBuffer, e.m.tBlock(u32, -1, 4)), scStorageBuffer)
		e.m.decorate(e.status, decDescriptorSet, 0)
		e.m.decorate(e.status, decBinding, uint32(len(e.k.Bindings)))
	}
	u32 := e.u32()
	return e.helper("report", e.m.tVoid(), []uint32{u32, u32}, func(a []uint32) uint32 {
		pt := e.m.tPtr(scStorageBuffer, u32)
		zero := e.cU32(0)
		p := e.val(pt, opAccessChain, e.status, zero, zero)
		old := e.val(u32, opAtomicCompareExchange, p, e.cU32(scopeDevice), zero, zero, a[0], zero)
		won := e.val(e.bool(), opIEqual, old, zero)
		e.ifElse(won, nil, func() []uint32 {
			q := e.val(pt, opAccessChain, e.status, zero, e.cU32(1))
			e.emit(opStore, q, a[1])
			return nil
		}, nil)
		return 0
	})
}

// fail records a failed run-time check of kind on binding (or shared
// allocation) b; checks are numbered in program order from 1.
func (e *emitter) fail(kind llvmcpu.ErrorKind, b int) {
	e.checkNo++
	code := uint64(llvmcpu.MakeError(kind, b, e.checkNo))
	fn := e.reportFn()
	e.call(e.m.tVoid(), fn, e.cU32(uint32(code)), e.cU32(uint32(code>>32)))
}

// constIndex returns v's value when a ConstInt defines it.
func (e *emitter) constIndex(v kir.Value) (int64, bool) {
	if d := e.defs[v]; d != nil && d.Kind == kir.ConstInt {
		return d.Imm, true
	}
	return 0, false
}

// access describes the memory a Load/Store op addresses.
type access struct {
	shared bool
	index  int // binding or allocation
	elem   kir.Scalar
	off    kir.Value
	stride kir.Value // -1 when contiguous
	lanes  int
}

func (e *emitter) accessOf(op *kir.Op, lanes int) access {
	a := access{index: op.Binding, off: op.Args[0], stride: -1, lanes: lanes}
	switch op.Kind {
	case kir.LoadShared, kir.StoreShared:
		a.shared, a.elem = true, e.k.Shared[op.Binding].Elem
	default:
		a.elem = e.k.Bindings[op.Binding].Elem
	}
	if op.Kind == kir.LoadStrided || op.Kind == kir.StoreStrided {
		a.stride = op.Args[1]
	}
	return a
}

// staticInBounds reports whether a shared access is in bounds by its
// constant operands.
func (e *emitter) staticInBounds(a access) bool {
	if !a.shared {
		return false
	}
	n := e.k.Shared[a.index].Count
	off, ok := e.constIndex(a.off)
	if !ok || off < 0 || off >= n {
		return false
	}
	s := int64(1)
	if a.stride >= 0 {
		if s, ok = e.constIndex(a.stride); !ok || s < -(1<<20) || s > 1<<20 {
			return false
		}
	}
	last := off + int64(a.lanes-1)*s
	return last >= 0 && last < n
}

// inBounds returns whether a's lanes lie in its buffer, as the
// interpreter checks it: the offset and the last lane's offset are in
// range (the stride's magnitude below 2^40, beyond any buffer).
func (e *emitter) inBounds(a access) uint32 {
	u64, cU64 := e.idxT(a.off)
	b := e.bool()
	narrow := e.narrowIndex(a.off)
	var count uint32
	if a.shared {
		count = cU64(uint64(e.k.Shared[a.index].Count))
	} else {
		count = e.val(e.u32(), opArrayLength, e.bindings[a.index], 0)
		if !narrow {
			count = e.val(u64, opUConvert, count)
		}
	}
	lim, lim2 := uint64(1<<40), uint64(1<<41)
	if narrow {
		lim, lim2 = 1<<20, 1<<21
	}
	off := e.lane(a.off, 0)
	ok := e.val(b, opULessThan, off, count)
	if a.lanes > 1 {
		var last uint32
		if a.stride < 0 {
			last = e.val(u64, opIAdd, off, cU64(uint64(a.lanes-1)))
		} else {
			s := e.lane(a.stride, 0)
			small := e.val(b, opULessThan, e.val(u64, opIAdd, s, cU64(lim)), cU64(lim2))
			ok = e.val(b, opLogicalAnd, ok, small)
			last = e.val(u64, opIAdd, off, e.val(u64, opIMul, s, cU64(uint64(a.lanes-1))))
		}
		ok = e.val(b, opLogicalAnd, ok, e.val(b, opULessThan, last, count))
	}
	return ok
}

// guarded emits body when a is in bounds and otherwise records the
// failure; it returns body's values, or zeros of types ts on failure.
func (e *emitter) guarded(a access, ts []uint32, zeros []uint32, body func() []uint32) []uint32 {
	if e.staticInBounds(a) {
		return body()
	}
	kind := llvmcpu.ErrOutOfBounds
	if a.shared {
		kind = llvmcpu.ErrShared
	}
	return e.ifElse(e.inBounds(a), ts, body, func() []uint32 {
		e.fail(kind, a.index)
		return zeros
	})
}

// pointers returns the pointers to a's lanes (after the bounds check).
func (e *emitter) pointers(a access) []uint32 {
	u32 := e.u32()
	u64, cU64 := e.idxT(a.off)
	off := e.lane(a.off, 0)
	idx := make([]uint32, a.lanes)
	base := off
	if !e.narrowIndex(a.off) {
		base = e.val(u32, opUConvert, off)
	}
	for i := range idx {
		switch {
		case i == 0:
			idx[i] = base
		case a.stride < 0:
			idx[i] = e.val(u32, opIAdd, base, e.cU32(uint32(i)))
		default:
			s := e.lane(a.stride, 0)
			o := e.val(u64, opIAdd, off, e.val(u64, opIMul, s, cU64(uint64(i))))
			if e.narrowIndex(a.off) {
				idx[i] = o
			} else {
				idx[i] = e.val(u32, opUConvert, o)
			}
		}
	}
	ps := make([]uint32, a.lanes)
	for i, x := range idx {
		if a.shared {
			ps[i] = e.val(e.m.tPtr(scWorkgroup, e.reg(a.elem)), opAccessChain, e.shared[a.index], x)
		} else {
			pt := e.m.tPtr(scStorageBuffer, e.storage(a.elem, ""))
			ps[i] = e.val(pt, opAccessChain, e.bindings[a.index], e.cU32(0), x)
		}
	}
	return ps
}

// load translates Load, LoadStrided and LoadShared; a failed bounds check
// loads zeros.
func (e *emitter) load(op *kir.Op, rt kir.Type) {
	a := e.accessOf(op, rt.Width())
	t := e.reg(rt.Elem)
	ts := make([]uint32, a.lanes)
	zeros := make([]uint32, a.lanes)
	for i := range ts {
		ts[i], zeros[i] = t, e.zero(rt.Elem)
	}
	e.set(op.Results[0], e.guarded(a, ts, zeros, func() []uint32 {
		out := make([]uint32, a.lanes)
		for i, p := range e.pointers(a) {
			if a.shared {
				out[i] = e.val(t, opLoad, p)
			} else {
				out[i] = e.fromStorage(a.elem, e.val(e.storage(a.elem, ""), opLoad, p))
			}
		}
		return out
	}))
}

// store translates Store, StoreStrided and StoreShared; a failed bounds
// check stores nothing.
func (e *emitter) store(op *kir.Op) {
	val := op.Args[len(op.Args)-1]
	a := e.accessOf(op, e.k.Types[val].Width())
	e.guarded(a, nil, nil, func() []uint32 {
		for i, p := range e.pointers(a) {
			x := e.lane(val, i)
			if !a.shared {
				x = e.toStorage(a.elem, x)
			}
			e.emit(opStore, p, x)
		}
		return nil
	})
}

// fromStorage converts a loaded storage element to its register form.
func (e *emitter) fromStorage(s kir.Scalar, x uint32) uint32 {
	u32 := e.u32()
	switch s {
	case kir.I1:
		w := e.val(u32, opUConvert, x)
		return e.val(e.bool(), opINotEqual, e.val(u32, opBitwiseAnd, w, e.cU32(1)), e.cU32(0))
	case kir.BF16:
		w := e.val(u32, opUConvert, x)
		return e.val(e.f32(), opBitcast, e.val(u32, opShiftLeftLogical, w, e.cU32(16)))
	}
	return x
}

// toStorage converts a register value to its storage form.
func (e *emitter) toStorage(s kir.Scalar, x uint32) uint32 {
	u32 := e.u32()
	switch s {
	case kir.I1:
		return e.val(e.storage(s, ""), opUConvert, e.val(u32, opSelect, x, e.cU32(1), e.cU32(0)))
	case kir.BF16:
		w := e.val(u32, opShiftRightLogical, e.val(u32, opBitcast, x), e.cU32(16))
		return e.val(e.storage(s, ""), opUConvert, w)
	}
	return x
}

// zeroShared zeroes the shared allocations that are not Scratch,
// cooperatively (thread t stores elements t, t+threads, …), then waits
// at a barrier.
func (e *emitter) zeroShared() {
	any := false
	threads := uint32(e.k.WorkgroupSize[0] * e.k.WorkgroupSize[1] * e.k.WorkgroupSize[2])
	for i, s := range e.k.Shared {
		if s.Scratch || s.Count == 0 {
			continue
		}
		any = true
		u32, b := e.u32(), e.bool()
		t := e.reg(s.Elem)
		start := e.linearID()
		e.loop([]uint32{u32}, []uint32{start}, func(c []uint32) uint32 {
			return e.val(b, opULessThan, c[0], e.cU32(uint32(s.Count)))
		}, func(c []uint32) []uint32 {
			p := e.val(e.m.tPtr(scWorkgroup, t), opAccessChain, e.shared[i], c[0])
			e.emit(opStore, p, e.zero(s.Elem))
			return []uint32{e.val(u32, opIAdd, c[0], e.cU32(threads))}
		})
	}
	if any && threads > 1 {
		e.barrier(false)
	}
}
