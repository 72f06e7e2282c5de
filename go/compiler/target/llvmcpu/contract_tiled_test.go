package llvmcpu_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/llvmcpu"
	rt "github.com/gree-ml/gree/go/runtime/hal/local/llvmcpu"
)

// gemm is one C[M,N] += A[M,K]·B[K,N] problem: its sizes, the element
// strides (row, column) of A, B and C, and a batch count whose operands
// follow each other in their buffers.
type gemm struct {
	name    string
	m, n, k int64
	st      [6]int64
	batch   int64
}

// rowMajor is the problem with A, B and C row-major (B transposed, bt:
// B[k,n] at n·K+k, as a transposed weight).
func rowMajor(name string, m, n, k int64, bt bool) gemm {
	g := gemm{name: name, m: m, n: n, k: k, st: [6]int64{k, 1, n, 1, n, 1}, batch: 1}
	if bt {
		g.st[2], g.st[3] = 1, k
	}
	return g
}

// sizes are the element counts of A, B and C over the whole batch.
func (g gemm) sizes() [3]int64 {
	span := func(rows, cols, rs, cs int64) int64 { return (rows-1)*rs + (cols-1)*cs + 1 }
	a, b, c := span(g.m, g.k, g.st[0], g.st[1]), span(g.k, g.n, g.st[2], g.st[3]), span(g.m, g.n, g.st[4], g.st[5])
	return [3]int64{a * g.batch, b * g.batch, c * g.batch}
}

// tiledContract is the kernel codegen makes of g (without an epilogue):
// workgroup (x, y, z) runs the Contract of C's tile of tm rows and tn
// columns at (y·tm, x·tn) of batch z.
func tiledContract(g gemm, tm, tn int64) (*kir.Kernel, [3]int64) {
	return tiledContractWith(g, tm, tn, nil, func(b *kir.Builder, args [12]kir.Value, _, _ kir.Value) {
		b.Contract(0, 1, 2, args, 0)
	})
}

// tiledContractWith is tiledContract with more bindings (read, after A, B
// and C) and the Contract emitted by contract, given its operands and the
// tile's first row and column.
func tiledContractWith(g gemm, tm, tn int64, more []kir.Binding, contract func(b *kir.Builder, args [12]kir.Value, m0, n0 kir.Value)) (*kir.Kernel, [3]int64) {
	k, b := kir.NewKernel(fmt.Sprintf("tiled_%s", g.name))
	f := kir.F32
	k.Bindings = append([]kir.Binding{{Elem: f, Access: kir.Read}, {Elem: f, Access: kir.Read}, {Elem: f, Access: kir.ReadWrite}}, more...)
	grid := [3]int64{(g.n + tn - 1) / tn, (g.m + tm - 1) / tm, g.batch}
	for d := range grid {
		k.Grid[d] = kir.GridDim{Static: grid[d], Tile: 1}
	}
	id := func(d int64) kir.Value { return b.EmitImm(kir.WorkgroupID, kir.S(kir.I64), d) }
	n0 := b.Bin(kir.Mul, id(0), b.Idx(tn))
	m0 := b.Bin(kir.Mul, id(1), b.Idx(tm))
	nN := b.Bin(kir.MinS, b.Idx(tn), b.Bin(kir.Sub, b.Idx(g.n), n0))
	mN := b.Bin(kir.MinS, b.Idx(tm), b.Bin(kir.Sub, b.Idx(g.m), m0))
	sz := g.sizes()
	bat := func(i int) kir.Value { return b.Bin(kir.Mul, id(2), b.Idx(sz[i]/g.batch)) }
	aOff := b.Bin(kir.Add, bat(0), b.Bin(kir.Mul, m0, b.Idx(g.st[0])))
	bOff := b.Bin(kir.Add, bat(1), b.Bin(kir.Mul, n0, b.Idx(g.st[3])))
	cOff := b.Bin(kir.Add, bat(2), b.Bin(kir.Add, b.Bin(kir.Mul, m0, b.Idx(g.st[4])), b.Bin(kir.Mul, n0, b.Idx(g.st[5]))))
	args := [12]kir.Value{aOff, b.Idx(g.st[0]), b.Idx(g.st[1]), bOff, b.Idx(g.st[2]), b.Idx(g.st[3]), cOff, b.Idx(g.st[4]), b.Idx(g.st[5]), mN, nN, b.Idx(g.k)}
	contract(b, args, m0, n0)
	return k, grid
}

