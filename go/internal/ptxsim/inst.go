package ptxsim

// opcode is a decoded instruction kind. Several PTX instructions decode to
// one opcode (ret and exit; mov, cvta and ld.param) and some PTX
// instructions decode to a specialised fast-path opcode.
type opcode uint8

const (
	opNop opcode = iota
	opBra
	opExit
	opTrap
	opBar      // bar.sync / barrier.sync: block-level sync point
	opWarpSync // bar.warp.sync
	opShfl     // shfl.sync
	opVote     // vote.sync

	opMov    // d = a (masked to the type)
	opPack   // mov.b64 d, {a,b} / mov.b32 d, {a,b}
	opUnpack // mov.b64 {a,b}, d
	opSelp

	opAdd
	opSub
	opAddSat
	opSubSat
	opMulLo
	opMulHi
	opMulWide
	opMadLo
	opMadHi
	opMadWide
	opDiv
	opRem
	opAnd
	opOr
	opXor
	opNot
	opCnot
	opShl
	opShr
	opMin
	opMax
	opNeg
	opAbs
	opPopc
	opClz
	opBrev
	opBfind
	opBfe
	opBfi

	opSetpInt
	opSetpF

	opFAdd32 // .rn f32 fast paths
	opFSub32
	opFMul32
	opFFma32
	opFAdd64 // .rn f64 fast paths
	opFSub64
	opFMul64
	opFFma64
	opFArith  // any float arithmetic with modifiers: sub selects the operation
	opFUnary  // neg abs sqrt rcp rsqrt ex2 lg2 sin cos tanh: sub selects
	opFMinMax // min/max: sub selects
	opCopysign
	opTestp

	opCvt

	opLd // global / generic
	opSt
	opLdShared
	opStShared
	opAtom
)

// Float arithmetic sub-operations (inst.sub for opFArith / opFUnary).
const (
	fAdd uint8 = iota
	fSub
	fMul
	fFma
	fDiv
	fSqrt
	fRcp
	fRsqrt
	fNeg
	fAbs
	fEx2
	fLg2
	fSin
	fCos
	fTanh
	fMin
	fMax
)

// Instruction flags.
const (
	flFtz uint16 = 1 << iota
	flSat
	flNaN      // min.NaN / max.NaN
	flShiftAmt // bfind.shiftamt
	flNotC     // setp's third operand is negated
	flNotA     // vote's operand is negated
	flApprox
)

// inst is a decoded instruction. Register operands are indices into the
// thread's register file; immediates, parameters, symbol addresses and
// special registers also live in register slots, so every source operand
// is a register index.
type inst struct {
	op     opcode
	t      ptype // instruction type (destination type for cvt)
	t2     ptype // cvt source type
	sub    uint8 // sub-operation: float op, compare, atom op, shfl mode, vote mode, testp kind
	rnd    uint8
	bop    uint8 // setp combining op
	space  uint8
	nvec   uint8
	flags  uint16
	w      uint8 // integer width in bits
	addr32 bool  // the address register is 32 bits wide
	gnot   bool
	guard  int32 // predicate register or -1
	d, d2  int32 // destinations; d2 = second predicate output or -1
	a, b   int32
	c, e   int32
	vec    [4]int32
	off    int64
	mask   uint64
	line   int32
	cvt    func(uint64) uint64
}

// Comparison operators for setp (inst.sub).
const (
	cmpEQ uint8 = iota
	cmpNE
	cmpLT
	cmpLE
	cmpGT
	cmpGE
	cmpLO
	cmpLS
	cmpHI
	cmpHS
	cmpEQU
	cmpNEU
	cmpLTU
	cmpLEU
	cmpGTU
	cmpGEU
	cmpNUM
	cmpNAN
)

var cmpByName = map[string]uint8{
	"eq": cmpEQ, "ne": cmpNE, "lt": cmpLT, "le": cmpLE, "gt": cmpGT, "ge": cmpGE,
	"lo": cmpLO, "ls": cmpLS, "hi": cmpHI, "hs": cmpHS,
	"equ": cmpEQU, "neu": cmpNEU, "ltu": cmpLTU, "leu": cmpLEU, "gtu": cmpGTU, "geu": cmpGEU,
	"num": cmpNUM, "nan": cmpNAN,
}

// Boolean combining ops (setp .and/.or/.xor, inst.bop).
const (
	bopNone uint8 = iota
	bopAnd
	bopOr
	bopXor
)

// Atomic ops (inst.sub for opAtom).
const (
	atAnd uint8 = iota
	atOr
	atXor
	atAdd
	atExch
	atCas
	atMin
	atMax
	atInc
	atDec
)

// shfl modes and vote modes (inst.sub).
const (
	shUp uint8 = iota
	shDown
	shBfly
	shIdx
)

const (
	voAll uint8 = iota
	voAny
	voUni
	voBallot
)

// testp kinds (inst.sub).
const (
	tpNaN uint8 = iota
	tpInfinite
	tpFinite
	tpNormal
	tpSubnormal
	tpNumber
	tpNotANumber
)
