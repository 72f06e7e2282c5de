package spirv

import "github.com/gree-ml/gree/go/compiler/kir"

// Atomic opcodes (SPIR-V 1.0).
const (
	opAtomicAnd = 240
	opAtomicOr  = 241
)

// semRelaxed is the memory semantics of an atomic that orders no other
// access.
const semRelaxed = 0

// atomicRMW translates AtomicRMW: OpAtomicAnd or OpAtomicOr on the
// binding's i32 element, Device scope (threads of every workgroup may
// update the word), relaxed (the atomic only has to be indivisible; the
// kernel's barriers order memory); a failed bounds check does nothing.
func (e *emitter) atomicRMW(op *kir.Op) {
	a := access{index: op.Binding, elem: kir.I32, off: op.Args[0], stride: -1, lanes: 1}
	code := uint32(opAtomicAnd)
	if kir.AtomicKind(op.Imm) == kir.AtomicOr {
		code = opAtomicOr
	}
	e.guarded(a, nil, nil, func() []uint32 {
		p := e.pointers(a)[0]
		e.val(e.u32(), code, p, e.cU32(scopeDevice), e.cU32(semRelaxed), e.lane(op.Args[1], 0))
		return nil
	})
}
