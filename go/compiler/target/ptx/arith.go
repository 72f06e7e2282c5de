package ptx

import (
	"fmt"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/status"
)

// Integer arithmetic with the interpreter's semantics: results wrap to the
// element width (and are sign-extended in their register), division and
// remainder by zero give 0, the minimum divided by -1 wraps, shifts by the
// width or more give 0 or the sign fill. PTX leaves division by zero and
// overflow unspecified, so they are steered around by selects; its
// shifts clamp the amount to the register width, which gives the
// interpreter's results once the amount is read unsigned. i1 lanes are
// lifted to 32-bit 0/-1 words, computed as 1-bit integers and turned back
// into predicates.

// lift returns a lane of s as an integer register (i1: 0 or -1 in .b32).
func (e *emitter) lift(s kir.Scalar, x string) string {
	if s != kir.I1 {
		return x
	}
	r := e.reg(cls32)
	e.ins("selp.b32 %s, -1, 0, %s", r, x)
	return r
}

// lower turns an integer register of s back into its lane form.
func (e *emitter) lower(s kir.Scalar, x string) string {
	if s != kir.I1 {
		return x
	}
	p := e.reg(clsPred)
	t := e.reg(cls32)
	e.ins("and.b32 %s, %s, 1", t, x)
	e.ins("setp.ne.b32 %s, %s, 0", p, t)
	return p
}

// norm sign-extends the low s.Bits() bits of the .b32 register x (a no-op
// for 32- and 64-bit types).
func (e *emitter) norm(s kir.Scalar, x string) string {
	n := s.Bits()
	if n >= 32 {
		return x
	}
	r := e.reg(cls32)
	switch n {
	case 8, 16:
		e.ins("cvt.s32.s%d %s, %s", n, r, x)
	default:
		e.ins("shl.b32 %s, %s, %d", r, x, 32-n)
		e.ins("shr.s32 %s, %s, %d", r, r, 32-n)
	}
	return r
}

// zx returns the low s.Bits() bits of x, zero-extended in its register.
func (e *emitter) zx(s kir.Scalar, x string) string {
	n := s.Bits()
	if n >= 32 {
		return x
	}
	r := e.reg(cls32)
	e.ins("and.b32 %s, %s, 0x%X", r, x, uint32(1)<<n-1)
	return r
}

// op3 emits "name d, a, b" into a fresh register of class c.
func (e *emitter) op3(c regClass, name, a, b string) string {
	r := e.reg(c)
	e.ins("%s %s, %s, %s", name, r, a, b)
	return r
}

// intBinary applies an integer binary op to lanes of s.
func (e *emitter) intBinary(k kir.Kind, s kir.Scalar, a, b string) string {
	if s == kir.I1 {
		// 1-bit wrapping: + and - are xor, * is and; true is -1, the
		// signed minimum.
		pop := map[kir.Kind]string{kir.And: "and", kir.Mul: "and", kir.MaxS: "and", kir.MinU: "and",
			kir.Or: "or", kir.MinS: "or", kir.MaxU: "or", kir.Xor: "xor", kir.Add: "xor", kir.Sub: "xor"}[k]
		if pop != "" {
			return e.op3(clsPred, pop+".pred", a, b)
		}
	}
	a, b = e.lift(s, a), e.lift(s, b)
	return e.lower(s, e.intBin(k, s, a, b))
}

