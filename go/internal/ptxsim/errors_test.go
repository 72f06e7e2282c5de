package ptxsim

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/gree-ml/gree/go/status"
)

func TestLoadErrors(t *testing.T) {
	body := func(lines string) string {
		return ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n" +
			"\t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n" + lines + "\n}\n"
	}
	cases := []struct {
		src  string
		want []string
	}{
		{body("\tadd.s32 %r1, %r2 %r3;"), []string{"line 9", `expected ";"`}},
		{body("\tfrobnicate.u32 %r1, %r2;"), []string{"line 9", "unknown instruction", "frobnicate.u32"}},
		{body("\tadd.s32 %r1, %r2, %r9;"), []string{"line 9", "undeclared register %r9"}},
		{body("\tbra $Lnowhere;"), []string{"line 9", "unknown label"}},
		{body("\tadd.s32.wibble %r1, %r2, %r3;"), []string{"line 9", "unsupported modifier .wibble"}},
		{body("\tadd.s32 %r1, %r2;"), []string{"line 9", "wrong number of operands"}},
		{body("\n\n\tld.local.u32 %r1, [%rd1];"), []string{"line 11", "state space .local"}},
		{body("\tcvt.rzi.f32.s32 %r1, %r2;"), []string{"line 9", "needs .rn"}},
		{body("\tcvt.f16.f32 %r1, %r2;"), []string{"line 9", "narrowing"}},
		{body("\tmov.f32 %r1, 0;"), []string{"line 9", "integer literal"}},
		{body("\tmov.pred %p1, 2;"), []string{"line 9", "not 0 or 1"}},
		{body("\tcvt.s32.f32 %r1, %r2;"), []string{"line 9", "needs .rni"}},
		{body("\tsetp.ltu.s32 %p1, %r1, %r2;"), []string{"line 9", "unordered"}},
		{body("\tld.param.u64 %rd1, [nope];"), []string{"line 9", "ld.param"}},
		{body("\tbar.sync 1;"), []string{"line 9", "barrier 0"}},
		{body("\tmov.f32 %r1, -0f3F800000;"), []string{"line 9", "cannot be negated"}},
		{body("\tadd.s32 %r1, %r2, 0zz;"), []string{"line 9", "bad integer literal"}},
		{body("\t/* unterminated"), []string{"line 9", "unterminated"}},
		{body("\tadd.s32 %r1, %r2, #;"), []string{"line 9", "unexpected character"}},
		{".version 8.0\n.target sm_80\n.address_size 32\n", []string{"line 3", "address_size 64"}},
		{".version 8.0\n.func f()\n{\n}\n", []string{"line 2", ".func"}},
		{".visible .entry k(.param .u32 p)\n{\n}\n", []string{"line 1", ".u64"}},
		{".visible .entry k()\n{\n\tret;\n", []string{"missing closing"}},
		{body("L1:\nL1:\n\tret;"), []string{"line 10", "defined twice"}},
		{body("\tshfl.sync.bfly.b32 %r1, %r2, 1, 31;"), []string{"line 9", "wrong number of operands"}},
		{body("\tshfl.bfly.b32 %r1, %r2, 1, 31;"), []string{"line 9", ".sync"}},
		{body("\tpopc.b32 %r1, %rd1;"), []string{"line 9", "%rd1 (64 bits) does not match"}},
		{body("\tadd.s32 %r1, %p1, %r2;"), []string{"line 9", "predicate %p1"}},
		{body("\tselp.b32 %r1, %r2, %r3, %r1;"), []string{"line 9", "not a .pred"}},
		{body("\tld.global.f32 %rd1, [%rd2];"), []string{"line 9", "does not match"}},
		{body("\ttestp.nan.f32 %p1, %r1;"), []string{"line 9", "testp"}},
	}
	for i, c := range cases {
		_, err := Load(c.src)
		if err == nil {
			t.Errorf("case %d: Load succeeded, want error containing %q", i, c.want)
			continue
		}
		if status.CodeOf(err) != status.InvalidArgument {
			t.Errorf("case %d: code %v", i, status.CodeOf(err))
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("case %d: error %q does not contain %q", i, err, w)
			}
		}
	}
}

func TestLaunchErrors(t *testing.T) {
	m := loadFile(t, "vecadd.ptx")
	ar := NewArena()
	wantErr(t, m.Launch("nope", [3]int{1, 1, 1}, [3]int{1, 1, 1}, nil, ar), status.NotFound, "nope")
	p := make([]uint64, 4)
	wantErr(t, m.Launch("vecadd", [3]int{1, 1, 1}, [3]int{2048, 1, 1}, p, ar), status.InvalidArgument, "1024")
	wantErr(t, m.Launch("vecadd", [3]int{0, 1, 1}, [3]int{1, 1, 1}, p, ar), status.InvalidArgument, "dimensions")
	wantErr(t, m.Launch("vecadd", [3]int{1, 1, 1}, [3]int{1, 1, 1}, p, nil), status.InvalidArgument, "memory")
	// Address 0 through the Arena: an error naming the address.
	wantErr(t, m.Launch("vecadd", [3]int{1, 1, 1}, [3]int{1, 1, 1}, []uint64{0, 0, 0, 1}, ar), status.OutOfRange, "address 0x0")
}

