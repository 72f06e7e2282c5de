package vmvx_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/codegen"
	"github.com/gree-ml/gree/go/compiler/flow"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/target/targettest"
)

// lowerOne compiles src, which must form exactly one dispatch, to its
// kernel.
func lowerOne(t *testing.T, src string) *codegen.Dispatch {
	t.Helper()
	m := targettest.Flow(t, src)
	var ds []*codegen.Dispatch
	m.Op.Walk(func(op *ir.Operation) bool {
		if op.Name == flow.RegionName {
			d, err := codegen.Lower(op, "k", codegen.CPUStrategy)
			if err != nil {
				t.Fatal(err)
			}
			ds = append(ds, d)
			return false
		}
		return true
	})
	if len(ds) != 1 {
		t.Fatalf("%d dispatches, want 1", len(ds))
	}
	return ds[0]
}

// bindDynamic binds function argument i to data[i] (results get a zeroed
// buffer of size bytes) and evaluates the push constants and the grid
// from the dynamic sizes in dims (argument → its sizes).
func bindDynamic(t *testing.T, d *codegen.Dispatch, data [][]byte, dims map[int][]int64, resultBytes int) ([][]byte, []int64, [3]int64) {
	t.Helper()
	args := d.Region.ParentOp().Regions[0].Blocks[0].Args
	argOf := func(v *ir.Value) int {
		for i, a := range args {
			if a == v {
				return i
			}
		}
		return -1
	}
	bind := make([][]byte, len(d.Bindings))
	for i, v := range d.Bindings {
		if a := argOf(v); a >= 0 {
			bind[i] = data[a]
		} else {
			bind[i] = make([]byte, resultBytes)
		}
	}
	var pcs []int64
	for _, p := range d.Push {
		a := argOf(p.Value)
		if a < 0 || p.Dim < 0 {
			// A result's dimension equals the first argument's.
			a = 0
		}
		pcs = append(pcs, dims[a][p.Dim])
	}
	var grid [3]int64
	for i, g := range d.Kernel.Grid {
		n := g.Static
		for _, pc := range g.PushConstants {
			n *= pcs[pc]
		}
		grid[i] = (n + g.Tile - 1) / g.Tile
	}
	return bind, pcs, grid
}