func (e *emitter) intBin(k kir.Kind, s kir.Scalar, a, b string) string {
	w := bitsOf(s)
	c := cls32
	if wide(s) {
		c = cls64
	}
	switch k {
	case kir.Add:
		return e.norm(s, e.op3(c, "add.s"+w, a, b))
	case kir.Sub:
		return e.norm(s, e.op3(c, "sub.s"+w, a, b))
	case kir.Mul:
		return e.norm(s, e.op3(c, "mul.lo.s"+w, a, b))
	case kir.DivS, kir.RemS, kir.FloorDivS, kir.CeilDivS:
		return e.norm(s, e.divSigned(k, c, w, a, b))
	case kir.DivU, kir.RemU, kir.CeilDivU:
		return e.norm(s, e.divUnsigned(k, c, w, e.zx(s, a), e.zx(s, b)))
	case kir.MinS:
		return e.op3(c, "min.s"+w, a, b)
	case kir.MaxS:
		return e.op3(c, "max.s"+w, a, b)
	case kir.MinU:
		return e.norm(s, e.op3(c, "min.u"+w, e.zx(s, a), e.zx(s, b)))
	case kir.MaxU:
		return e.norm(s, e.op3(c, "max.u"+w, e.zx(s, a), e.zx(s, b)))
	case kir.And:
		return e.op3(c, "and.b"+w, a, b)
	case kir.Or:
		return e.op3(c, "or.b"+w, a, b)
	case kir.Xor:
		return e.op3(c, "xor.b"+w, a, b)
	case kir.Shl:
		return e.norm(s, e.op3(c, "shl.b"+w, a, e.shiftAmount(s, b)))
	case kir.ShrS:
		return e.op3(c, "shr.s"+w, a, e.shiftAmount(s, b))
	case kir.ShrU:
		return e.norm(s, e.op3(c, "shr.u"+w, e.zx(s, a), e.shiftAmount(s, b)))
	}
	e.failf(status.Internal, "op %d: %s is not an integer binary op", e.opNo, k)
	return ""
}

// shiftAmount returns the shift amount b of an s shift as a .b32 register
// read unsigned: PTX clamps it to the register width, which gives 0 or the
// sign fill exactly when the interpreter does (for i8, i16 and i1 in
// 32-bit registers too, the value being zero- or sign-extended).
func (e *emitter) shiftAmount(s kir.Scalar, b string) string {
	if wide(s) {
		m := e.op3(cls64, "min.u64", b, "64")
		r := e.reg(cls32)
		e.ins("cvt.u32.u64 %s, %s", r, m)
		return r
	}
	return e.zx(s, b)
}

// divGuards returns predicates b == 0 and b == -1 and a divisor that is
// safe for PTX's div and rem (1 where either holds).
func (e *emitter) divGuards(c regClass, w, b string, signed bool) (zero, m1, safe string) {
	zero = e.reg(clsPred)
	e.ins("setp.eq.s%s %s, %s, 0", w, zero, b)
	bad := zero
	if signed {
		m1 = e.reg(clsPred)
		e.ins("setp.eq.s%s %s, %s, -1", w, m1, b)
		bad = e.reg(clsPred)
		e.ins("or.pred %s, %s, %s", bad, zero, m1)
	}
	safe = e.reg(c)
	e.ins("selp.b%s %s, 1, %s, %s", w, safe, b, bad)
	return zero, m1, safe
}

// divSigned computes DivS, RemS, FloorDivS and CeilDivS.
func (e *emitter) divSigned(k kir.Kind, c regClass, w, a, b string) string {
	zero, m1, safe := e.divGuards(c, w, b, true)
	q := e.op3(c, "div.s"+w, a, safe)
	neg := e.op3(c, "sub.s"+w, "0", a)
	q2 := e.reg(c)
	e.ins("selp.b%s %s, %s, %s, %s", w, q2, neg, q, m1)
	r := e.op3(c, "rem.s"+w, a, safe)
	r2 := e.reg(c)
	bad := e.reg(clsPred)
	e.ins("or.pred %s, %s, %s", bad, zero, m1)
	e.ins("selp.b%s %s, 0, %s, %s", w, r2, r, bad)
	if k == kir.RemS {
		return r2
	}
	q3 := e.reg(c)
	e.ins("selp.b%s %s, 0, %s, %s", w, q3, q2, zero)
	if k == kir.DivS {
		return q3
	}
	// Adjust by one when the remainder is nonzero and its sign (the
	// dividend's) differs from the divisor's (floor) or agrees (ceil).
	nz, diff := e.reg(clsPred), e.reg(clsPred)
	e.ins("setp.ne.s%s %s, %s, 0", w, nz, r2)
	x := e.op3(c, "xor.b"+w, r2, b)
	cmp := "lt"
	if k == kir.CeilDivS {
		cmp = "ge"
	}
	e.ins("setp.%s.s%s %s, %s, 0", cmp, w, diff, x)
	e.ins("and.pred %s, %s, %s", diff, diff, nz)
	adj := e.reg(c)
	delta := "-1"
	if k == kir.CeilDivS {
		delta = "1"
	}
	e.ins("selp.b%s %s, %s, 0, %s", w, adj, delta, diff)
	return e.op3(c, "add.s"+w, q3, adj)
}

