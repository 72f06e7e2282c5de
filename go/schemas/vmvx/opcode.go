package vmvx

import "strconv"

// Opcode is an instruction's operation. The arithmetic, vector, memory and
// thread-level opcodes have the semantics of the kernel IR op of the same
// name (package kir); the control-flow opcodes (Mov to ForNext) replace
// kir's structured For and If.
type Opcode uint8

// Opcodes. The comment gives the operand layout (see Layout) and what
// the registers must be.
const (
	BadOp Opcode = iota

	ConstInt       // d i: integer register, splat of the immediate
	ConstFloat     // d f: float register, splat of the f64 immediate rounded to the type
	PushConstant   // d u: i64 scalar ← push constant u
	WorkgroupID    // d u: i64 scalar ← id in dimension u (0..2)
	WorkgroupCount // d u
	ThreadID       // d u
	WorkgroupSize  // d u
	SubgroupSize   // d
	LaneID         // d

	Add // d r r: all the same type (Add to ShrU; Add, Sub, Mul also on floats)
	Sub
	Mul
	DivS
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
	DivF // d r r: the same float type (DivF to CopySign)
	RemF
	MinF
	MaxF
	MinNumF
	MaxNumF
	PowF
	Atan2
	CopySign

	NegF // d r: the same type; floats except AbsI, CtLz, CtTz, CtPop (integers)
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
	Round
	RoundEven
	Trunc
	CtLz
	CtTz
	CtPop
	IsNaN    // d r: d is i1 with the lanes of the float r
	IsInf    // d r
	IsFinite // d r

	FMA    // d r r r: the same float type
	Select // d r r r: cond (i1 scalar or i1 with d's lanes), a, b of d's type

	CmpI // d u r r: u = predicate; d is i1 with the operands' lanes
	CmpF // d u r r

	ExtS    // d r: the same lanes; element types as kir's conversion rules
	ExtU    // d r
	TruncI  // d r
	SIToFP  // d r
	UIToFP  // d r
	FPToSI  // d r
	FPToUI  // d r
	FPExt   // d r
	FPTrunc // d r
	Bitcast // d r: element types of the same bit width

	Broadcast // d r: scalar r of d's element type
	Extract   // d r u: scalar d ← lane u of r
	Insert    // d r r u: d (r's type) ← r with lane u replaced by scalar r2
	LaneIota  // d: integer register, lane i holds i
	Reduce    // d u r: u = reduction kind; scalar d of r's element type

	Load            // d b r: binding b, i64 offset r; d's element type is b's
	Store           // b r r: binding b, i64 offset, value
	LoadStrided     // d b r r: offset, stride
	StoreStrided    // b r r r: offset, stride, value
	LoadShared      // d b r: b = shared allocation
	StoreShared     // b r r
	Barrier         // (none)
	SubgroupReduce  // d u r: scalars
	SubgroupShuffle // d r r: scalar value of d's type, i64 lane

	Contract // b b b u r×12: bindings A, B, C; u = flags (bit 0: zero-extend; bit 1: C = A·B, C starts at zero); 12 i64 scalars

	Mov     // d r: the same type
	Jmp     // t
	Jz      // r t: jump when the i1 scalar r is false
	Jnz     // r t: jump when it is true
	ForInit // r r r r t: iv ← lo; error if step ≤ 0; jump to t when iv ≥ hi (iv, lo, hi, step)
	ForNext // r r r t: iv += step and jump to t unless that overflows or reaches hi (iv, hi, step)

	AtomicRMW // u b r r: u = kind (0 and, 1 or), binding b of i32 (written), i64 offset, i32 scalar value

	numOpcodes
)

// NumOpcodes is one more than the largest valid opcode.
const NumOpcodes = int(numOpcodes)

// Layout letters, one per encoded operand after the opcode byte:
//
//	d  destination register (uvarint)
//	r  source register (uvarint)
//	i  signed immediate (zig-zag varint)
//	u  unsigned immediate (uvarint)
//	f  float64 immediate (8 bytes, little-endian IEEE bits)
//	t  jump target: an instruction index, 0..len(code) (uvarint)
//	b  binding or shared-allocation index (uvarint)
type opInfo struct {
	name   string
	layout string
}

