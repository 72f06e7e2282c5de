package ptxsim

import (
	"strconv"
	"testing"
	"time"
)

// BenchmarkLoop measures the interpreter on the tri kernel of loops.ptx
// (an add/add/setp/bra loop) and reports ns per simulated instruction.
func BenchmarkLoop(b *testing.B) {
	m := loadFile(b, "loops.ptx")
	ar := NewArena()
	const n = 1024
	p := ar.Alloc(make([]byte, 4*n))
	b.ResetTimer()
	start := time.Now()
	before := m.Executed()
	for i := 0; i < b.N; i++ {
		if err := m.Launch("tri", [3]int{4, 1, 1}, [3]int{256, 1, 1}, []uint64{p, n}, ar); err != nil {
			b.Fatal(err)
		}
	}
	ins := m.Executed() - before
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(ins), "ns/inst")
}

// BenchmarkSharedReduction exercises bar.sync scheduling.
func BenchmarkSharedReduction(b *testing.B) {
	m := loadFile(b, "reduce.ptx")
	ar := NewArena()
	const blocks = 64
	pin, pout := ar.Alloc(make([]byte, 4*256*blocks)), ar.Alloc(make([]byte, 4*blocks))
	b.ResetTimer()
	start := time.Now()
	before := m.Executed()
	for i := 0; i < b.N; i++ {
		if err := m.Launch("block_sum", [3]int{blocks, 1, 1}, [3]int{256, 1, 1}, []uint64{pin, pout}, ar); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(m.Executed()-before), "ns/inst")
}

// BenchmarkLoad measures parsing and decoding of a module holding every
// table-driven test kernel.
func BenchmarkLoad(b *testing.B) {
	src := ptxHeader
	for _, c := range allOpCases() {
		src += c.kernel()
	}
	b.SetBytes(int64(len(src)))
	for i := 0; i < b.N; i++ {
		// A distinct text each time defeats Load's cache.
		if _, err := Load(src + "// " + strconv.Itoa(i) + "\n"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWarpSum exercises shfl.sync scheduling (1024 threads, five
// shuffles each).
func BenchmarkWarpSum(b *testing.B) {
	m := loadFile(b, "warp.ptx")
	ar := NewArena()
	pin, pout := ar.Alloc(make([]byte, 4*1024)), ar.Alloc(make([]byte, 4*32))
	b.ResetTimer()
	start := time.Now()
	before := m.Executed()
	for i := 0; i < b.N; i++ {
		if err := m.Launch("warp_sum", [3]int{1, 1, 1}, [3]int{1024, 1, 1}, []uint64{pin, pout}, ar); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(m.Executed()-before), "ns/inst")
}