// divUnsigned computes DivU, RemU and CeilDivU of zero-extended operands.
func (e *emitter) divUnsigned(k kir.Kind, c regClass, w, a, b string) string {
	zero, _, safe := e.divGuards(c, w, b, false)
	q := e.op3(c, "div.u"+w, a, safe)
	r := e.op3(c, "rem.u"+w, a, safe)
	if k == kir.RemU {
		r2 := e.reg(c)
		e.ins("selp.b%s %s, 0, %s, %s", w, r2, r, zero)
		return r2
	}
	if k == kir.CeilDivU {
		nz := e.reg(clsPred)
		e.ins("setp.ne.s%s %s, %s, 0", w, nz, r)
		adj := e.reg(c)
		e.ins("selp.b%s %s, 1, 0, %s", w, adj, nz)
		q = e.op3(c, "add.s"+w, q, adj)
	}
	q2 := e.reg(c)
	e.ins("selp.b%s %s, 0, %s, %s", w, q2, q, zero)
	return q2
}

// intUnary applies AbsI, CtLz, CtTz or CtPop to a lane of s.
func (e *emitter) intUnary(k kir.Kind, s kir.Scalar, a string) string {
	a = e.lift(s, a)
	w := bitsOf(s)
	c := cls32
	if wide(s) {
		c = cls64
	}
	n := s.Bits()
	var r string
	switch k {
	case kir.AbsI:
		neg := e.op3(c, "sub.s"+w, "0", a)
		p := e.reg(clsPred)
		e.ins("setp.lt.s%s %s, %s, 0", w, p, a)
		r = e.reg(c)
		e.ins("selp.b%s %s, %s, %s, %s", w, r, neg, a, p)
		r = e.norm(s, r)
	case kir.CtLz, kir.CtTz, kir.CtPop:
		x := e.zx(s, a)
		if k == kir.CtTz {
			if n < 32 {
				x = e.op3(cls32, "or.b32", x, fmt.Sprintf("0x%X", uint32(1)<<n))
			}
			rev := e.reg(c)
			e.ins("brev.b%s %s, %s", w, rev, x)
			x = rev
		}
		cnt := e.reg(cls32)
		switch k {
		case kir.CtPop:
			e.ins("popc.b%s %s, %s", w, cnt, x)
		default:
			e.ins("clz.b%s %s, %s", w, cnt, x)
		}
		if k == kir.CtLz && n < 32 {
			cnt = e.op3(cls32, "sub.s32", cnt, fmt.Sprint(32-n))
		}
		r = cnt
		if wide(s) {
			r = e.reg(cls64)
			e.ins("cvt.u64.u32 %s, %s", r, cnt)
		}
		r = e.norm(s, r)
	default:
		e.failf(status.Internal, "op %d: %s is not an integer unary op", e.opNo, k)
	}
	return e.lower(s, r)
}

// cmpInt evaluates an integer predicate on lanes of s (sign-extended, so
// unsigned comparisons order them as their zero-extended values).
func (e *emitter) cmpInt(p kir.Pred, s kir.Scalar, a, b string) string {
	a, b = e.lift(s, a), e.lift(s, b)
	w := bitsOf(s)
	names := map[kir.Pred]string{kir.PredEQ: "eq.s", kir.PredNE: "ne.s", kir.PredSLT: "lt.s", kir.PredSLE: "le.s",
		kir.PredSGT: "gt.s", kir.PredSGE: "ge.s", kir.PredULT: "lo.u", kir.PredULE: "ls.u", kir.PredUGT: "hi.u", kir.PredUGE: "hs.u"}
	name, ok := names[p]
	if !ok {
		e.failf(status.Internal, "op %d: bad integer predicate %d", e.opNo, p)
	}
	r := e.reg(clsPred)
	e.ins("setp.%s%s %s, %s, %s", name, w, r, a, b)
	return r
}
