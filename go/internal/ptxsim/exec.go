package ptxsim

import (
	"math"

	"github.com/gree-ml/gree/go/status"
)

// Thread states.
const (
	stRun  uint8 = iota
	stBar        // waiting at bar.sync
	stWarp       // waiting at a warp-level instruction (shfl, vote, bar.warp.sync)
	stDone       // exited
)

type thread struct {
	regs  []uint64
	pc    int32
	state uint8
	loops int64 // backward branches taken
}

// run executes t until it exits or reaches a synchronizing instruction
// (whose guard is true), which is left unexecuted with t.pc at it.
func (w *worker) run(t *thread) error {
	code := w.e.code
	r := t.regs
	pc := t.pc
	var n int64
	defer func() { w.executed += n }()
	for {
		in := &code[pc]
		n++
		if in.guard >= 0 && (r[in.guard]&1 != 0) == in.gnot {
			pc++
			continue
		}
		switch in.op {
		case opNop:
		case opBra:
			npc := int32(in.off)
			if npc <= pc {
				t.loops++
				if t.loops > w.maxLoops {
					return w.errf(t, in, status.ResourceExhausted, "more than %d backward branches taken; the kernel does not seem to terminate", w.maxLoops)
				}
			}
			pc = npc
			continue
		case opExit:
			t.pc, t.state = pc, stDone
			return nil
		case opTrap:
			return w.errf(t, in, status.Aborted, "trap")
		case opBar:
			t.pc, t.state = pc, stBar
			return nil
		case opShfl, opVote, opWarpSync:
			t.pc, t.state = pc, stWarp
			return nil
		case opMov:
			r[in.d] = r[in.a] & in.mask
		case opPack:
			m := uint64(1)<<in.w - 1
			r[in.d] = r[in.a]&m | (r[in.b]&m)<<in.w
		case opUnpack:
			m := uint64(1)<<in.w - 1
			v := r[in.a]
			r[in.d] = v & m
			r[in.d2] = v >> in.w & m
		case opSelp:
			if r[in.c]&1 != 0 {
				r[in.d] = r[in.a] & in.mask
			} else {
				r[in.d] = r[in.b] & in.mask
			}
		case opAdd:
			r[in.d] = (r[in.a] + r[in.b]) & in.mask
		case opSub:
			r[in.d] = (r[in.a] - r[in.b]) & in.mask
		case opMulLo:
			r[in.d] = r[in.a] * r[in.b] & in.mask
		case opMadLo:
			r[in.d] = (r[in.a]*r[in.b] + r[in.c]) & in.mask
		case opAnd:
			r[in.d] = r[in.a] & r[in.b] & in.mask
		case opOr:
			r[in.d] = (r[in.a] | r[in.b]) & in.mask
		case opXor:
			r[in.d] = (r[in.a] ^ r[in.b]) & in.mask
		case opNot:
			r[in.d] = ^r[in.a] & in.mask
		case opShl:
			s := uint32(r[in.b])
			if s >= uint32(in.w) {
				r[in.d] = 0
			} else {
				r[in.d] = r[in.a] << s & in.mask
			}
		case opShr:
			s := uint32(r[in.b])
			if in.t.signed() {
				if s >= uint32(in.w) {
					s = uint32(in.w) - 1
				}
				r[in.d] = uint64(sext(r[in.a], in.w)>>s) & in.mask
			} else if s >= uint32(in.w) {
				r[in.d] = 0
			} else {
				r[in.d] = (r[in.a] & in.mask) >> s
			}
		case opSetpInt:
			t := setpInt(in, r[in.a], r[in.b])
			w.setPreds(in, r, t)
		case opSetpF:
			var a, b float64
			if in.t == tF32 {
				x, y := uint32(r[in.a]), uint32(r[in.b])
				if in.flags&flFtz != 0 {
					x, y = flushF32(x), flushF32(y)
				}
				a, b = float64(math.Float32frombits(x)), float64(math.Float32frombits(y))
			} else {
				a, b = math.Float64frombits(r[in.a]), math.Float64frombits(r[in.b])
			}
			w.setPreds(in, r, setpF(in.sub, a, b))
		case opFAdd32:
			r[in.d] = f32res(math.Float32frombits(uint32(r[in.a])) + math.Float32frombits(uint32(r[in.b])))
		case opFSub32:
			r[in.d] = f32res(math.Float32frombits(uint32(r[in.a])) - math.Float32frombits(uint32(r[in.b])))
		case opFMul32:
			r[in.d] = f32res(math.Float32frombits(uint32(r[in.a])) * math.Float32frombits(uint32(r[in.b])))
		case opFFma32:
			r[in.d] = f32res(fma32(math.Float32frombits(uint32(r[in.a])), math.Float32frombits(uint32(r[in.b])), math.Float32frombits(uint32(r[in.c]))))
		case opFAdd64:
			r[in.d] = f64res(math.Float64frombits(r[in.a]) + math.Float64frombits(r[in.b]))
		case opFSub64:
			r[in.d] = f64res(math.Float64frombits(r[in.a]) - math.Float64frombits(r[in.b]))
		case opFMul64:
			r[in.d] = f64res(math.Float64frombits(r[in.a]) * math.Float64frombits(r[in.b]))
		case opFFma64:
			r[in.d] = f64res(math.FMA(math.Float64frombits(r[in.a]), math.Float64frombits(r[in.b]), math.Float64frombits(r[in.c])))
		case opFArith, opFUnary:
			r[in.d] = fopBits(in, r[in.a], r[in.b], r[in.c])
		case opFMinMax:
			r[in.d] = fminmax(in, r[in.a], r[in.b])
		case opCopysign:
			r[in.d] = copysignBits(in.t, r[in.a], r[in.b])
		case opTestp:
			r[in.d] = b2u(testp(in.sub, r[in.a], in.t))
		case opCvt:
			r[in.d] = in.cvt(r[in.a])
		case opLd, opSt, opLdShared, opStShared:
			if err := w.access(t, in, r); err != nil {
				return err
			}
		case opAtom:
			if err := w.atom(t, in, r); err != nil {
				return err
			}
		default:
			if err := w.intOp(t, in, r); err != nil {
				return err
			}
		}
		pc++
	}
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func f32res(x float32) uint64 {
	if x != x {
		return nan32
	}
	return uint64(math.Float32bits(x))
}

func f64res(x float64) uint64 {
	if x != x {
		return nan64
	}
	return math.Float64bits(x)
}

// setPreds writes setp's outputs: p = t BOP c and q = !t BOP c.
func (w *worker) setPreds(in *inst, r []uint64, t bool) {
	f := !t
	if in.bop != bopNone {
		c := r[in.c]&1 != 0
		if in.flags&flNotC != 0 {
			c = !c
		}
		switch in.bop {
		case bopAnd:
			t, f = t && c, f && c
		case bopOr:
			t, f = t || c, f || c
		case bopXor:
			t, f = t != c, f != c
		}
	}
	r[in.d] = b2u(t)
	if in.d2 >= 0 {
		r[in.d2] = b2u(f)
	}
	r[0] = 0
}

func setpInt(in *inst, va, vb uint64) bool {
	signed := in.t.signed()
	c := in.sub
	switch c {
	case cmpEQ:
		return va&in.mask == vb&in.mask
	case cmpNE:
		return va&in.mask != vb&in.mask
	case cmpLO, cmpLS, cmpHI, cmpHS:
		signed = false
		c = c - cmpLO + cmpLT
	}
	var lt, eq bool
	if signed {
		a, b := sext(va, in.w), sext(vb, in.w)
		lt, eq = a < b, a == b
	} else {
		a, b := va&in.mask, vb&in.mask
		lt, eq = a < b, a == b
	}
	switch c {
	case cmpLT:
		return lt
	case cmpLE:
		return lt || eq
	case cmpGT:
		return !lt && !eq
	}
	return !lt // GE
}
