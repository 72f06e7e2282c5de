package vmvx

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"testing"

	"github.com/gree-ml/gree/go/schemas/vmvx"
	"github.com/gree-ml/gree/go/status"
)

func mustLoad(t testing.TB, x *vmvx.Executable) *Executable {
	t.Helper()
	data, err := vmvx.Encode(x)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := Load(data)
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

// chainExe adds and multiplies two 1024-lane f32 vectors ops times:
// v3 = v1 + v2; v1 = v3 * v2; …, then stores v1.
func chainExe(lanes uint32, ops int) *vmvx.Executable {
	v := vmvx.RegType{Elem: vmvx.F32, Lanes: lanes}
	code := []vmvx.Instr{
		{Op: vmvx.ConstInt, Dst: 0},
		{Op: vmvx.Load, Dst: 1, Args: []uint32{0}},
		{Op: vmvx.Load, Dst: 2, Args: []uint32{0}, Bindings: [3]uint32{1}},
	}
	for i := 0; i < ops; i++ {
		if i%2 == 0 {
			code = append(code, vmvx.Instr{Op: vmvx.Add, Dst: 3, Args: []uint32{1, 2}})
		} else {
			code = append(code, vmvx.Instr{Op: vmvx.Mul, Dst: 1, Args: []uint32{3, 2}})
		}
	}
	code = append(code, vmvx.Instr{Op: vmvx.Store, Args: []uint32{0, 1}, Bindings: [3]uint32{2}})
	return &vmvx.Executable{Entries: []vmvx.Entry{{
		Name:          "chain",
		WorkgroupSize: [3]uint32{1, 1, 1},
		Bindings:      []vmvx.Binding{{Elem: vmvx.F32, Access: vmvx.Read}, {Elem: vmvx.F32, Access: vmvx.Read}, {Elem: vmvx.F32, Access: vmvx.Write}},
		Regs:          []vmvx.RegType{{Elem: vmvx.I64, Lanes: 1}, v, v, v},
		Code:          code,
	}}}
}

func f32buf(n int, f func(i int) float32) []byte {
	b := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f(i)))
	}
	return b
}

func TestChain(t *testing.T) {
	ex := mustLoad(t, chainExe(1024, 4))
	a := f32buf(1024, func(i int) float32 { return float32(i) })
	b := f32buf(1024, func(i int) float32 { return 0.5 })
	out := make([]byte, 4096)
	if err := ex.RunWorkgroup(NewState(), 0, [3]int64{}, [3]int64{1, 1, 1}, nil, [][]byte{a, b, out}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1024; i++ {
		x := float32(i)
		for j := 0; j < 2; j++ {
			x = (x + 0.5) * 0.5
		}
		if got := math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:])); got != x {
			t.Fatalf("lane %d: %g, want %g", i, got, x)
		}
	}
}

func TestNoAllocationsPerWorkgroup(t *testing.T) {
	ex := mustLoad(t, chainExe(1024, 16))
	bufs := [][]byte{make([]byte, 4096), make([]byte, 4096), make([]byte, 4096)}
	st := NewState()
	run := func() {
		if err := ex.RunWorkgroup(st, 0, [3]int64{}, [3]int64{1, 1, 1}, nil, bufs); err != nil {
			t.Fatal(err)
		}
	}
	run()
	if n := testing.AllocsPerRun(100, run); n != 0 {
		t.Errorf("%v allocations per workgroup", n)
	}
}

// BenchmarkChain reports the cost of one 1024-lane f32 add or mul.
func BenchmarkChain(b *testing.B) {
	const ops = 64
	for _, lanes := range []uint32{1024, 64, 8} {
		b.Run(fmt.Sprintf("lanes=%d", lanes), func(b *testing.B) {
			ex := mustLoad(b, chainExe(lanes, ops))
			n := int(lanes)
			bufs := [][]byte{f32buf(n, func(i int) float32 { return 1 }), f32buf(n, func(i int) float32 { return 0.5 }), make([]byte, 4*n)}
			st := NewState()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := ex.RunWorkgroup(st, 0, [3]int64{}, [3]int64{1, 1, 1}, nil, bufs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(ops*n), "ns/lane")
		})
	}
}