// mobilenetGemms are MobileNetV2's 1×1 convolutions (W[M,K]·X[K,N], N the
// pixels) and its classifier (x[1,1280]·Wᵀ).
var mobilenetGemms = []gemm{
	rowMajor("96x16x12544", 96, 12544, 16, false),
	rowMajor("144x24x3136", 144, 3136, 24, false),
	rowMajor("32x27x12544", 32, 12544, 27, false),
	rowMajor("16x32x12544", 16, 12544, 32, false),
	rowMajor("24x144x3136", 24, 3136, 144, false),
	rowMajor("192x32x784", 192, 784, 32, false),
	rowMajor("32x192x784", 32, 784, 192, false),
	rowMajor("32x144x784", 32, 784, 144, false),
	rowMajor("24x96x3136", 24, 3136, 96, false),
	rowMajor("64x192x196", 64, 196, 192, false),
	rowMajor("576x96x196", 576, 196, 96, false),
	rowMajor("96x576x196", 96, 196, 576, false),
	rowMajor("384x64x196", 384, 196, 64, false),
	rowMajor("64x384x196", 64, 196, 384, false),
	rowMajor("320x960x49", 320, 49, 960, false),
	rowMajor("960x160x49", 960, 49, 160, false),
	rowMajor("1280x320x49", 1280, 49, 320, false),
	rowMajor("160x960x49", 160, 49, 960, false),
	rowMajor("fc1x1280x1000", 1, 1000, 1280, true),
	rowMajor("fcnt1x1280x1000", 1, 1000, 1280, false),
}

// checkGemms runs the tiled kernels of gs natively (one executable) and
// compares every element of C with a float64 reference within (K+1) ulps
// of the sum of magnitudes (the microkernel fuses multiply-adds; the
// order of each k-sum is fixed).
func checkGemms(t *testing.T, gs []gemm, tm, tn int64, r *rand.Rand) {
	t.Helper()
	checkGemmsOn(t, needLLVM(t), gs, tm, tn, r)
}

// checkGemmsOn is checkGemms with code built for machine m (which must
// run here).
func checkGemmsOn(t *testing.T, m llvmcpu.Machine, gs []gemm, tm, tn int64, r *rand.Rand) {
	t.Helper()
	ks := make([]*kir.Kernel, len(gs))
	grids := make([][3]int64, len(gs))
	for i, g := range gs {
		ks[i], grids[i] = tiledContract(g, tm, tn)
	}
	x := build(t, m, ks...)
	for e, g := range gs {
		checkGemmEntry(t, x, e, g, grids[e], fmt.Sprintf("%s on %s, tile %dx%d", g.name, m.CPU, tm, tn), r)
	}
}

// checkGemmEntry runs entry e of x, the tiled kernel of g over grid, on
// random operands and checks C against a float64 reference (see
// checkGemms); what names the case in failures.
func checkGemmEntry(t *testing.T, x *rt.Executable, e int, g gemm, grid [3]int64, what string, r *rand.Rand) {
	t.Helper()
	sz := g.sizes()
	a, bb, c := randFloats(r, int(sz[0]), 1), randFloats(r, int(sz[1]), 1), randFloats(r, int(sz[2]), 1)
	got := [][]byte{enc(kir.F32, a), enc(kir.F32, bb), enc(kir.F32, c)}
	if err := x.Run(e, 0, grid[0]*grid[1]*grid[2], grid, nil, got); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	for z := int64(0); z < g.batch; z++ {
		ao, bo, co := z*sz[0]/g.batch, z*sz[1]/g.batch, z*sz[2]/g.batch
		for i := int64(0); i < g.m; i++ {
			for j := int64(0); j < g.n; j++ {
				ci := co + i*g.st[4] + j*g.st[5]
				exact := float64(float32(c[ci]))
				mag := math.Abs(exact)
				for p := int64(0); p < g.k; p++ {
					u := float64(float32(a[ao+i*g.st[0]+p*g.st[1]])) * float64(float32(bb[bo+p*g.st[2]+j*g.st[3]]))
					exact += u
					mag += math.Abs(u)
				}
				v := value(kir.F32, got[2][4*ci:])
				if tol := float64(g.k+1) * mag * 0x1p-24; math.Abs(v-exact) > tol {
					t.Fatalf("%s: C[%d][%d,%d] = %v, exact %v, tolerance %g", what, z, i, j, v, exact, tol)
				}
			}
		}
	}
}