var opInfos = [...]opInfo{
	ConstInt: {"const_int", "di"}, ConstFloat: {"const_float", "df"},
	PushConstant: {"push_constant", "du"}, WorkgroupID: {"workgroup_id", "du"},
	WorkgroupCount: {"workgroup_count", "du"}, ThreadID: {"thread_id", "du"},
	WorkgroupSize: {"workgroup_size", "du"}, SubgroupSize: {"subgroup_size", "d"}, LaneID: {"lane_id", "d"},
	Add: {"add", "drr"}, Sub: {"sub", "drr"}, Mul: {"mul", "drr"}, DivS: {"divs", "drr"},
	DivU: {"divu", "drr"}, RemS: {"rems", "drr"}, RemU: {"remu", "drr"},
	FloorDivS: {"floordivs", "drr"}, CeilDivS: {"ceildivs", "drr"}, CeilDivU: {"ceildivu", "drr"},
	MinS: {"mins", "drr"}, MinU: {"minu", "drr"}, MaxS: {"maxs", "drr"}, MaxU: {"maxu", "drr"},
	And: {"and", "drr"}, Or: {"or", "drr"}, Xor: {"xor", "drr"}, Shl: {"shl", "drr"},
	ShrS: {"shrs", "drr"}, ShrU: {"shru", "drr"}, DivF: {"divf", "drr"}, RemF: {"remf", "drr"},
	MinF: {"minimumf", "drr"}, MaxF: {"maximumf", "drr"}, MinNumF: {"minnumf", "drr"},
	MaxNumF: {"maxnumf", "drr"}, PowF: {"powf", "drr"}, Atan2: {"atan2", "drr"},
	CopySign: {"copysign", "drr"},
	NegF:     {"negf", "dr"}, AbsF: {"absf", "dr"}, AbsI: {"absi", "dr"}, Sqrt: {"sqrt", "dr"},
	Rsqrt: {"rsqrt", "dr"}, Cbrt: {"cbrt", "dr"}, Exp: {"exp", "dr"}, Exp2: {"exp2", "dr"},
	Expm1: {"expm1", "dr"}, Log: {"log", "dr"}, Log2: {"log2", "dr"}, Log10: {"log10", "dr"},
	Log1p: {"log1p", "dr"}, Sin: {"sin", "dr"}, Cos: {"cos", "dr"}, Tan: {"tan", "dr"},
	Sinh: {"sinh", "dr"}, Cosh: {"cosh", "dr"}, Tanh: {"tanh", "dr"}, Asin: {"asin", "dr"},
	Acos: {"acos", "dr"}, Atan: {"atan", "dr"}, Asinh: {"asinh", "dr"}, Acosh: {"acosh", "dr"},
	Atanh: {"atanh", "dr"}, Erf: {"erf", "dr"}, Erfc: {"erfc", "dr"}, Floor: {"floor", "dr"},
	Ceil: {"ceil", "dr"}, Round: {"round", "dr"}, RoundEven: {"roundeven", "dr"},
	Trunc: {"trunc", "dr"}, CtLz: {"ctlz", "dr"}, CtTz: {"cttz", "dr"}, CtPop: {"ctpop", "dr"},
	IsNaN: {"isnan", "dr"}, IsInf: {"isinf", "dr"}, IsFinite: {"isfinite", "dr"},
	FMA: {"fma", "drrr"}, Select: {"select", "drrr"}, CmpI: {"cmpi", "durr"}, CmpF: {"cmpf", "durr"},
	ExtS: {"extsi", "dr"}, ExtU: {"extui", "dr"}, TruncI: {"trunci", "dr"}, SIToFP: {"sitofp", "dr"},
	UIToFP: {"uitofp", "dr"}, FPToSI: {"fptosi", "dr"}, FPToUI: {"fptoui", "dr"},
	FPExt: {"extf", "dr"}, FPTrunc: {"truncf", "dr"}, Bitcast: {"bitcast", "dr"},
	Broadcast: {"broadcast", "dr"}, Extract: {"extract", "dru"}, Insert: {"insert", "drru"},
	LaneIota: {"iota", "d"}, Reduce: {"reduce", "dur"},
	Load: {"load", "dbr"}, Store: {"store", "brr"}, LoadStrided: {"load_strided", "dbrr"},
	StoreStrided: {"store_strided", "brrr"}, LoadShared: {"load_shared", "dbr"},
	StoreShared: {"store_shared", "brr"}, Barrier: {"barrier", ""},
	SubgroupReduce: {"subgroup_reduce", "dur"}, SubgroupShuffle: {"subgroup_shuffle", "drr"},
	Contract: {"contract", "bbburrrrrrrrrrrr"},
	Mov:      {"mov", "dr"}, Jmp: {"jmp", "t"}, Jz: {"jz", "rt"}, Jnz: {"jnz", "rt"},
	ForInit: {"for_init", "rrrrt"}, ForNext: {"for_next", "rrrt"},
	AtomicRMW: {"atomic_rmw", "ubrr"},
}

// Valid reports whether op is a defined opcode.
func (op Opcode) Valid() bool { return op > BadOp && op < numOpcodes }

// String returns the opcode's mnemonic, e.g. "add".
func (op Opcode) String() string {
	if op.Valid() {
		return opInfos[op].name
	}
	return "opcode(" + strconv.Itoa(int(op)) + ")"
}

// Layout returns the operand layout of op (the letters above), "" for an
// invalid opcode.
func (op Opcode) Layout() string {
	if op.Valid() {
		return opInfos[op].layout
	}
	return ""
}

// HasDst reports whether op writes a destination register.
func (op Opcode) HasDst() bool {
	l := op.Layout()
	return len(l) > 0 && l[0] == 'd'
}
