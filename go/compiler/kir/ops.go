package kir

// Kind is an operation kind.
type Kind uint16

// Operation kinds. The comment after each gives its operands (Args), its
// immediates and its result; "x" means same type as the first operand.
// Elementwise ops apply lane-wise to vectors.
const (
	BadKind Kind = iota

	// Constants and interface.
	ConstInt       // Imm → Type (splat for vectors)
	ConstFloat     // F → Type (splat for vectors)
	PushConstant   // Imm = push-constant index → i64
	WorkgroupID    // Imm = dimension 0..2 → i64
	WorkgroupCount // Imm = dimension → i64
	ThreadID       // Imm = dimension → i64 (thread level)
	WorkgroupSize  // Imm = dimension → i64 (thread level)
	SubgroupSize   // → i64 (thread level)
	LaneID         // → i64: the invocation's index in its subgroup (thread level)

	// Integer and float binary arithmetic: (a, b) → x.
	Add
	Sub
	Mul
	DivS // signed integer division, truncating
	DivU
	RemS
	RemU
	FloorDivS
	CeilDivS
	CeilDivU
	MinS
	MinU
	MaxS
	MaxU
	And
	Or
	Xor
	Shl
	ShrS
	ShrU
	DivF
	RemF     // fmod semantics (sign of the dividend)
	MinF     // arith.minimumf: NaN if either is NaN, -0 < +0
	MaxF     // arith.maximumf
	MinNumF  // arith.minnumf: the non-NaN operand
	MaxNumF  // arith.maxnumf
	PowF     // math.powf
	Atan2    // math.atan2(a, b)
	CopySign // math.copysign

	// Unary: (a) → x.
	NegF
	AbsF
	AbsI
	Sqrt
	Rsqrt
	Cbrt
	Exp
	Exp2
	Expm1
	Log
	Log2
	Log10
	Log1p
	Sin
	Cos
	Tan
	Sinh
	Cosh
	Tanh
	Asin
	Acos
	Atan
	Asinh
	Acosh
	Atanh
	Erf
	Erfc
	Floor
	Ceil
	Round     // half away from zero
	RoundEven // half to even
	Trunc     // float truncation toward zero
	CtLz      // count leading zeros
	CtTz      // count trailing zeros
	CtPop     // population count
	IsNaN     // → i1 (lanes as the operand)
	IsInf     // → i1
	IsFinite  // → i1

	// Ternary.
	FMA    // (a, b, c) → a*b+c, fused
	Select // (cond i1, a, b) → type of a

	// Comparison: (a, b), Imm = Pred → i1 (lanes as the operands).
	CmpI
	CmpF

	// Conversions: (a) → Type.
	ExtS
	ExtU
	TruncI
	SIToFP
	UIToFP
	FPToSI // saturating is not required: out-of-range is undefined, as in arith
	FPToUI
	FPExt
	FPTrunc // round to nearest even
	Bitcast // same bit width

	// Vectors.
	Broadcast // (scalar) → vector Type
	Extract   // (vector), Imm = lane → scalar
	Insert    // (vector, scalar), Imm = lane → vector
	LaneIota  // → vector<N x i64> of 0..N-1
	Reduce    // (vector), Imm = ReduceKind → scalar

	// Memory. Offsets are in elements of the binding's element type; a
	// vector load/store touches Lanes consecutive elements. An access
	// outside the buffer is an error of the dispatch naming the binding
	// (see the package documentation), never silent.
	Load         // Binding, (offset) → Type
	Store        // Binding, (offset, value)
	LoadStrided  // Binding, (offset, stride) → vector Type; lane i reads offset+i*stride
	StoreStrided // Binding, (offset, stride, value)
	LoadShared   // Binding = shared allocation index, (offset) → Type (thread level)
	StoreShared  // Binding = shared allocation index, (offset, value) (thread level)
	// AtomicRMW: Binding, (offset, value), Imm = AtomicKind: replaces the
	// binding element at offset by its combination with value, atomically
	// with respect to every other AtomicRMW of the dispatch on that
	// element; it orders no other memory access. Defined on scalar i32
	// elements of a binding the kernel writes (Write access suffices:
	// the bits the combination keeps are not the kernel's to read); no
	// result. GPU legalizations store the narrow elements of a packed
	// binding with it (package gpu's NarrowTypes), so that threads
	// writing different bytes of one word do not race.
	AtomicRMW
	// FetchAdd: Binding, (offset, value) → the binding's i32 element at
	// offset before value was added to it, atomically with respect to
	// every other FetchAdd and SpinUntil of the dispatch on that element
	// (sequentially consistent: the workgroup's memory accesses before it
	// happen before those of a workgroup whose FetchAdd or SpinUntil
	// reads what it wrote, after those). Scalar i32 elements of a binding
	// the kernel reads and writes. Workgroups of a CPU kernel hand out
	// work with it (see SpinUntil).
	FetchAdd
	// SpinUntil: Binding, (offset, value): waits until the binding's i32
	// element at offset, read atomically, is at least value (signed),
	// then acquires: the accesses after it see every access made before
	// the FetchAdds that brought the element there. Workgroups of a
	// dispatch need not run concurrently (a CPU runs them one after
	// another when its threads are busy), so a kernel waits only for
	// work another workgroup has already taken with a FetchAdd and runs
	// to its end without waiting on work not yet taken; otherwise the
	// wait never ends. CPU targets only.
	SpinUntil
	// Barrier: every thread of the workgroup waits until all have reached
	// it; shared-memory accesses before it happen before those after it
	// in every thread of the workgroup (acquire-release on workgroup
	// memory, as SPIR-V's OpControlBarrier(Workgroup, Workgroup,
	// AcquireRelease|WorkgroupMemory)); binding (global) memory is not
	// ordered, unless Imm is BarrierBindings: then binding accesses of the
	// workgroup's threads are ordered the same way (UniformMemory too).
	// Only in uniform control flow (see the package documentation).
	// (thread level)
	Barrier
	// SubgroupReduce: (scalar), Imm = ReduceKind → scalar, the values of
	// the subgroup's threads combined in lane order, lane 0 first; every
	// thread of the subgroup gets it. Only in uniform control flow; the
	// result is not uniform. (thread level)
	SubgroupReduce
	// SubgroupShuffle: (value, lane i64) → the value of the subgroup's
	// thread lane mod n (n the threads in this subgroup, the last one
	// possibly partial; a negative lane counts from the end). Only in
	// uniform control flow; the result is not uniform. (thread level)
	SubgroupShuffle

	// Tile level: only in kernels whose workgroup is one thread (Verify
	// rejects them in others, where every thread would compute the whole
	// tile).
	//
	// Contract: C += A·B over an M×N×K tile. Bindings holds the binding
	// ordinals of A, B and C; Args are, in order, aOff, aRowStride,
	// aColStride, bOff, bRowStride, bColStride, cOff, cRowStride,
	// cColStride, M, N, K (all i64, in elements). A(i,k) is at
	// aOff+i*aRowStride+k*aColStride, and so on. Accumulation is in C's
	// element type; integer operands are sign-extended (Imm bit 0 set:
	// zero-extended). Imm bit 1 (ContractZero) makes it C = A·B: the
	// accumulators start at +0 instead of C's prior contents, which are
	// not read, and every element of the M×N tile is written, zeros when
	// K ≤ 0. Further flags fuse an f32 epilogue (bias, residual, clamp;
	// see ContractBias), whose operands follow the twelve.
	Contract
	// DWConv: a 2-D convolution over a tile of C output channels (f32):
	// depthwise, or summing CI input planes (a dense convolution with few
	// input channels, as a network's first layer). Bindings holds the
	// input, weight and output binding ordinals; Args are, in order (all
	// i64, in elements): inOff, inChanStride, inRowStride, wOff,
	// wChanStride, wRowStride, wColStride, outOff, outChanStride,
	// outRowStride, C, H, W, OH, OW, KH, KW, SH, SW, DH, DW, PH, PW, CI,
	// inSumStride, wSumStride. Output channel c sums CI input planes:
	// input element (c, ci, r, q) is at inOff + c·inChanStride +
	// ci·inSumStride + r·inRowStride + q (columns contiguous; depthwise:
	// CI = 1; dense: inChanStride = 0), weight (c, ci, i, j) at wOff +
	// c·wChanStride + ci·wSumStride + i·wRowStride + j·wColStride, output
	// (c, y, x) at outOff + c·outChanStride + y·outRowStride + x. For
	// c < C, y < OH, x < OW it writes
	//   out(c, y, x) = Σ_{ci<CI, i<KH, j<KW} in(c, ci, y·SH + i·DH − PH, x·SW + j·DW − PW) · w(c, ci, i, j)
	// where an input position outside 0 ≤ r < H, 0 ≤ q < W reads +0 (a
	// zero pad). The sums start at +0; the output's prior contents are
	// not read. The whole C×CI×H×W input (when H, W > 0), C×CI×KH×KW
	// weight (when KH, KW > 0) and C×OH×OW output tiles must lie in their
	// bindings. Imm flags fuse an epilogue, applied in this order, with
	// operands after the 26 above: DWConvBias adds bias(c) (Binding holds
	// its f32 binding; operands biasOff, biasStride: bias(c) is at biasOff
	// + c·biasStride), DWConvMax takes maximumf with an f32 operand lo,
	// DWConvMin minimumf with an f32 operand hi (arith's semantics: NaN
	// propagates, −0 < +0), each rounded.
	DWConv

	// Structured control flow.
	//
	// For: Args = (lo, hi, step, inits...); Regions[0] has block
	// arguments (iv, iters...) and ends in Yield(iters...); Results get
	// the final iteration values. Steps are positive.
	For
	// If: Args = (cond); Regions[0] is then, Regions[1] else (may be
	// empty when there are no results); both end in Yield.
	If
	Yield
)