// BenchmarkContractMobileNet times the Contract of every MobileNetV2
// matmul shape on one thread, warm buffers, codegen's tile.
func BenchmarkContractMobileNet(b *testing.B) {
	if testing.Short() {
		b.Skip("short")
	}
	tm, tn := int64(96), int64(128)
	r := rand.New(rand.NewPCG(1, 2))
	for _, g := range mobilenetGemms {
		b.Run(g.name, func(b *testing.B) {
			m := needLLVMB(b)
			k, grid := tiledContract(g, tm, tn)
			x := buildB(b, m, k)
			sz := g.sizes()
			bufs := [][]byte{enc(kir.F32, randFloats(r, int(sz[0]), 1)), enc(kir.F32, randFloats(r, int(sz[1]), 1)), make([]byte, 4*sz[2])}
			total := grid[0] * grid[1] * grid[2]
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := x.Run(0, 0, total, grid, nil, bufs); err != nil {
					b.Fatal(err)
				}
			}
			sec := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(2*float64(g.m*g.n*g.k*g.batch)/sec/1e9, "GFLOP/s")
			b.ReportMetric(sec*1e6, "us")
		})
	}
}

// needLLVMB is needLLVM for benchmarks.
func needLLVMB(b *testing.B) llvmcpu.Machine {
	b.Helper()
	if err := llvmcpu.Available(); err != nil {
		b.Skipf("llvm-cpu unavailable: %v", err)
	}
	m, err := llvmcpu.ResolveMachine(llvmcpu.Options{})
	if err != nil {
		b.Fatalf("ResolveMachine: %v", err)
	}
	return m
}

// buildB is build for benchmarks.
func buildB(b *testing.B, m llvmcpu.Machine, ks ...*kir.Kernel) *rt.Executable {
	b.Helper()
	data, err := llvmcpu.Emit(ks, m)
	if err != nil {
		b.Fatalf("Emit: %v", err)
	}
	x, err := rt.Load(data)
	if err != nil {
		b.Fatalf("Load: %v", err)
	}
	b.Cleanup(func() { x.Close() })
	return x
}