func TestArena(t *testing.T) {
	ar := NewArena()
	a := ar.Alloc([]byte{1, 2, 3, 4, 5})
	b := ar.Alloc(nil)
	c := ar.Alloc(make([]byte, 1000))
	for _, p := range []uint64{a, b, c} {
		if p == 0 || p%256 != 0 {
			t.Errorf("address %#x not 256-aligned", p)
		}
	}
	if a == b || b == c {
		t.Errorf("addresses not distinct: %#x %#x %#x", a, b, c)
	}
	if v, err := ar.Load(a+2, 2); err != nil || v != 0x0403 {
		t.Errorf("Load = %#x, %v", v, err)
	}
	if err := ar.Store(a+4, 1, 9); err != nil || ar.Bytes(a)[4] != 9 {
		t.Errorf("Store: %v", err)
	}
	if _, err := ar.Load(a+4, 4); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%#x", a+4)) {
		t.Errorf("straddling load: %v", err)
	}
	if _, err := ar.Load(a+1, 2); err == nil || !strings.Contains(err.Error(), "misaligned") {
		t.Errorf("misaligned load: %v", err)
	}
	if _, err := ar.Load(b, 1); err == nil {
		t.Error("load from an empty allocation succeeded")
	}
	if got := ar.Bytes(a + 2); len(got) != 3 || got[0] != 3 {
		t.Errorf("Bytes(a+2) = %v", got)
	}
	ar.Free(a)
	if _, err := ar.Load(a, 1); err == nil {
		t.Error("load after Free succeeded")
	}
}

func TestHostMemory(t *testing.T) {
	m := loadFile(t, "vecadd.ptx")
	a := []float32{1, 2, 3}
	b := []float32{10, 20, 30}
	c := make([]float32, 3)
	addr := func(p *float32) uint64 { return uint64(uintptr(unsafe.Pointer(p))) }
	mem := NewHostMemory()
	launch(t, m, "vecadd", [3]int{1, 1, 1}, [3]int{32, 1, 1}, []uint64{addr(&a[0]), addr(&b[0]), addr(&c[0]), 3}, mem)
	for i := range c {
		if c[i] != a[i]+b[i] {
			t.Errorf("c[%d] = %v", i, c[i])
		}
	}
	err := m.Launch("vecadd", [3]int{1, 1, 1}, [3]int{1, 1, 1}, []uint64{0, 0, 0, 1}, mem)
	wantErr(t, err, status.OutOfRange, "0x0")
	// An unmapped host address faults into an error, not a crash.
	err = m.Launch("vecadd", [3]int{1, 1, 1}, [3]int{1, 1, 1}, []uint64{0x10000, 0x10000, 0x10000, 1}, mem)
	wantErr(t, err, status.OutOfRange, "0x10000")
	// Atomics on host memory.
	at := loadFile(t, "atomics.ptx")
	ctr := make([]uint32, 8)
	ctr[2] = 0xffffffff
	launch(t, at, "atomics", [3]int{8, 1, 1}, [3]int{64, 1, 1}, []uint64{uint64(uintptr(unsafe.Pointer(&ctr[0])))}, mem)
	if ctr[0] != 512 || ctr[1] != 0xffffffff || ctr[2] != 0 || ctr[4] != 512 || ctr[7] != 1024 {
		t.Errorf("host atomics: %v", ctr)
	}
}

// TestLoadNeverPanics feeds Load randomly damaged versions of the test
// kernels: it must return errors (or modules), never panic.
func TestLoadNeverPanics(t *testing.T) {
	var srcs []string
	for _, f := range []string{"vecadd.ptx", "reduce.ptx", "warp.ptx", "atomics.ptx", "loops.ptx"} {
		b, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, string(b))
	}
	rng := rand.New(rand.NewSource(4))
	junk := []string{"", " ", ";", ",", "{", "}", "[", "]", "<", ">", "|", "!", "@", "-", "+", ".", "%r1", "0f", "0x", "9999999999999999999999", ".v4", ".b8", "_", ":", "/*", "\"", "%"}
	for i := 0; i < 3000; i++ {
		s := srcs[i%len(srcs)]
		for k := 0; k < 1+rng.Intn(4); k++ {
			p := rng.Intn(len(s))
			q := min(len(s), p+rng.Intn(12))
			s = s[:p] + junk[rng.Intn(len(junk))] + s[q:]
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("Load panicked: %v\n%s", r, s)
				}
			}()
			m, err := Load(s)
			if err == nil {
				for _, e := range m.Entries() {
					n := len(m.byName[e].params)
					m.MaxStepsPerThread = 100
					_ = m.Launch(e, [3]int{1, 1, 1}, [3]int{33, 1, 1}, make([]uint64, n), NewArena())
				}
			}
		}()
	}
}