// BarrierBindings is the Imm of a Barrier that also orders the binding
// (global memory) accesses of the workgroup's threads: what one thread
// stored before it, the others may read after it.
const BarrierBindings = 1

// AtomicKind is the combining function of an AtomicRMW.
type AtomicKind uint8

// Atomic read-modify-write kinds.
const (
	AtomicAnd AtomicKind = iota // element & value
	AtomicOr                    // element | value
)

// Pred is a comparison predicate (arith's cmpi/cmpf predicates).
type Pred uint8

// Integer predicates for CmpI.
const (
	PredEQ Pred = iota
	PredNE
	PredSLT
	PredSLE
	PredSGT
	PredSGE
	PredULT
	PredULE
	PredUGT
	PredUGE
)

// Float predicates for CmpF (values as in arith.cmpf).
const (
	FPredFalse Pred = iota
	FPredOEQ
	FPredOGT
	FPredOGE
	FPredOLT
	FPredOLE
	FPredONE
	FPredORD
	FPredUEQ
	FPredUGT
	FPredUGE
	FPredULT
	FPredULE
	FPredUNE
	FPredUNO
	FPredTrue
)

// ReduceKind is the combining function of Reduce and SubgroupReduce.
type ReduceKind uint8

// Reduction kinds.
const (
	ReduceAdd ReduceKind = iota
	ReduceMul
	ReduceMinS
	ReduceMaxS
	ReduceMinU
	ReduceMaxU
	ReduceMinF // NaN-propagating
	ReduceMaxF
	ReduceAnd
	ReduceOr
	ReduceXor
)

