package vmvx

import (
	"math"

	"github.com/gree-ml/gree/go/schemas/vmvx"
)

// f16 and bf16 arithmetic is f32 arithmetic: the operands are widened
// (exactly) into f32 scratch areas of the frame, the f32 handler runs, and
// a half-typed result is rounded back to nearest even. Ops that only move
// bits (mov, select, broadcast, extract, insert, loads, stores, negf, absf,
// bitcast) work on the uint16 bits directly.

// halfArg is one operand to widen into scratch.
type halfArg struct {
	src, dst uint32
	n        int
	bf       bool
}

// halfOp is the plan of a wrapped f16/bf16 instruction.
type halfOp struct {
	widen    []halfArg
	inner    *inst
	narrow   bool   // the result is half: round inner's f32 result into d
	narrowBF bool   // … to bf16 rather than f16
	scratch  uint32 // where inner writes a half result
}

func halfWrap(t *thread, in *inst) error {
	h := in.half
	for _, w := range h.widen {
		widenHalf(vec[uint16](t, w.src, w.n), vec[float32](t, w.dst, w.n), w.bf)
	}
	if err := h.inner.fn(t, h.inner); err != nil {
		return err
	}
	if h.narrow {
		narrowHalf(vec[float32](t, h.scratch, in.n), vec[uint16](t, in.d, in.n), h.narrowBF)
	}
	return nil
}

func widenHalf(src []uint16, dst []float32, bf bool) {
	dst = dst[:len(src)]
	if bf {
		for i, h := range src {
			dst[i] = math.Float32frombits(uint32(h) << 16)
		}
		return
	}
	for i, h := range src {
		dst[i] = halfToF32(h)
	}
}

func narrowHalf(src []float32, dst []uint16, bf bool) {
	dst = dst[:len(src)]
	if bf {
		for i, f := range src {
			dst[i] = f32ToBF16(f)
		}
		return
	}
	for i, f := range src {
		dst[i] = f64ToF16(float64(f))
	}
}

// negHalf and absHalf flip or clear the sign bit.
func negHalf(t *thread, in *inst) error {
	d, a := vec[uint16](t, in.d, in.n), vec[uint16](t, in.a, in.n)
	for i := range d {
		d[i] = a[i] ^ 0x8000
	}
	return nil
}

func absHalf(t *thread, in *inst) error {
	d, a := vec[uint16](t, in.d, in.n), vec[uint16](t, in.a, in.n)
	for i := range d {
		d[i] = a[i] &^ 0x8000
	}
	return nil
}

// truncToHalf rounds f32 or f64 lanes to f16 or bf16 in one step.
func truncToHalf[T floats](bf bool) handler {
	return func(t *thread, in *inst) error {
		d, a := vec[uint16](t, in.d, in.n), vec[T](t, in.a, in.n)
		for i := range d {
			if bf {
				d[i] = f64ToBF16(float64(a[i]))
			} else {
				d[i] = f64ToF16(float64(a[i]))
			}
		}
		return nil
	}
}

// reduceHalf reduces f16 or bf16 lanes, rounding to the type every step.
func reduceHalf(bf bool) handler {
	return func(t *thread, in *inst) error {
		a := vec[uint16](t, in.a, in.na)
		widen := func(h uint16) float32 {
			if bf {
				return bf16ToF32(h)
			}
			return halfToF32(h)
		}
		narrow := func(f float32) uint16 {
			if bf {
				return f32ToBF16(f)
			}
			return f64ToF16(float64(f))
		}
		acc := a[0]
		for _, x := range a[1:] {
			p, q := widen(acc), widen(x)
			var r float32
			switch in.imm {
			case vmvx.ReduceAdd:
				r = p + q
			case vmvx.ReduceMul:
				r = p * q
			default:
				r = float32(minMax(float64(p), float64(q), in.imm == vmvx.ReduceMaxF, false))
			}
			acc = narrow(r)
		}
		*ptr[uint16](t, in.d) = acc
		return nil
	}
}

// wrapHalf plans a half-typed instruction: operands in halfArgs (by index
// into args) are widened into scratch, build makes the f32 instruction on
// the rewritten operands, and a half destination is narrowed back.
func (p *preparer) wrapHalf(in *inst, dst opnd, args []opnd, halfArgs []bool) error {
	h := &halfOp{}
	inner := make([]opnd, len(args))
	slot := uint32(0)
	for i, a := range args {
		inner[i] = a
		if halfArgs[i] {
			s := p.scratch(slot)
			slot++
			h.widen = append(h.widen, halfArg{src: a.off, dst: s, n: a.n(), bf: a.t.Elem == vmvx.BF16})
			inner[i] = opnd{off: s, t: vmvx.RegType{Elem: vmvx.F32, Lanes: a.t.Lanes}}
		}
	}
	innerDst := dst
	if dst.t.Elem == vmvx.F16 || dst.t.Elem == vmvx.BF16 {
		h.narrow, h.narrowBF = true, dst.t.Elem == vmvx.BF16
		h.scratch = p.scratch(3)
		innerDst = opnd{off: h.scratch, t: vmvx.RegType{Elem: vmvx.F32, Lanes: dst.t.Lanes}}
	}
	sub := *in
	sub.half = nil
	if err := p.build(&sub, innerDst, inner); err != nil {
		return err
	}
	h.inner = &sub
	in.op, in.fn, in.half = xCall, halfWrap, h
	return nil
}
