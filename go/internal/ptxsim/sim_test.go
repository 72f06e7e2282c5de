package ptxsim

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func loadFile(t testing.TB, name string) *Module {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Load(string(src))
	if err != nil {
		t.Fatalf("Load(%s): %v", name, err)
	}
	return m
}

func f32s(v ...float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func u32s(v ...uint32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

func u64s(v ...uint64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], x)
	}
	return b
}

func getU32(b []byte, i int) uint32 { return binary.LittleEndian.Uint32(b[4*i:]) }
func getU64(b []byte, i int) uint64 { return binary.LittleEndian.Uint64(b[8*i:]) }

func TestVecAdd(t *testing.T) {
	m := loadFile(t, "vecadd.ptx")
	if got := m.Entries(); len(got) != 1 || got[0] != "vecadd" {
		t.Fatalf("Entries = %v", got)
	}
	const n = 1000
	a, b := make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], b[i] = float32(i)*0.5, float32(n-i)*0.25
	}
	ar := NewArena()
	pa, pb, pc := ar.Alloc(f32s(a...)), ar.Alloc(f32s(b...)), ar.Alloc(make([]byte, 4*n))
	if pa == 0 || pa%256 != 0 || pb%256 != 0 {
		t.Fatalf("bad addresses %#x %#x", pa, pb)
	}
	if err := m.Launch("vecadd", [3]int{4, 1, 1}, [3]int{256, 1, 1}, []uint64{pa, pb, pc, n}, ar); err != nil {
		t.Fatal(err)
	}
	out := ar.Bytes(pc)
	for i := 0; i < n; i++ {
		if got, want := math.Float32frombits(getU32(out, i)), a[i]+b[i]; got != want {
			t.Fatalf("c[%d] = %v, want %v", i, got, want)
		}
	}
	// Wrong parameter count.
	if err := m.Launch("vecadd", [3]int{1, 1, 1}, [3]int{1, 1, 1}, []uint64{pa}, ar); err == nil || !strings.Contains(err.Error(), "parameters") {
		t.Errorf("param count error = %v", err)
	}
	// n too large: out-of-bounds read names the address.
	err := m.Launch("vecadd", [3]int{5, 1, 1}, [3]int{256, 1, 1}, []uint64{pa, pb, pc, n + 100}, ar)
	if err == nil || !strings.Contains(err.Error(), "0x") || !strings.Contains(err.Error(), "outside") {
		t.Errorf("out-of-bounds error = %v", err)
	}
}

func TestLoadCacheGivesIndependentModules(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "loops.ptx"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := Load(string(src))
	if err != nil {
		t.Fatal(err)
	}
	a.MaxStepsPerThread = 5
	b, err := Load(string(src))
	if err != nil {
		t.Fatal(err)
	}
	if a == b || b.MaxStepsPerThread != 0 || strings.Join(a.Entries(), ",") != strings.Join(b.Entries(), ",") {
		t.Errorf("cached Load: %p %p %d %v %v", a, b, b.MaxStepsPerThread, a.Entries(), b.Entries())
	}
	b.MaxStepsPerThread = 10
	if err := b.Launch("forever", [3]int{1, 1, 1}, [3]int{1, 1, 1}, nil, NewArena()); err == nil {
		t.Error("forever terminated")
	}
	if a.Executed() != 0 || b.Executed() == 0 {
		t.Errorf("Executed: %d %d", a.Executed(), b.Executed())
	}
}
