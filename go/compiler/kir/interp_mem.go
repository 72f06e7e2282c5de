package kir

import (
	"encoding/binary"
	"math/bits"

	"github.com/gree-ml/gree/go/status"
)

// elemCount returns the number of elements of type s in buf, a partial
// last element included (see the package documentation).
func elemCount(buf []byte, s Scalar) int64 {
	n := s.ByteSize()
	return int64((len(buf) + n - 1) / n)
}

// partial reports whether element i of buf (elements of type s) is the
// partial last one, cut short by the end of the buffer.
func partial(buf []byte, s Scalar, i int64) bool {
	return (i+1)*int64(s.ByteSize()) > int64(len(buf))
}

// readElem decodes element i of buf (elements of type s, little-endian);
// the bytes of a partial last element past the buffer's end read as zero.
func readElem(buf []byte, s Scalar, i int64) uint64 {
	if partial(buf, s, i) {
		var tmp [8]byte
		copy(tmp[:], buf[i*int64(s.ByteSize()):])
		return readElem(tmp[:], s, 0)
	}
	switch s.ByteSize() {
	case 1:
		if s == I1 {
			return sext(uint64(buf[i]&1), 1)
		}
		return sext(uint64(buf[i]), 8)
	case 2:
		x := uint64(binary.LittleEndian.Uint16(buf[2*i:]))
		if s.IsInt() {
			return sext(x, 16)
		}
		return x
	case 4:
		x := uint64(binary.LittleEndian.Uint32(buf[4*i:]))
		if s.IsInt() {
			return sext(x, 32)
		}
		return x
	}
	return binary.LittleEndian.Uint64(buf[8*i:])
}

// writeElem encodes x as element i of buf; of a partial last element
// only the bytes within the buffer are written.
func writeElem(buf []byte, s Scalar, i int64, x uint64) {
	if partial(buf, s, i) {
		var tmp [8]byte
		writeElem(tmp[:], s, 0, x)
		copy(buf[i*int64(s.ByteSize()):], tmp[:])
		return
	}
	switch s.ByteSize() {
	case 1:
		if s == I1 {
			x &= 1
		}
		buf[i] = byte(x)
	case 2:
		binary.LittleEndian.PutUint16(buf[2*i:], uint16(x))
	case 4:
		binary.LittleEndian.PutUint32(buf[4*i:], uint32(x))
	default:
		binary.LittleEndian.PutUint64(buf[8*i:], x)
	}
}

// tileMem returns the bytes and element type of a tile op's memory
// operand b (Kernel.TileMem).
func (t *thread) tileMem(b int) ([]byte, Scalar) {
	e, shared, _ := t.m.k.TileMem(b)
	if shared >= 0 {
		return t.m.shared[shared], e
	}
	return t.m.bindings[b], e
}

// buffer returns the bytes and element type op addresses.
func (t *thread) buffer(op *Op) ([]byte, Scalar, string) {
	switch op.Kind {
	case LoadShared, StoreShared:
		return t.m.shared[op.Binding], t.m.k.Shared[op.Binding].Elem, "shared allocation"
	}
	return t.m.bindings[op.Binding], t.m.k.Bindings[op.Binding].Elem, "binding"
}

// span checks that lanes elements at off, off+stride, … lie in a buffer of
// count elements.
func (t *thread) span(op *Op, what string, off, stride int64, lanes int, count int64) error {
	last := off
	e, ok := extent(int64(lanes), stride)
	if ok && off >= 0 && off < count {
		last = off + e
	}
	if !ok || off < 0 || off >= count || last < 0 || last >= count {
		return t.errf(status.OutOfRange, op, "%s %d: offset %d (%d lanes, stride %d) is outside its %d elements", what, op.Binding, off, lanes, stride, count)
	}
	return nil
}

// extent returns (n-1)*s, the distance from the first to the last of n
// elements s apart, and false when its magnitude reaches 2^60.
func extent(n, s int64) (int64, bool) {
	if n <= 1 {
		return 0, true
	}
	as := uint64(s)
	if s < 0 {
		as = -as
	}
	hi, lo := bits.Mul64(uint64(n-1), as)
	if hi != 0 || lo >= 1<<60 {
		return 0, false
	}
	if s < 0 {
		return -int64(lo), true
	}
	return int64(lo), true
}