// TestContractTiledShapes checks the microkernel on MobileNetV2's shapes
// (codegen's tile and a smaller one) and on the edges of its blocking:
// small K, N's remainders against the 32-column blocks (49, 196, 1..17;
// 49 with its last column along M),
// M's remainders against the 8-row blocks, one row (M = 1, unpacked, with
// a transposed B as MobileNetV2's classifier and with a row-major B),
// K beyond one packed panel (with a ragged last panel), strided and
// batched operands, and a column-major C.
func TestContractTiledShapes(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	edges := []gemm{
		rowMajor("k16n49", 24, 49, 16, false),
		rowMajor("k27n196", 40, 196, 27, false),
		rowMajor("m13n17k5", 13, 17, 5, false),
		// Remainders at the half-vector boundaries (8, 24 = 16+8, 25, 56).
		rowMajor("m17n8k3", 17, 8, 3, false),
		rowMajor("m10n24k7", 10, 24, 7, false),
		rowMajor("m10n25k7", 10, 25, 7, false),
		rowMajor("m9n56k12", 9, 56, 12, false),
		rowMajor("m1n33k7", 1, 33, 7, false),
		rowMajor("m9n1k300", 9, 1, 300, false),
		rowMajor("m17n16k520", 17, 16, 520, false),
		// N = 49 = 3·16+1 in one block of 3 vectors and a column along
		// M from a packed panel of A, over one and several K panels
		// (the last ragged); with M not a multiple of 8, a packed B
		// (many rows, few K steps) or A with a column stride, the
		// 32-column blocks instead.
		rowMajor("m16n49k300", 16, 49, 300, false),
		rowMajor("m13n49k20", 13, 49, 20, false),
		rowMajor("m72n49k9", 72, 49, 9, false),
		rowMajor("m27n17k40", 27, 17, 40, false),
		gemm{name: "astrided_n49", m: 16, n: 49, k: 9, st: [6]int64{20, 2, 49, 1, 49, 1}, batch: 1},
		rowMajor("bt_m1n1000k300", 1, 1000, 300, true),
		rowMajor("bt_m1n49k17", 1, 49, 17, true),
		rowMajor("bt_m11n40k33", 11, 40, 33, true),
		rowMajor("bt_m16n64k256", 16, 64, 256, true),
		rowMajor("bt_m3n5k1", 3, 5, 1, true),
		// A with padded rows and a column stride, B and C with padded rows.
		gemm{name: "strided", m: 19, n: 45, k: 21, st: [6]int64{50, 2, 47, 1, 46, 1}, batch: 1},
		// B with strides on both sides: the reference loop nest.
		gemm{name: "bstrided", m: 10, n: 20, k: 9, st: [6]int64{9, 1, 41, 2, 20, 1}, batch: 1},
		// Column-major C (Cᵀ = Bᵀ·Aᵀ), with row-major and transposed B.
		gemm{name: "ccol", m: 37, n: 21, k: 19, st: [6]int64{19, 1, 21, 1, 1, 37}, batch: 1},
		gemm{name: "ccol_bt", m: 37, n: 21, k: 19, st: [6]int64{19, 1, 1, 19, 1, 37}, batch: 1},
		gemm{name: "batched", m: 12, n: 70, k: 30, st: [6]int64{30, 1, 70, 1, 70, 1}, batch: 3},
		gemm{name: "batched_bt", m: 1, n: 70, k: 30, st: [6]int64{30, 1, 1, 30, 70, 1}, batch: 3},
		// Fewer rows than a block, row-major B (single-row blocks).
		rowMajor("m5n100k40", 5, 100, 40, false),
		gemm{name: "m3_strided", m: 3, n: 70, k: 9, st: [6]int64{20, 2, 75, 1, 71, 1}, batch: 1},
	}
	var cases []gemm
	if !testing.Short() {
		cases = append(cases, mobilenetGemms...)
	}
	cases = append(cases, edges...)
	checkGemms(t, cases, 96, 128, r)
	checkGemms(t, cases, 16, 64, r)
	// The 8-lane (AVX2: 6-row blocks) and 4-lane (SSE) kernels, on the
	// edge cases.
	for _, cpu := range []string{"haswell", "generic"} {
		m, err := llvmcpu.ResolveMachine(llvmcpu.Options{CPU: cpu})
		if err != nil {
			t.Fatal(err)
		}
		if cpu == "haswell" && !strings.Contains(needLLVM(t).Features, "+avx2") {
			continue
		}
		checkGemmsOn(t, m, edges, 16, 64, r)
	}
}

// TestColBlocksOnlyWhereReachable: the row kernels keep their column
// blocks (N's last 49 columns) when a product's N or M may be 49 + a
// multiple of 32 (7×7 planes; a tile's last columns), not otherwise, and
// when a size is not known at compile time.
func TestColBlocksOnlyWhereReachable(t *testing.T) {
	for _, tc := range []struct {
		g      gemm
		tm, tn int64
		want   bool
	}{
		{rowMajor("n49", 64, 49, 64, false), 32, 128, true},      // N = 49
		{rowMajor("n81", 64, 81, 64, false), 32, 128, true},      // 81 - 32 = 49
		{rowMajor("n128", 64, 128, 64, false), 32, 128, false},   // 128, 96, 64, 32
		{rowMajor("tail", 64, 128+49, 64, false), 32, 128, true}, // the last tile's 49
		{rowMajor("m49", 49, 64, 64, false), 64, 64, true},       // M, the swapped entry's N
		{rowMajor("t768", 128, 768, 256, false), 96, 128, false}, // a transformer's projection
	} {
		k, _ := tiledContract(tc.g, tc.tm, tc.tn)
		if got := llvmcpu.MayNeedColBlocks([]*kir.Kernel{k}); got != tc.want {
			t.Errorf("%s (tiles %dx%d): column blocks %v, want %v", tc.g.name, tc.tm, tc.tn, got, tc.want)
		}
	}
	// A size from a push constant may be anything.
	k, _ := tiledContract(rowMajor("dyn", 64, 128, 64, false), 32, 128)
	k.NumPushConstants = 1
	k.Grid[0].PushConstants = []int{0}
	if !llvmcpu.MayNeedColBlocks([]*kir.Kernel{k}) {
		t.Errorf("a grid sized at run time: no column blocks")
	}
}
