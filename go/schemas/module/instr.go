package module

// Opcode is a host-program instruction.
type Opcode uint8

// Host-program opcodes. Dst and Src are register numbers; the comment
// gives each opcode's operands. Scalar ops carry the scalar type they work
// on in Type (and Type2 for casts).
const (
	OpInvalid Opcode = iota
	// Move: Dst[0] = Src[0]; same kind.
	OpMove
	// ConstI: Dst[0] = Imm, wrapped to Type.
	OpConstI
	// ConstF: Dst[0] = F, rounded to Type.
	OpConstF
	// Arith: Dst[0] = Sub(Src...) over Type (ArithOp).
	OpArith
	// Cmp: Dst[0] (i32 0/1) = Src[0] <Sub> Src[1] over Type; Sub is a
	// predicate numbered as arith.cmpi (integers) or arith.cmpf (floats).
	OpCmp
	// Cast: Dst[0] = Sub(Src[0]) from Type to Type2 (CastOp).
	OpCast
	// Select: Dst[0] = Src[0] != 0 ? Src[1] : Src[2].
	OpSelect
	// Branch: parallel copy Src[i] → Dst[i], then jump to Index.
	OpBranch
	// CondBranch: jump to Index if Src[0] != 0, else to Index2.
	OpCondBranch
	// Call: Dst = Functions[Index](Src).
	OpCall
	// CallImport: Dst = Imports[Index](Src).
	OpCallImport
	// Return: return Src.
	OpReturn
	// Fail: stop with status code Imm and message Str.
	OpFail
	// GlobalLoad: Dst[0] = Globals[Index].
	OpGlobalLoad
	// GlobalStore: Globals[Index] = Src[0].
	OpGlobalStore
	// Constant: Dst[0] = a buffer view of Constants[Index].
	OpConstant
	// Alloc: Dst[0] = a buffer view of element type Imm and dimensions Src
	// (i64), zeroed unless Sub is 1 (contents unspecified: a dispatch
	// writes every element).
	OpAlloc
	// Dim: Dst[0] (i64) = dimension Imm of buffer view Src[0].
	OpDim
	// Reshape: Dst[0] = Src[0]'s data viewed with dimensions Src[1:].
	OpReshape
	// Clone: Dst[0] = a copy of buffer view Src[0]. Sub CloneMayMove:
	// Src[0] is dead after the clone, so the interpreter may hand its
	// buffer over instead of copying it when nothing else the program can
	// read refers to that storage (Src[0] is then null).
	OpClone
	// Load: Dst[0] = element Src[1:] (i64 indices) of buffer view Src[0],
	// of scalar type Type.
	OpLoad
	// Store: element Src[2:] of buffer view Src[0] = Src[1] (Type).
	OpStore
	// Dispatch: run entry Index2 of Executables[Index] with Src =
	// (workgroup count x, y, z (i64), Imm push constants (i64), the
	// binding buffer views). When Executables[Index] starts a group of V
	// variants, Src begins with V triples of workgroup counts, one per
	// variant in the group's order; the runtime uses the triple of the
	// variant its device prepared.
	OpDispatch
	// Trace: print the buffer views Src under the heading Str (debugging:
	// --iree-flow-trace-dispatch-tensors).
	OpTrace
	// Discard: the values of the ref registers Src are dead: the
	// interpreter nulls each register and hands its buffer's storage back
	// to the device for reuse when no other live reference (a register of
	// an active call, an argument of the outermost call, a global) still
	// uses that storage. Emitted after a value's last use. Sub says what
	// the compiler proved about those other references (DiscardScan,
	// DiscardRelease, DiscardKeep).
	OpDiscard
	// Copy: the bytes of buffer view Src[1], all of them, into buffer view
	// Src[0] from byte offset Src[2] (i64) on. Src[0] is a buffer the
	// function allocated or cloned and no other value reads yet (a
	// concatenation's result, written piece by piece; a tensor.insert_slice
	// into a clone of its destination, at a run-time offset).
	OpCopy
	// Subview: Dst[0] = a view with dimensions Src[2:] (i64) of the bytes
	// of buffer view Src[0] from byte offset Src[1] (i64) on, of Src[0]'s
	// element type. It shares Src[0]'s storage and holds no reference to
	// it: a piece of a concatenation that a dispatch writes in place, or a
	// concatenation whose pieces are a prefix of a larger one's. Src[0] is
	// a buffer the function allocated and no other value reads yet.
	OpSubview
	opCount
)

// CloneMayMove is the Sub of an OpClone whose source register is dead
// after it.
const CloneMayMove uint8 = 1

// Discard kinds (Instr.Sub of OpDiscard).
const (
	// DiscardScan: nothing is known; the interpreter looks for other
	// references to the storage before it releases it.
	DiscardScan uint8 = iota
	// DiscardRelease: the storage of each register is the function's own
	// (allocated in this call, never passed to a call, stored in a global
	// or returned), and no register that is still live shares it: it is
	// released without a search.
	DiscardRelease
	// DiscardKeep: a register that is still live shares the storage of
	// each register: the registers are nulled, nothing is released.
	DiscardKeep
)

// Scalar types used by Type/Type2 (numbered as the compiler's kernel IR).
const (
	TypeI1 uint8 = iota + 1
	TypeI8
	TypeI16
	TypeI32
	TypeI64
	TypeF16
	TypeBF16
	TypeF32
	TypeF64
)

// ArithOp is the Sub of OpArith.
type ArithOp uint8

// Host arithmetic. Integer ops wrap to Type's width; division by zero is
// an error at run time.
const (
	ArithAdd ArithOp = iota + 1
	ArithSub
	ArithMul
	ArithDivS
	ArithDivU
	ArithRemS
	ArithRemU
	ArithMinS
	ArithMaxS
	ArithMinU
	ArithMaxU
	ArithAnd
	ArithOr
	ArithXor
	ArithShl
	ArithShrS
	ArithShrU
	ArithFloorDivS
	ArithCeilDivS
	ArithCeilDivU
	ArithAddF
	ArithSubF
	ArithMulF
	ArithDivF
	ArithRemF
	ArithMinF
	ArithMaxF
	ArithNegF
	arithCount
)

// CastOp is the Sub of OpCast.
type CastOp uint8

// Host conversions.
const (
	CastExtS CastOp = iota + 1
	CastExtU
	CastTrunc
	CastSIToFP
	CastUIToFP
	CastFPToSI
	CastFPToUI
	CastFPExt
	CastFPTrunc
	CastBitcast
	castCount
)

// Instr is one host instruction.
type Instr struct {
	Op     Opcode
	Sub    uint8
	Type   uint8
	Type2  uint8
	Dst    []int32
	Src    []int32
	Imm    int64
	F      float64
	Index  int32
	Index2 int32
	Str    string
}

var opNames = [...]string{"invalid", "move", "const.i", "const.f", "arith", "cmp", "cast", "select", "br", "cond_br", "call", "call.import", "return", "fail", "global.load", "global.store", "constant", "alloc", "dim", "reshape", "clone", "load", "store", "dispatch", "trace", "discard", "copy", "subview"}

func (o Opcode) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return "op?"
}