// memOp executes memory, thread-level and tile ops.
func (t *thread) memOp(op *Op, rt Type) error {
	switch op.Kind {
	case Load, LoadStrided, LoadShared:
		buf, s, what := t.buffer(op)
		off, stride := t.scalar(op.Args[0]), int64(1)
		if op.Kind == LoadStrided {
			stride = t.scalar(op.Args[1])
		}
		if err := t.span(op, what, off, stride, rt.Width(), elemCount(buf, s)); err != nil {
			return err
		}
		if unlock := t.lockBindings(op); unlock != nil {
			defer unlock()
		}
		r := make([]uint64, rt.Width())
		for i := range r {
			r[i] = readElem(buf, s, off+int64(i)*stride)
		}
		t.vals[op.Results[0]] = r
	case Store, StoreStrided, StoreShared:
		buf, s, what := t.buffer(op)
		off, stride := t.scalar(op.Args[0]), int64(1)
		if op.Kind == StoreStrided {
			stride = t.scalar(op.Args[1])
		}
		val := t.vals[op.Args[len(op.Args)-1]]
		if err := t.span(op, what, off, stride, len(val), elemCount(buf, s)); err != nil {
			return err
		}
		if unlock := t.lockBindings(op); unlock != nil {
			defer unlock()
		}
		for i, x := range val {
			writeElem(buf, s, off+int64(i)*stride, x)
		}
	case AtomicRMW:
		buf := t.m.bindings[op.Binding]
		off := t.scalar(op.Args[0])
		if err := t.span(op, "binding", off, 1, 1, elemCount(buf, I32)); err != nil {
			return err
		}
		x := t.vals[op.Args[1]][0]
		t.m.mu.Lock()
		old := readElem(buf, I32, off)
		switch AtomicKind(op.Imm) {
		case AtomicAnd:
			old &= x
		case AtomicOr:
			old |= x
		}
		writeElem(buf, I32, off, old)
		t.m.mu.Unlock()
	case FetchAdd, SpinUntil:
		buf := t.m.bindings[op.Binding]
		off := t.scalar(op.Args[0])
		if err := t.span(op, "binding", off, 1, 1, elemCount(buf, I32)); err != nil {
			return err
		}
		x := int32(t.vals[op.Args[1]][0])
		t.m.mu.Lock()
		old := int32(readElem(buf, I32, off))
		if op.Kind == FetchAdd {
			writeElem(buf, I32, off, uint64(uint32(old+x)))
		}
		t.m.mu.Unlock()
		if op.Kind == FetchAdd {
			t.vals[op.Results[0]] = []uint64{uint64(int64(old))}
		} else if old < x {
			// Workgroups run one after another here: a count not yet
			// reached never will be.
			return status.Errorf(status.FailedPrecondition, "%s waits for b%d[%d] to reach %d, at %d, which no earlier workgroup brought it to (workgroups run one after another)", op.Kind, op.Binding, off, x, old)
		}
	case Barrier:
		if t.m.groups != nil {
			_, err := t.m.groups.meet(t, -1, op, nil)
			return err
		}
	case SubgroupReduce:
		all, err := t.subgroup(op)
		if err != nil {
			return err
		}
		acc := all[0][0]
		for _, x := range all[1:] {
			acc = reduceLane(ReduceKind(op.Imm), rt.Elem, acc, x[0])
		}
		t.vals[op.Results[0]] = []uint64{acc}
	case SubgroupShuffle:
		all, err := t.subgroup(op)
		if err != nil {
			return err
		}
		n := int64(len(all))
		lane := (t.scalar(op.Args[1])%n + n) % n
		t.vals[op.Results[0]] = all[lane]
	case Contract:
		return t.contract(op)
	case DWConv:
		return t.dwconv(op)
	default:
		return t.errf(status.Internal, op, "not implemented by the interpreter")
	}
	return nil
}