// Value is an SSA value number, an index into Kernel.Types.
type Value int32

// Op is one operation.
type Op struct {
	Kind     Kind
	Results  []Value
	Args     []Value
	Imm      int64
	F        float64
	Binding  int    // Load/Store/…: binding ordinal; *Shared: allocation
	Bindings [3]int // Contract: A, B, C
	Extra    int    // Contract with ContractRes: the residual's binding
	Regions  []*Block
}

// Block is a list of ops with block arguments.
type Block struct {
	Args []Value
	Ops  []*Op
}

// Binding is one buffer a kernel reads or writes.
type Binding struct {
	Elem   Scalar
	Access Access
}

// SharedAlloc is a workgroup-memory array: addressed by LoadShared and
// StoreShared (thread level), and by tile ops (Contract, DWConv) as
// operand ordinal len(Kernel.Bindings)+i (see Kernel.TileMem), a
// workgroup's scratch tile. It starts zeroed, or with Scratch undefined:
// the kernel writes every element before reading it (llvm-cpu leaves the
// stack as it is; Run fills it with NaNs, so that a read before a write
// shows).
type SharedAlloc struct {
	Elem    Scalar
	Count   int64
	Scratch bool
}

// GridDim gives one dimension of the workgroup grid:
// ceil(Static × Π push constants in PushConstants ÷ Tile), at least 1 when
// the product is positive, and at most Max when Max is positive (a GPU
// target's limit: the kernel then loops over the tiles past it, see
// package gpu's FitGrid). The host program evaluates it.
type GridDim struct {
	Static        int64
	PushConstants []int
	Tile          int64
	Max           int64
}

// Kernel is one dispatch's program.
type Kernel struct {
	Name             string
	Bindings         []Binding
	NumPushConstants int
	Grid             [3]GridDim
	WorkgroupSize    [3]int // 1,1,1 for tile-level kernels
	// SubgroupSize is the number of consecutive threads (x fastest) that
	// form a subgroup for SubgroupSize, LaneID and the subgroup ops: the
	// target's size (NVIDIA 32, AMD 32 or 64, lavapipe 8). 0 means
	// MaxSubgroupSize. The last subgroup of a workgroup may be partial.
	SubgroupSize int
	Shared       []SharedAlloc
	Types        []Type // type of each Value
	Body         *Block
}

// Type returns v's type.
func (k *Kernel) Type(v Value) Type { return k.Types[v] }

// TileMem resolves a tile op's memory operand b (Op.Bindings): an
// ordinal below len(k.Bindings) is that binding (shared −1); the ordinal
// len(k.Bindings)+i is shared allocation i. ok is false past both.
func (k *Kernel) TileMem(b int) (elem Scalar, shared int, ok bool) {
	switch {
	case b >= 0 && b < len(k.Bindings):
		return k.Bindings[b].Elem, -1, true
	case b >= len(k.Bindings) && b < len(k.Bindings)+len(k.Shared):
		i := b - len(k.Bindings)
		return k.Shared[i].Elem, i, true
	}
	return 0, -1, false
}

// SharedOrdinal is the tile-op operand ordinal of shared allocation i
// (TileMem); it holds once every binding has been added.
func (k *Kernel) SharedOrdinal(i int) int { return len(k.Bindings) + i }
