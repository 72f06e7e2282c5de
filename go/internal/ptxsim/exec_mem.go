package ptxsim

import (
	"math"

	"github.com/gree-ml/gree/go/status"
)

func (w *worker) address(in *inst, r []uint64) uint64 {
	a := r[in.a]
	if in.addr32 {
		a = uint64(uint32(a))
	}
	return a + uint64(in.off)
}

// access executes ld and st on global (or generic) and shared memory.
func (w *worker) access(t *thread, in *inst, r []uint64) error {
	addr := w.address(in, r)
	size := in.t.size()
	n := int(in.nvec)
	if addr%uint64(size*n) != 0 {
		return w.errf(t, in, status.InvalidArgument, "misaligned %d-byte access at address %#x", size*n, addr)
	}
	shared := in.op == opLdShared || in.op == opStShared
	if shared && (addr >= uint64(len(w.shared)) || addr+uint64(size*n) > uint64(len(w.shared))) {
		return w.errf(t, in, status.OutOfRange, "shared memory access of %d bytes at address %#x is outside the %d bytes of .shared", size*n, addr, len(w.shared))
	}
	for i := 0; i < n; i++ {
		ea := addr + uint64(i*size)
		switch in.op {
		case opLd:
			v, err := w.mem.Load(ea, size)
			if err != nil {
				return w.wrap(t, in, err)
			}
			r[in.vec[i]] = in.t.norm(v)
		case opSt:
			if err := w.mem.Store(ea, size, r[in.vec[i]]); err != nil {
				return w.wrap(t, in, err)
			}
		case opLdShared:
			r[in.vec[i]] = in.t.norm(getLE(w.shared[ea : ea+uint64(size)]))
		case opStShared:
			putLE(w.shared[ea:ea+uint64(size)], r[in.vec[i]])
		}
	}
	return nil
}

// atomFunc returns the update function of an atomic operation.
func atomFunc(in *inst, b, c uint64) func(uint64) uint64 {
	t := in.t
	m := t.mask()
	return func(old uint64) uint64 {
		switch in.sub {
		case atAnd:
			return old & b
		case atOr:
			return old | b
		case atXor:
			return old ^ b
		case atExch:
			return b
		case atCas:
			if old&m == b&m {
				return c
			}
			return old
		case atAdd:
			switch t {
			case tF32:
				x := flushF32(uint32(old))
				y := flushF32(uint32(b))
				return uint64(flushF32(uint32(f32res(math.Float32frombits(x) + math.Float32frombits(y)))))
			case tF64:
				return f64res(math.Float64frombits(old) + math.Float64frombits(b))
			}
			return old + b
		case atMin, atMax:
			var less bool
			if t.signed() {
				less = t.norm(old) != t.norm(b) && int64(t.norm(old)) < int64(t.norm(b))
			} else {
				less = old&m < b&m
			}
			if less == (in.sub == atMin) {
				return old
			}
			return b
		case atInc:
			if old&m >= b&m {
				return 0
			}
			return old + 1
		case atDec:
			if old&m == 0 || old&m > b&m {
				return b
			}
			return old - 1
		}
		return old
	}
}

// atom executes atom and red.
func (w *worker) atom(t *thread, in *inst, r []uint64) error {
	addr := w.address(in, r)
	size := in.t.size()
	if addr%uint64(size) != 0 {
		return w.errf(t, in, status.InvalidArgument, "misaligned %d-byte atomic at address %#x", size, addr)
	}
	f := atomFunc(in, r[in.b], r[in.c])
	var old uint64
	if in.space == spShared {
		if addr >= uint64(len(w.shared)) || addr+uint64(size) > uint64(len(w.shared)) {
			return w.errf(t, in, status.OutOfRange, "shared memory atomic at address %#x is outside the %d bytes of .shared", addr, len(w.shared))
		}
		b := w.shared[addr : addr+uint64(size)]
		old = getLE(b)
		putLE(b, f(old)&in.t.mask())
	} else {
		var err error
		old, err = w.mem.Atomic(addr, size, func(v uint64) uint64 { return f(v) & in.t.mask() })
		if err != nil {
			return w.wrap(t, in, err)
		}
	}
	r[in.d] = in.t.norm(old)
	return nil
}