// lockBindings takes the lock of binding memory for a load or store of a
// binding in a kernel with atomics, whose threads (goroutines) may write
// other bytes of the words it reads; it returns the unlock, or nil when
// no lock is needed.
func (t *thread) lockBindings(op *Op) func() {
	if !t.m.atomics || t.m.groups == nil || op.Kind == LoadShared || op.Kind == StoreShared {
		return nil
	}
	t.m.mu.Lock()
	return t.m.mu.Unlock
}

// subgroup exchanges the first operand of op with the other threads of
// this thread's subgroup and returns all of their values in lane order.
func (t *thread) subgroup(op *Op) ([][]uint64, error) {
	v := t.vals[op.Args[0]]
	if t.m.groups == nil {
		return [][]uint64{v}, nil
	}
	return t.m.groups.meet(t, t.linear/t.m.sgSize, op, v)
}

// contract executes C += A·B (C = A·B with ContractZero).
func (t *thread) contract(op *Op) error {
	var a [12]int64
	for i := range a {
		a[i] = t.scalar(op.Args[i])
	}
	m, n, kk := a[9], a[10], a[11]
	zero := op.Imm&ContractZero != 0
	if m <= 0 || n <= 0 || (kk <= 0 && !zero && op.Imm&contractEpilogueFlags == 0) {
		return nil
	}
	epi, err := t.contractEpilogue(op, m, n)
	if err != nil {
		return err
	}
	kk = max(kk, 0)
	var bufs [3][]byte
	var elems [3]Scalar
	for i, b := range op.Bindings {
		bufs[i], elems[i] = t.tileMem(b)
		if kk == 0 && i < 2 {
			continue // A and B are not read
		}
		count := int64(len(bufs[i]) / elems[i].ByteSize())
		rows, cols := [3]int64{m, kk, m}[i], [3]int64{kk, n, n}[i]
		off, rs, cs := a[3*i], a[3*i+1], a[3*i+2]
		if err := t.tileSpan(op, b, off, rs, cs, rows, cols, count); err != nil {
			return err
		}
	}
	cs := elems[2]
	unsigned := op.Imm&ContractUnsigned != 0
	conv := func(x uint64, from Scalar) uint64 {
		if cs.IsFloat() {
			if from == cs {
				return x
			}
			return fromF(cs, toF(from, x))
		}
		if unsigned {
			return sext(zext(x, from.Bits()), cs.Bits())
		}
		return sext(x, cs.Bits())
	}
	for i := int64(0); i < m; i++ {
		for j := int64(0); j < n; j++ {
			ci := a[6] + i*a[7] + j*a[8]
			var acc uint64 // +0 in every element type
			if !zero {
				acc = readElem(bufs[2], cs, ci)
			}
			for p := int64(0); p < kk; p++ {
				x := conv(readElem(bufs[0], elems[0], a[0]+i*a[1]+p*a[2]), elems[0])
				y := conv(readElem(bufs[1], elems[1], a[3]+p*a[4]+j*a[5]), elems[1])
				if cs.IsFloat() {
					acc = floatBin(Add, cs, acc, floatBin(Mul, cs, x, y))
				} else {
					acc = intBin(Add, cs.Bits(), acc, intBin(Mul, cs.Bits(), x, y))
				}
			}
			if epi != nil {
				acc = epi(i, j, acc)
			}
			writeElem(bufs[2], cs, ci, acc)
		}
	}
	return nil
}

// tileSpan checks that a rows×cols tile at off with strides rs, cs lies in
// a buffer of count elements.
func (t *thread) tileSpan(op *Op, b int, off, rs, cs, rows, cols, count int64) error {
	er, ok1 := extent(rows, rs)
	ec, ok2 := extent(cols, cs)
	lo, hi := off, off
	if ok1 && ok2 && off >= 0 && off < count {
		for _, e := range [2]int64{er, ec} {
			if e < 0 {
				lo += e
			} else {
				hi += e
			}
		}
	}
	if !ok1 || !ok2 || off < 0 || off >= count || lo < 0 || hi >= count {
		return t.errf(status.OutOfRange, op, "binding %d: tile %dx%d at offset %d (strides %d, %d) is outside its %d elements", b, rows, cols, off, rs, cs, count)
	}
	return nil
}
