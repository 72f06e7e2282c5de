package ptxsim

// ptype is a PTX scalar type.
type ptype uint8

const (
	tNone ptype = iota
	tPred
	tB8
	tB16
	tB32
	tB64
	tU8
	tU16
	tU32
	tU64
	tS8
	tS16
	tS32
	tS64
	tF16
	tBF16
	tF32
	tF64
)

var typeByName = map[string]ptype{
	".pred": tPred, ".b8": tB8, ".b16": tB16, ".b32": tB32, ".b64": tB64,
	".u8": tU8, ".u16": tU16, ".u32": tU32, ".u64": tU64,
	".s8": tS8, ".s16": tS16, ".s32": tS32, ".s64": tS64,
	".f16": tF16, ".bf16": tBF16, ".f32": tF32, ".f64": tF64,
}

// typeByMod is typeByName keyed without the dot, for opcode modifiers.
var typeByMod = func() map[string]ptype {
	m := map[string]ptype{}
	for k, v := range typeByName {
		m[k[1:]] = v
	}
	return m
}()

// typeSize maps a type directive to its size in bytes (.pred: 1).
var typeSize = map[string]int{
	".pred": 1, ".b8": 1, ".b16": 2, ".b32": 4, ".b64": 8,
	".u8": 1, ".u16": 2, ".u32": 4, ".u64": 8,
	".s8": 1, ".s16": 2, ".s32": 4, ".s64": 8,
	".f16": 2, ".bf16": 2, ".f32": 4, ".f64": 8,
}

var typeNames = [...]string{"", "pred", "b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64",
	"s8", "s16", "s32", "s64", "f16", "bf16", "f32", "f64"}

func (t ptype) String() string { return "." + typeNames[t] }

// bits returns the width of t in bits (1 for .pred).
func (t ptype) bits() int {
	switch t {
	case tPred:
		return 1
	case tB8, tU8, tS8:
		return 8
	case tB16, tU16, tS16, tF16, tBF16:
		return 16
	case tB32, tU32, tS32, tF32:
		return 32
	case tB64, tU64, tS64, tF64:
		return 64
	}
	return 0
}

func (t ptype) size() int {
	if t == tPred {
		return 1
	}
	return t.bits() / 8
}

func (t ptype) signed() bool  { return t >= tS8 && t <= tS64 }
func (t ptype) isFloat() bool { return t >= tF16 }
func (t ptype) isInt() bool   { return t >= tB8 && t <= tS64 }

// mask returns the all-ones value of t's width.
func (t ptype) mask() uint64 {
	b := t.bits()
	if b >= 64 {
		return ^uint64(0)
	}
	return 1<<uint(b) - 1
}

// norm returns v reduced to t's width: sign-extended to 64 bits for
// signed types, zero-extended otherwise.
func (t ptype) norm(v uint64) uint64 {
	switch t {
	case tS8:
		return uint64(int64(int8(v)))
	case tS16:
		return uint64(int64(int16(v)))
	case tS32:
		return uint64(int64(int32(v)))
	case tS64:
		return v
	}
	return v & t.mask()
}

// sext sign-extends the low w bits of v.
func sext(v uint64, w uint8) int64 {
	s := 64 - w
	return int64(v<<s) >> s
}

// Rounding modes.
const (
	rndNone uint8 = iota
	rndRN
	rndRZ
	rndRM
	rndRP
	rndRNI
	rndRZI
	rndRMI
	rndRPI
)

var rndByName = map[string]uint8{
	"rn": rndRN, "rz": rndRZ, "rm": rndRM, "rp": rndRP,
	"rni": rndRNI, "rzi": rndRZI, "rmi": rndRMI, "rpi": rndRPI,
}

// State spaces.
const (
	spNone uint8 = iota // generic: treated as global
	spGlobal
	spShared
	spParam
)