// TestContractUsesGEMM checks that f32 contractions in aligned buffers go
// to package gemm.
func TestContractUsesGEMM(t *testing.T) {
	i64 := vmvx.RegType{Elem: vmvx.I64, Lanes: 1}
	regs := make([]vmvx.RegType, 13)
	code := []vmvx.Instr{}
	vals := []int64{0, 4, 1, 0, 4, 1, 0, 4, 1, 4, 4, 4}
	args := make([]uint32, 12)
	for i, v := range vals {
		regs[i] = i64
		code = append(code, vmvx.Instr{Op: vmvx.ConstInt, Dst: uint32(i), Imm: v})
		args[i] = uint32(i)
	}
	regs[12] = i64
	code = append(code, vmvx.Instr{Op: vmvx.Contract, Args: args, Bindings: [3]uint32{0, 1, 2}})
	x := &vmvx.Executable{Entries: []vmvx.Entry{{
		Name: "mm", WorkgroupSize: [3]uint32{1, 1, 1},
		Bindings: []vmvx.Binding{{Elem: vmvx.F32, Access: vmvx.Read}, {Elem: vmvx.F32, Access: vmvx.Read}, {Elem: vmvx.F32, Access: vmvx.ReadWrite}},
		Regs:     regs, Code: code,
	}}}
	ex := mustLoad(t, x)
	calls := 0
	saved := gemmF32
	defer func() { gemmF32 = saved }()
	gemmF32 = func(m, n, k int, a []float32, aOff, aRS, aCS int, b []float32, bOff, bRS, bCS int, c []float32, cOff, cRS, cCS int) {
		calls++
		saved(m, n, k, a, aOff, aRS, aCS, b, bOff, bRS, bCS, c, cOff, cRS, cCS)
	}
	a := f32buf(16, func(i int) float32 { return float32(i) })
	id := f32buf(16, func(i int) float32 {
		if i%5 == 0 {
			return 1
		}
		return 0
	})
	c := make([]byte, 64)
	if err := ex.RunWorkgroup(NewState(), 0, [3]int64{}, [3]int64{1, 1, 1}, nil, [][]byte{a, id, c}); err != nil {
		t.Fatal(err)
	}
	if calls != 1 {
		t.Errorf("gemm called %d times", calls)
	}
	if string(c) != string(a) {
		t.Errorf("A·I != A")
	}
	// A misaligned C goes through the portable loops with the same result.
	c2 := make([]byte, 65)[1:]
	if err := ex.RunWorkgroup(NewState(), 0, [3]int64{}, [3]int64{1, 1, 1}, nil, [][]byte{a, id, c2}); err != nil {
		t.Fatal(err)
	}
	if calls != 1 || string(c2) != string(a) {
		t.Errorf("misaligned: %d calls, equal %v", calls, string(c2) == string(a))
	}
}

func reseal(d []byte) []byte {
	binary.LittleEndian.PutUint32(d[8:], uint32(len(d)-vmvx.HeaderSize))
	binary.LittleEndian.PutUint32(d[12:], crc32.ChecksumIEEE(d[vmvx.HeaderSize:]))
	return d
}

func TestLoadDamaged(t *testing.T) {
	data, err := vmvx.Encode(chainExe(16, 3))
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(data); n++ {
		if _, err := Load(data[:n]); err == nil {
			t.Fatalf("truncated to %d: loaded", n)
		}
	}
	for i := 0; i < 8*len(data); i++ {
		d := append([]byte(nil), data...)
		d[i/8] ^= 1 << (i % 8)
		if _, err := Load(d); err == nil {
			t.Fatalf("bit %d flipped: loaded", i)
		} else if c := status.CodeOf(err); c != status.DataLoss && c != status.InvalidArgument {
			t.Fatalf("bit %d flipped: %v", i, err)
		}
	}
}
