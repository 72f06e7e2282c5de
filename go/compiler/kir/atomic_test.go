package kir

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/status"
)

// atomicKernel has 64 threads in each of its workgroups set bit tid mod
// 32 of word tid / 32 + 2·wg of binding 0 with an atomic or, then clear
// bit (tid+1) mod 32 of word 4·wgs + tid/32 + 2·wg with an and.
func atomicKernel() *Kernel {
	k, b := NewKernel("atomics")
	k.WorkgroupSize = [3]int{64, 1, 1}
	k.Bindings = []Binding{{Elem: I32, Access: Write}}
	tid := b.Query(ThreadID, 0)
	base := b.Bin(Mul, b.Query(WorkgroupID, 0), b.Idx(2))
	word := b.Bin(Add, base, b.Bin(ShrU, tid, b.Idx(5)))
	bit := b.Emit(TruncI, S(I32), b.Bin(And, tid, b.Idx(31)))
	one := b.Int(S(I32), 1)
	b.AtomicRMW(0, AtomicOr, word, b.Bin(Shl, one, bit))
	bit1 := b.Bin(And, b.Bin(Add, bit, one), b.Int(S(I32), 31))
	word2 := b.Bin(Add, word, b.Bin(Mul, b.Query(WorkgroupCount, 0), b.Idx(2)))
	b.AtomicRMW(0, AtomicAnd, word2, b.Bin(Xor, b.Bin(Shl, one, bit1), b.Int(S(I32), -1)))
	return k
}

func TestAtomicRMW(t *testing.T) {
	k := atomicKernel()
	const wgs = 3
	buf := make([]byte, 4*4*wgs)
	for i := 4 * 2 * wgs; i < len(buf); i++ {
		buf[i] = 0xff
	}
	for rep := 0; rep < 5; rep++ {
		b := append([]byte(nil), buf...)
		if err := Run(k, [3]int64{wgs, 1, 1}, nil, [][]byte{b}); err != nil {
			t.Fatal(err)
		}
		for w := 0; w < 4*wgs; w++ {
			want := uint32(0xffffffff) // every bit set, then every bit cleared
			if w >= 2*wgs {
				want = 0
			}
			if got := binary.LittleEndian.Uint32(b[4*w:]); got != want {
				t.Fatalf("word %d: %#x, want %#x", w, got, want)
			}
		}
	}
	if s := k.String(); !strings.Contains(s, "atomic_rmw or %") || !strings.Contains(s, "atomic_rmw and %") {
		t.Fatalf("printed:\n%s", s)
	}
	// Out of bounds: reported.
	err := Run(k, [3]int64{wgs, 1, 1}, nil, [][]byte{make([]byte, 4*4*wgs-1)})
	if err != nil {
		t.Fatalf("the partial last word is addressable: %v", err)
	}
	err = Run(k, [3]int64{wgs, 1, 1}, nil, [][]byte{make([]byte, 4*3*wgs)})
	if status.CodeOf(err) != status.OutOfRange || !strings.Contains(err.Error(), "atomic_rmw") {
		t.Fatalf("got %v, want an OUT_OF_RANGE error of the atomic", err)
	}
}

func TestAtomicRMWVerify(t *testing.T) {
	bad := map[string]func(k *Kernel, b *Builder){
		"read-only": func(k *Kernel, b *Builder) {
			k.Bindings[0].Access = Read
			b.AtomicRMW(0, AtomicOr, b.Idx(0), b.Int(S(I32), 1))
		},
		"i8 binding": func(k *Kernel, b *Builder) {
			k.Bindings[0].Elem = I8
			b.AtomicRMW(0, AtomicOr, b.Idx(0), b.Int(S(I8), 1))
		},
		"vector": func(k *Kernel, b *Builder) {
			b.AtomicRMW(0, AtomicOr, b.Idx(0), b.Int(V(I32, 2), 1))
		},
		"kind": func(k *Kernel, b *Builder) {
			b.AtomicRMW(0, AtomicKind(7), b.Idx(0), b.Int(S(I32), 1))
		},
		// (An i32 offset is an index too: IsIndexType.)
		"i16 offset": func(k *Kernel, b *Builder) {
			b.AtomicRMW(0, AtomicOr, b.Int(S(I16), 0), b.Int(S(I32), 1))
		},
	}
	for name, f := range bad {
		k, b := NewKernel(name)
		k.Bindings = []Binding{{Elem: I32, Access: Write}}
		f(k, b)
		if err := Verify(k); err == nil {
			t.Errorf("%s: verified\n%s", name, k)
		}
	}
}

// TestPartialElements loads and stores the partial last element of a
// buffer whose length is not a multiple of the element size: the bytes
// past the end read as zero and are not written.
func TestPartialElements(t *testing.T) {
	k, b := NewKernel("partial")
	k.Bindings = []Binding{{Elem: I32, Access: Read}, {Elem: I32, Access: Write}}
	x := b.Load(0, V(I32, 2), b.Idx(0))
	b.Store(1, b.Idx(0), b.Bin(Add, x, b.Int(V(I32, 2), 0x01010101)))
	in := []byte{1, 2, 3, 4, 5, 6, 7}
	out := make([]byte, 7)
	if err := Run(k, [3]int64{1, 1, 1}, nil, [][]byte{in, out}); err != nil {
		t.Fatal(err)
	}
	if want := []byte{2, 3, 4, 5, 6, 7, 8}; string(out) != string(want) {
		t.Fatalf("got %v, want %v", out, want)
	}
	if err := Run(k, [3]int64{1, 1, 1}, nil, [][]byte{in[:4], out}); status.CodeOf(err) != status.OutOfRange {
		t.Fatalf("got %v, want OUT_OF_RANGE past the last (partial) element", err)
	}
}
