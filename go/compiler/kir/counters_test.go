package kir_test

import (
	"encoding/binary"
	"strings"
	"testing"

	. "github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/targettest"
	"github.com/gree-ml/gree/go/status"
)

func TestCounters(t *testing.T) {
	k := targettest.Tickets()
	const n = 6
	cnt, out := make([]byte, 4*32), make([]byte, 4*n*targettest.TicketRow)
	if err := Run(k, [3]int64{3, 1, 1}, []int64{n}, [][]byte{cnt, out}); err != nil {
		t.Fatal(err)
	}
	for r := 0; r < n; r++ {
		for i := 0; i < targettest.TicketRow; i++ {
			if got, want := int32(binary.LittleEndian.Uint32(out[4*(r*targettest.TicketRow+i):])), int32(i+r+1); got != want {
				t.Fatalf("row %d element %d: %d, want %d", r, i, got, want)
			}
		}
	}
	// Three workgroups took n tickets each; n were done.
	if claim, done := binary.LittleEndian.Uint32(cnt), binary.LittleEndian.Uint32(cnt[64:]); claim != 3*n || done != n {
		t.Fatalf("counters %d, %d; want %d, %d", claim, done, 3*n, n)
	}
	if s := k.String(); !strings.Contains(s, "fetch_add %") || !strings.Contains(s, "spin_until b0[") {
		t.Fatalf("printed:\n%s", s)
	}
	// A wait no earlier workgroup can end is an error, not a hang.
	w, b := NewKernel("stuck")
	w.Bindings = []Binding{{Elem: I32, Access: ReadWrite}}
	b.SpinUntil(0, b.Idx(0), b.Int(S(I32), 1))
	err := Run(w, [3]int64{1, 1, 1}, nil, [][]byte{make([]byte, 4)})
	if status.CodeOf(err) != status.FailedPrecondition || !strings.Contains(err.Error(), "spin_until") {
		t.Fatalf("got %v, want a FAILED_PRECONDITION error of the wait", err)
	}
}

func TestCountersVerify(t *testing.T) {
	for name, build := range map[string]func(b *Builder){
		"f32 counter": func(b *Builder) { b.FetchAdd(1, b.Idx(0), b.Int(S(I32), 1)) },
		"read only":   func(b *Builder) { b.SpinUntil(2, b.Idx(0), b.Int(S(I32), 1)) },
		"i64 operand": func(b *Builder) { b.FetchAdd(0, b.Idx(0), b.Idx(1)) },
	} {
		k, b := NewKernel("bad")
		k.Bindings = []Binding{{Elem: I32, Access: ReadWrite}, {Elem: F32, Access: ReadWrite}, {Elem: I32, Access: Read}}
		build(b)
		if err := Verify(k); err == nil {
			t.Errorf("%s: verified", name)
		}
	}
}
