package vmvx

import (
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gree-ml/gree/go/schemas/vmvx"
)

// unalignedAtomics serializes the atomics on buffers that are not 4-byte
// aligned, where the host's atomic instructions do not apply. Alignment is
// a property of the buffer, so every atomic on one buffer takes the same
// path.
var unalignedAtomics sync.Mutex

// atomicRMW combines the i32 scalar in register b into the binding's
// element at the offset in register a (kind in imm: 0 and, 1 or),
// atomically with respect to every other atomic of the dispatch, from any
// workgroup and goroutine.
func atomicRMW(t *thread, in *inst) error {
	buf := t.run.bindings[in.bind[0]]
	off := *ptr[int64](t, in.a)
	count := int64(len(buf) / 4)
	if off < 0 || off >= count {
		return t.outOfRange(in, "binding", off, 1, count)
	}
	x := *ptr[uint32](t, in.b)
	w := buf[4*off : 4*off+4]
	p := (*uint32)(unsafe.Pointer(&w[0]))
	if uintptr(unsafe.Pointer(p))%4 != 0 {
		unalignedAtomics.Lock()
		defer unalignedAtomics.Unlock()
		for i := range w {
			b := byte(x >> (8 * i))
			if in.imm == 0 {
				w[i] &= b
			} else {
				w[i] |= b
			}
		}
		return nil
	}
	if !hostLE { // the word is little-endian in memory; and/or act bytewise
		x = bits.ReverseBytes32(x)
	}
	if in.imm == 0 {
		atomic.AndUint32(p, x)
	} else {
		atomic.OrUint32(p, x)
	}
	return nil
}

// WholeElements returns the buffers to run a dispatch of entry on, and
// finish, to call once every workgroup has run. A buffer whose length is
// not a multiple of its binding's element size ends in a partial element,
// which the entry addresses like the others (a GPU-legalized kernel's
// packed binding of 7 i8 elements is two i32 words): it is replaced by a
// zero-padded copy, whose bytes finish copies back into the buffer when
// the entry writes it. Other buffers are passed through as they are.
func (x *Executable) WholeElements(entry int, bindings [][]byte) ([][]byte, func()) {
	if entry < 0 || entry >= len(x.progs) || len(bindings) != len(x.progs[entry].entry.Bindings) {
		return bindings, func() {} // RunWorkgroup reports the mismatch
	}
	var out [][]byte
	var back []int
	for i, b := range x.progs[entry].entry.Bindings {
		size := b.Elem.ByteSize()
		buf := bindings[i]
		if size <= 1 || len(buf)%size == 0 {
			continue
		}
		if out == nil {
			out = append([][]byte(nil), bindings...)
		}
		c := make([]byte, (len(buf)+size-1)/size*size)
		copy(c, buf)
		out[i] = c
		if b.Access&vmvx.Write != 0 {
			back = append(back, i)
		}
	}
	if out == nil {
		return bindings, func() {}
	}
	return out, func() {
		for _, i := range back {
			copy(bindings[i], out[i])
		}
	}
}
