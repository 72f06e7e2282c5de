package ptx

import (
	"fmt"
	"math"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/internal/half"
)

// Registers. Every value lane is one virtual register of a bit-size class
// (ptxas allocates the hardware registers); bit-size registers are
// compatible with every instruction type of their width, so one class
// serves integers and floats:
//
//	i1         .pred
//	i8 i16 i32 .b32, sign-extended from the element width (as the
//	           interpreter keeps lanes), so signed comparisons, shifts and
//	           widening need no work
//	i64 f64    .b64
//	f16 bf16   .b16, the raw bits
//	f32        .b32
type regClass uint8

const (
	clsPred regClass = iota
	cls16
	cls32
	cls64
	numClasses
)

var classDecl = [numClasses]string{".pred", ".b16", ".b32", ".b64"}
var classPrefix = [numClasses]string{"p", "h", "r", "rd"}

// classOf returns the register class of scalar s.
func classOf(s kir.Scalar) regClass {
	switch s {
	case kir.I1:
		return clsPred
	case kir.F16, kir.BF16:
		return cls16
	case kir.I64, kir.F64:
		return cls64
	}
	return cls32
}

// reg returns a fresh register of class c.
func (e *emitter) reg(c regClass) string {
	e.nregs[c]++
	return fmt.Sprintf("%%%s%d", classPrefix[c], e.nregs[c])
}

// regOf returns a fresh register for a lane of s.
func (e *emitter) regOf(s kir.Scalar) string { return e.reg(classOf(s)) }

// wide reports whether s lives in a 64-bit register.
func wide(s kir.Scalar) bool { return classOf(s) == cls64 }

// bitsOf returns "32" or "64": the width of s's integer register.
func bitsOf(s kir.Scalar) string {
	if wide(s) {
		return "64"
	}
	return "32"
}

// movType returns the mov (and selp) type of class c.
func movType(c regClass) string {
	switch c {
	case clsPred:
		return "pred"
	case cls16:
		return "b16"
	case cls64:
		return "b64"
	}
	return "b32"
}

// mov copies src into dst (registers of class c).
func (e *emitter) mov(c regClass, dst, src string) {
	e.ins("mov.%s %s, %s", movType(c), dst, src)
}

// imm returns a fresh register of class c holding the constant bits x.
func (e *emitter) imm(c regClass, x uint64) string {
	r := e.reg(c)
	switch c {
	case clsPred:
		e.ins("setp.ne.u32 %s, %s, 0", r, e.imm(cls32, x&1))
	case cls16:
		e.ins("mov.b16 %s, 0x%04X", r, uint16(x))
	case cls32:
		e.ins("mov.b32 %s, 0x%08X", r, uint32(x))
	default:
		e.ins("mov.b64 %s, 0x%016X", r, x)
	}
	return r
}

// constBits returns the register encoding of the constant x of type s
// (integers as the interpreter's sign-extended lanes, floats as bits).
func constBits(s kir.Scalar, i int64, f float64, float bool) uint64 {
	if float {
		switch s {
		case kir.F16, kir.BF16:
			eb, mb := uint(5), uint(10)
			if s == kir.BF16 {
				eb, mb = 8, 7
			}
			return uint64(half.Round(f, eb, mb))
		case kir.F32:
			return uint64(math.Float32bits(float32(f)))
		}
		return math.Float64bits(f)
	}
	n := uint(s.Bits())
	return uint64(i<<(64-n)) >> (64 - n) // the low n bits
}

// constant translates ConstInt and ConstFloat.
func (e *emitter) constant(op *kir.Op, rt kir.Type) {
	x := constBits(rt.Elem, op.Imm, op.F, op.Kind == kir.ConstFloat)
	if op.Kind == kir.ConstInt && rt.Elem != kir.I1 && !wide(rt.Elem) {
		x = uint64(uint32(int32(op.Imm<<(32-rt.Elem.Bits())) >> (32 - rt.Elem.Bits())))
	}
	r := e.imm(classOf(rt.Elem), x)
	e.lanewise(op, rt, func(int) string { return r })
}

// zero16Reg returns a register holding 16 zero bits (for packing bf16
// into the top half of an f32).
func (e *emitter) zero16Reg() string {
	if e.zero16 == "" {
		e.zero16 = e.reg(cls16)
		fmt.Fprintf(&e.prologue, "\tmov.b16 %s, 0;\n", e.zero16)
	}
	return e.zero16
}
