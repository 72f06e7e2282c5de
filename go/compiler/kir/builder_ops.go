package kir

// Convenience builders for ops with immediates or several operands.

// Query emits an interface query — PushConstant, WorkgroupID,
// WorkgroupCount, ThreadID or WorkgroupSize — with immediate i (the
// push-constant index or the dimension); the result is an index.
func (b *Builder) Query(kind Kind, i int) Value { return b.EmitImm(kind, S(Index), int64(i)) }

// Cmp emits a CmpI or CmpF with predicate p; the result is i1 with the
// operands' lanes.
func (b *Builder) Cmp(kind Kind, p Pred, x, y Value) Value {
	return b.EmitImm(kind, V(I1, b.K.Type(x).Width()), int64(p), x, y)
}

// Select emits cond ? x : y.
func (b *Builder) Select(cond, x, y Value) Value { return b.Emit(Select, b.K.Type(x), cond, x, y) }

// Reduce emits a reduction of vector x to a scalar.
func (b *Builder) Reduce(r ReduceKind, x Value) Value {
	return b.EmitImm(Reduce, S(b.K.Type(x).Elem), int64(r), x)
}

// LoadStrided emits a strided load of type t: lane i reads off+i*stride.
func (b *Builder) LoadStrided(binding int, t Type, off, stride Value) Value {
	v := b.NewValue(t)
	b.Append(&Op{Kind: LoadStrided, Results: []Value{v}, Args: []Value{off, stride}, Binding: binding})
	return v
}

// StoreStrided emits a strided store of val.
func (b *Builder) StoreStrided(binding int, off, stride, val Value) {
	b.Append(&Op{Kind: StoreStrided, Args: []Value{off, stride, val}, Binding: binding})
}

// LoadShared emits a load of type t from shared allocation s.
func (b *Builder) LoadShared(s int, t Type, off Value) Value {
	v := b.NewValue(t)
	b.Append(&Op{Kind: LoadShared, Results: []Value{v}, Args: []Value{off}, Binding: s})
	return v
}

// StoreShared emits a store of val to shared allocation s.
func (b *Builder) StoreShared(s int, off, val Value) {
	b.Append(&Op{Kind: StoreShared, Args: []Value{off, val}, Binding: s})
}

// AtomicRMW emits an atomic read-modify-write of kind a combining the i32
// value val into binding's element at off.
func (b *Builder) AtomicRMW(binding int, a AtomicKind, off, val Value) {
	b.Append(&Op{Kind: AtomicRMW, Args: []Value{off, val}, Binding: binding, Imm: int64(a)})
}

// FetchAdd emits an atomic add of the i32 val to binding's element at
// off and returns the element's prior value.
func (b *Builder) FetchAdd(binding int, off, val Value) Value {
	v := b.NewValue(S(I32))
	b.Append(&Op{Kind: FetchAdd, Results: []Value{v}, Args: []Value{off, val}, Binding: binding})
	return v
}

// SpinUntil emits a wait until binding's i32 element at off is at least
// val.
func (b *Builder) SpinUntil(binding int, off, val Value) {
	b.Append(&Op{Kind: SpinUntil, Args: []Value{off, val}, Binding: binding})
}

// Barrier emits a workgroup barrier.
func (b *Builder) Barrier() { b.Append(&Op{Kind: Barrier}) }

// BarrierBindings emits a workgroup barrier that also orders binding
// accesses (Barrier with Imm BarrierBindings).
func (b *Builder) BarrierBindings() { b.Append(&Op{Kind: Barrier, Imm: BarrierBindings}) }

// Contract flags (Op.Imm of a Contract).
const (
	// ContractUnsigned zero-extends integer operands.
	ContractUnsigned int64 = 1
	// ContractZero computes C = A·B: accumulators start at +0 and C's
	// prior contents are not read.
	ContractZero int64 = 2
)

// Contract emits C += A·B over bindings a, b, c; args are aOff, aRowStride,
// aColStride, bOff, bRowStride, bColStride, cOff, cRowStride, cColStride,
// M, N, K. flags bit 0 (ContractUnsigned) zero-extends integer operands;
// bit 1 (ContractZero) starts C at zero.
func (b *Builder) Contract(a, bb, c int, args [12]Value, flags int64) {
	b.ContractWith(a, bb, c, args, flags, NoContractEpilogue)
}

// DWConvArgs is the number of operands of a DWConv without a fused
// epilogue.
const DWConvArgs = 26

// DWConv epilogue flags (Op.Imm of a DWConv).
const (
	// DWConvBias adds a per-channel bias.
	DWConvBias int64 = 1
	// DWConvMax takes maximumf with a scalar.
	DWConvMax int64 = 2
	// DWConvMin takes minimumf with a scalar.
	DWConvMin int64 = 4
)

// DWConvEpilogue is a DWConv's fused epilogue: a per-channel bias at
// BiasOff + c·BiasStride of binding Bias (when Bias ≥ 0), then maximumf
// with Lo and minimumf with Hi where they are set (≥ 0).
type DWConvEpilogue struct {
	Bias                int
	BiasOff, BiasStride Value
	Lo, Hi              Value
}

// NoDWConvEpilogue is a DWConv without a fused epilogue.
var NoDWConvEpilogue = DWConvEpilogue{Bias: -1, BiasOff: -1, BiasStride: -1, Lo: -1, Hi: -1}

// DWConv emits a depthwise 2-D convolution from binding in with weights w
// into binding out; args are in the order ops.go documents, and e is the
// fused epilogue.
func (b *Builder) DWConv(in, w, out int, args [DWConvArgs]Value, e DWConvEpilogue) {
	op := &Op{Kind: DWConv, Args: append([]Value(nil), args[:]...), Bindings: [3]int{in, w, out}, Binding: -1}
	if e.Bias >= 0 {
		op.Imm |= DWConvBias
		op.Binding = e.Bias
		op.Args = append(op.Args, e.BiasOff, e.BiasStride)
	}
	if e.Lo >= 0 {
		op.Imm |= DWConvMax
		op.Args = append(op.Args, e.Lo)
	}
	if e.Hi >= 0 {
		op.Imm |= DWConvMin
		op.Args = append(op.Args, e.Hi)
	}
	b.Append(op)
}

// DWConvOperands returns the number of operands of a DWConv with flags.
func DWConvOperands(flags int64) int {
	n := DWConvArgs
	if flags&DWConvBias != 0 {
		n += 2
	}
	if flags&DWConvMax != 0 {
		n++
	}
	if flags&DWConvMin != 0 {
		n++
	}
	return n
}
