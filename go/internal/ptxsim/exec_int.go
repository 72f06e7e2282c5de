package ptxsim

import (
	"math"
	"math/bits"

	"github.com/gree-ml/gree/go/status"
)

// intOp executes the less common integer instructions.
func (w *worker) intOp(t *thread, in *inst, r []uint64) error {
	wd := in.w
	m := in.mask
	a, b := r[in.a], r[in.b]
	signed := in.t.signed()
	var res uint64
	switch in.op {
	case opAddSat, opSubSat:
		x, y := int64(int32(a)), int64(int32(b))
		v := x + y
		if in.op == opSubSat {
			v = x - y
		}
		v = max(math.MinInt32, min(math.MaxInt32, v))
		res = uint64(v) & m
	case opMulHi, opMadHi:
		res = mulHi(a, b, wd, signed)
		if in.op == opMadHi {
			res += r[in.c]
		}
		res &= m
	case opMulWide, opMadWide:
		if signed {
			res = uint64(sext(a, wd) * sext(b, wd))
		} else {
			res = (a & m) * (b & m)
		}
		if in.op == opMadWide {
			res += r[in.c]
		}
		if wd == 16 {
			res &= 0xffffffff
		}
	case opDiv, opRem:
		if b&m == 0 {
			return w.errf(t, in, status.InvalidArgument, "division by zero")
		}
		if signed {
			x, y := sext(a, wd), sext(b, wd)
			if y == -1 {
				// x / -1 wraps for the minimum; x % -1 is 0.
				if in.op == opDiv {
					res = uint64(-x) & m
				}
			} else if in.op == opDiv {
				res = uint64(x/y) & m
			} else {
				res = uint64(x%y) & m
			}
		} else if in.op == opDiv {
			res = (a & m) / (b & m)
		} else {
			res = (a & m) % (b & m)
		}
	case opCnot:
		res = b2u(a&m == 0)
	case opMin, opMax:
		var less bool
		if signed {
			less = sext(a, wd) < sext(b, wd)
		} else {
			less = a&m < b&m
		}
		if less == (in.op == opMin) {
			res = a & m
		} else {
			res = b & m
		}
	case opNeg:
		res = -a & m
	case opAbs:
		x := sext(a, wd)
		if x < 0 {
			x = -x
		}
		res = uint64(x) & m
	case opPopc:
		res = uint64(bits.OnesCount64(a & m))
	case opClz:
		res = uint64(bits.LeadingZeros64(a&m) - (64 - int(wd)))
	case opBrev:
		res = bits.Reverse64(a&m) >> (64 - wd)
	case opBfind:
		x := a & m
		if signed && sext(a, wd) < 0 {
			x = ^a & m
		}
		if x == 0 {
			res = 0xffffffff
		} else {
			pos := uint64(bits.Len64(x) - 1)
			if in.flags&flShiftAmt != 0 {
				pos = uint64(wd) - 1 - pos
			}
			res = pos
		}
	case opBfe:
		res = bfe(a, uint32(b)&0xff, uint32(r[in.c])&0xff, wd, signed)
	case opBfi:
		pos, ln := uint32(r[in.c])&0xff, uint32(r[in.e])&0xff
		res = b & m
		for i := uint32(0); i < ln && pos+i < uint32(wd); i++ {
			bit := uint64(1) << (pos + i)
			res = res&^bit | (a>>i&1)<<(pos+i)
		}
	default:
		return w.errf(t, in, status.Internal, "unhandled opcode %d", in.op)
	}
	r[in.d] = res
	return nil
}

func mulHi(a, b uint64, wd uint8, signed bool) uint64 {
	if wd < 64 {
		if signed {
			return uint64(sext(a, wd) * sext(b, wd) >> wd)
		}
		m := uint64(1)<<wd - 1
		return (a & m) * (b & m) >> wd
	}
	hi, _ := bits.Mul64(a, b)
	if signed {
		// Signed correction of the unsigned high word.
		if int64(a) < 0 {
			hi -= b
		}
		if int64(b) < 0 {
			hi -= a
		}
	}
	return hi
}

func bfe(a uint64, pos, ln uint32, wd uint8, signed bool) uint64 {
	msb := uint32(wd) - 1
	var sbit uint64
	if signed && ln != 0 {
		top := pos + ln - 1
		if top > msb {
			top = msb
		}
		sbit = a >> top & 1
	}
	var d uint64
	for i := uint32(0); i <= msb; i++ {
		bit := sbit
		if i < ln && pos+i <= msb {
			bit = a >> (pos + i) & 1
		}
		d |= bit << i
	}
	return d
}