func f32Bytes(xs []float32) []byte {
	b := make([]byte, 4*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func i32Data(xs []int32) []byte {
	b := make([]byte, 4*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return b
}

// The sort kernel (insertion and merge sorts; dynamic slice count, a total-order f32 comparator with
// NaNs and signed zeros, an i32 payload) runs identically in the kir
// interpreter and in vmvx, one workgroup per slice.
func TestSortKernelMatchesInterpreter(t *testing.T) {
	for _, C := range []int{19, 77} {
		testSortKernel(t, C)
	}
}

func testSortKernel(t *testing.T, C int) {
	d := lowerOne(t, strings.ReplaceAll(`func.func @f(%k: tensor<?x19xf32>, %v: tensor<?x19xi32>) -> (tensor<?x19xf32>, tensor<?x19xi32>) {
  %0:2 = "stablehlo.sort"(%k, %v) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
    %lt = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) {dimension = 1 : i64, is_stable = true} : (tensor<?x19xf32>, tensor<?x19xi32>) -> (tensor<?x19xf32>, tensor<?x19xi32>)
  return %0#0, %0#1 : tensor<?x19xf32>, tensor<?x19xi32>
}`, "x19x", fmt.Sprintf("x%dx", C)))
	const R = 6
	r := rand.New(rand.NewSource(5))
	specials := []float32{float32(math.NaN()), float32(math.Copysign(0, -1)), 0, float32(math.Inf(1)), float32(math.Inf(-1))}
	keys := make([]float32, R*C)
	vals := make([]int32, R*C)
	for i := range keys {
		keys[i] = float32(r.Intn(7)) - 3
		if r.Intn(5) == 0 {
			keys[i] = specials[r.Intn(len(specials))]
		}
		vals[i] = int32(i)
	}
	bind, pcs, grid := bindDynamic(t, d, [][]byte{f32Bytes(keys), i32Data(vals)}, map[int][]int64{0: {R, int64(C)}, 1: {R, int64(C)}}, 4*R*C)
	if grid != [3]int64{R, 1, 1} {
		t.Fatalf("grid %v, want one workgroup per row", grid)
	}
	out := diff(t, d.Kernel, grid, pcs, bind)
	// The results are each row's keys in total order, payload alongside.
	key := func(f float32) int32 {
		b := int32(math.Float32bits(f))
		return b ^ int32(uint32(b>>31)>>1)
	}
	for i, v := range d.Bindings {
		if v.Owner() != d.Region || v.Index() != 0 {
			continue
		}
		for row := 0; row < R; row++ {
			for c := 1; c < C; c++ {
				a := math.Float32frombits(binary.LittleEndian.Uint32(out[i][4*(row*C+c-1):]))
				b := math.Float32frombits(binary.LittleEndian.Uint32(out[i][4*(row*C+c):]))
				if key(a) > key(b) {
					t.Fatalf("row %d not sorted at %d: %v > %v", row, c, a, b)
				}
			}
		}
	}
}

// The scatter kernel (dynamic number of updates, repeated and
// out-of-range indices, a multiply combiner) runs identically in the kir
// interpreter and in vmvx.
func TestScatterKernelMatchesInterpreter(t *testing.T) {
	d := lowerOne(t, `func.func @f(%x: tensor<8x5xf32>, %i: tensor<?x2xi32>, %u: tensor<?x5xf32>) -> tensor<8x5xf32> {
  %0 = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.multiply %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>, unique_indices = false} : (tensor<8x5xf32>, tensor<?x2xi32>, tensor<?x5xf32>) -> tensor<8x5xf32>
  return %0 : tensor<8x5xf32>
}`)
	const N = 23
	r := rand.New(rand.NewSource(6))
	x := make([]float32, 8*5)
	for i := range x {
		x[i] = r.Float32()*4 - 2
	}
	u := make([]float32, N*5)
	for i := range u {
		u[i] = r.Float32()*2 - 1
	}
	idx := make([]int32, N*2)
	for i := range idx {
		idx[i] = int32(r.Intn(11) - 2)
	}
	bind, pcs, grid := bindDynamic(t, d, [][]byte{f32Bytes(x), i32Data(idx), f32Bytes(u)}, map[int][]int64{0: {8, 5}, 1: {N, 2}, 2: {N, 5}}, 4*8*5)
	diff(t, d.Kernel, grid, pcs, bind)
}

// The topk_v2 kernel (IREE's insertion with a bubble sort per element)
// runs identically in the interpreter and vmvx; its outputs are each
// row's 5 largest values in order, with indices pointing at them.
func TestTopKV2KernelMatchesInterpreter(t *testing.T) {
	d := lowerOne(t, `func.func @f(%x: tensor<4x37xf32>, %v0: tensor<4x5xf32>, %i0: tensor<4x5xi32>) -> (tensor<4x5xf32>, tensor<4x5xi32>) {
  %0:2 = iree_linalg_ext.topk_v2 dimension(1) is_sorted ins(%x : tensor<4x37xf32>) outs(%v0, %i0 : tensor<4x5xf32>, tensor<4x5xi32>) {
  ^bb0(%a: f32, %b: f32):
    %gt = arith.cmpf ogt, %a, %b : f32
    iree_linalg_ext.yield %gt : i1
  } -> tensor<4x5xf32>, tensor<4x5xi32>
  return %0#0, %0#1 : tensor<4x5xf32>, tensor<4x5xi32>
}`)
	const R, N, K = 4, 37, 5
	r := rand.New(rand.NewSource(8))
	x := make([]float32, R*N)
	for i := range x {
		x[i] = float32(r.Intn(15)) - 7 // many ties
	}
	v0 := make([]float32, R*K)
	for i := range v0 {
		v0[i] = float32(math.Inf(-1))
	}
	bind, pcs, grid := bindDynamic(t, d, [][]byte{f32Bytes(x), f32Bytes(v0), i32Data(make([]int32, R*K))}, nil, 4*R*K)
	if grid != [3]int64{R, 1, 1} {
		t.Fatalf("grid %v, want one workgroup per row", grid)
	}
	out := diff(t, d.Kernel, grid, pcs, bind)
	var vals []float32
	var idx []int32
	for i, v := range d.Bindings {
		if v.Owner() != d.Region {
			continue
		}
		for e := 0; e < R*K; e++ {
			w := binary.LittleEndian.Uint32(out[i][4*e:])
			if v.Index() == 0 {
				vals = append(vals, math.Float32frombits(w))
			} else {
				idx = append(idx, int32(w))
			}
		}
	}
	for row := 0; row < R; row++ {
		want := append([]float32(nil), x[row*N:(row+1)*N]...)
		sort.Slice(want, func(a, b int) bool { return want[a] > want[b] })
		for k := 0; k < K; k++ {
			got, at := vals[row*K+k], idx[row*K+k]
			if got != want[k] || at < 0 || at >= N || x[row*N+int(at)] != got {
				t.Fatalf("row %d, k %d: got %v at %d, want %v", row, k, got, at, want[k])
			}
		}
	}
}

// The scan kernel (exclusive, along the outer dimension of a dynamic
// input, integer multiply) runs identically in the interpreter and vmvx
// and gives the running products.
func TestScanKernelMatchesInterpreter(t *testing.T) {
	d := lowerOne(t, `func.func @f(%x: tensor<?x6xi32>, %o: tensor<?x6xi32>, %a: tensor<6xi32>) -> (tensor<?x6xi32>, tensor<6xi32>) {
  %0:2 = iree_linalg_ext.scan dimension(0) inclusive(false) ins(%x : tensor<?x6xi32>) outs(%o, %a : tensor<?x6xi32>, tensor<6xi32>) {
  ^bb0(%p: i32, %q: i32):
    %m = arith.muli %p, %q : i32
    iree_linalg_ext.yield %m : i32
  } -> tensor<?x6xi32>, tensor<6xi32>
  return %0#0, %0#1 : tensor<?x6xi32>, tensor<6xi32>
}`)
	const R, C = 9, 6
	r := rand.New(rand.NewSource(9))
	x := make([]int32, R*C)
	for i := range x {
		x[i] = int32(r.Intn(5) - 2)
	}
	acc := []int32{1, 2, 3, -1, 5, 7}
	bind, pcs, grid := bindDynamic(t, d, [][]byte{i32Data(x), make([]byte, 4*R*C), i32Data(acc)}, map[int][]int64{0: {R, C}, 1: {R, C}}, 4*R*C)
	if grid != [3]int64{C, 1, 1} {
		t.Fatalf("grid %v, want one workgroup per column", grid)
	}
	out := diff(t, d.Kernel, grid, pcs, bind)
	for i, v := range d.Bindings {
		if v.Owner() != d.Region || v.Index() != 0 {
			continue
		}
		for c := 0; c < C; c++ {
			want := acc[c]
			for row := 0; row < R; row++ {
				if row > 0 {
					want *= x[(row-1)*C+c]
				}
				if got := int32(binary.LittleEndian.Uint32(out[i][4*(row*C+c):])); got != want {
					t.Fatalf("(%d, %d): got %d want %d", row, c, got, want)
				}
			}
		}
	}
}

// A sort along a dynamic dimension merges with a runtime number of
// passes (odd and even counts, a length of one); it is stable and runs
// identically in the interpreter and vmvx.
func TestDynamicSortKernel(t *testing.T) {
	d := lowerOne(t, `func.func @f(%k: tensor<3x?xi32>, %v: tensor<3x?xi32>) -> (tensor<3x?xi32>, tensor<3x?xi32>) {
  %0:2 = "stablehlo.sort"(%k, %v) ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>, %c: tensor<i32>, %d: tensor<i32>):
    %lt = stablehlo.compare LT, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) {dimension = 1 : i64, is_stable = true} : (tensor<3x?xi32>, tensor<3x?xi32>) -> (tensor<3x?xi32>, tensor<3x?xi32>)
  return %0#0, %0#1 : tensor<3x?xi32>, tensor<3x?xi32>
}`)
	r := rand.New(rand.NewSource(10))
	for _, n := range []int{1, 2, 5, 8, 33, 100} {
		keys := make([]int32, 3*n)
		vals := make([]int32, 3*n)
		for i := range keys {
			keys[i], vals[i] = int32(r.Intn(6)), int32(i)
		}
		bind, pcs, grid := bindDynamic(t, d, [][]byte{i32Data(keys), i32Data(vals)}, map[int][]int64{0: {3, int64(n)}, 1: {3, int64(n)}}, 4*3*n)
		out := diff(t, d.Kernel, grid, pcs, bind)
		var gotK, gotV []byte
		for i, v := range d.Bindings {
			if v.Owner() == d.Region && v.Index() == 0 {
				gotK = out[i]
			}
			if v.Owner() == d.Region && v.Index() == 1 {
				gotV = out[i]
			}
		}
		for row := 0; row < 3; row++ {
			idx := make([]int, n)
			for i := range idx {
				idx[i] = row*n + i
			}
			sort.SliceStable(idx, func(a, b int) bool { return keys[idx[a]] < keys[idx[b]] })
			for i, src := range idx {
				k := int32(binary.LittleEndian.Uint32(gotK[4*(row*n+i):]))
				v := int32(binary.LittleEndian.Uint32(gotV[4*(row*n+i):]))
				if k != keys[src] || v != vals[src] {
					t.Fatalf("n=%d row %d pos %d: got (%d, %d) want (%d, %d)", n, row, i, k, v, keys[src], vals[src])
				}
			}
		}
	}
}

// A scatter-add of whole rows (repeated and out-of-range row indices)
// splits the columns over workgroups; run concurrently it gives the
// interpreter's bytes, which are the in-order sums.
func TestSplitScatterKernel(t *testing.T) {
	d := lowerOne(t, `func.func @f(%x: tensor<50x40xf32>, %i: tensor<200x1xi32>, %u: tensor<200x40xf32>) -> tensor<50x40xf32> {
  %0 = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<50x40xf32>, tensor<200x1xi32>, tensor<200x40xf32>) -> tensor<50x40xf32>
  return %0 : tensor<50x40xf32>
}`)
	r := rand.New(rand.NewSource(15))
	x := make([]float32, 50*40)
	u := make([]float32, 200*40)
	for i := range x {
		x[i] = float32(r.Intn(100)) / 4
	}
	for i := range u {
		u[i] = float32(r.Intn(100)-50) / 8
	}
	idx := make([]int32, 200)
	for i := range idx {
		idx[i] = int32(r.Intn(56) - 3)
	}
	bind, pcs, grid := bindDynamic(t, d, [][]byte{f32Bytes(x), i32Data(idx), f32Bytes(u)}, nil, 4*50*40)
	if grid[0] < 2 {
		t.Fatalf("grid %v: want the columns split over workgroups", grid)
	}
	out := diff(t, d.Kernel, grid, pcs, bind)
	want := append([]float32(nil), x...)
	for n, row := range idx {
		if row >= 0 && row < 50 {
			for c := 0; c < 40; c++ {
				want[int(row)*40+c] += u[n*40+c]
			}
		}
	}
	for i, v := range d.Bindings {
		if v.Owner() != d.Region {
			continue
		}
		for e := range want {
			if got := math.Float32frombits(binary.LittleEndian.Uint32(out[i][4*e:])); got != want[e] {
				t.Fatalf("element %d: got %v want %v", e, got, want[e])
			}
		}
	}
}
