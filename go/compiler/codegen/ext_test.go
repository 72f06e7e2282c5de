package codegen_test

import (
	"encoding/binary"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/codegen"
	"github.com/gree-ml/gree/go/compiler/ir"
)

// resultBinding returns the binding ordinal of the dispatch's k-th result.
func resultBinding(t *testing.T, d *codegen.Dispatch, k int) int {
	t.Helper()
	for i, v := range d.Bindings {
		if v.Owner() == d.Region && v.Index() == k {
			return i
		}
	}
	t.Fatalf("result %d is not bound", k)
	return -1
}

func i32Bytes(xs []int32) []byte {
	b := make([]byte, 4*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return b
}

func i32s(b []byte) []int32 {
	out := make([]int32, len(b)/4)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// A two-operand sort along dimension 0 (keys with many ties, payload
// carried along) is stable and matches Go's stable sort on every column,
// both for long columns (merge sort) and short ones (insertion sort).
func TestSortKernelIsStableAndMovesPayload(t *testing.T) {
	for _, R := range []int{53, 9} {
		testSortKernel(t, R)
	}
}

func testSortKernel(t *testing.T, R int) {
	const C = 7
	ds := lowerAll(t, strings.ReplaceAll(`func.func @f(%k: tensor<53x7xi32>, %v: tensor<53x7xf32>) -> (tensor<53x7xi32>, tensor<53x7xf32>) {
  %0:2 = "stablehlo.sort"(%k, %v) ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>, %c: tensor<f32>, %d: tensor<f32>):
    %lt = stablehlo.compare LT, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<53x7xi32>, tensor<53x7xf32>) -> (tensor<53x7xi32>, tensor<53x7xf32>)
  return %0#0, %0#1 : tensor<53x7xi32>, tensor<53x7xf32>
}`, "53x", fmt.Sprintf("%dx", R)), codegen.CPUStrategy)
	if len(ds) != 1 {
		t.Fatalf("%d dispatches, want 1", len(ds))
	}
	d := ds[0]
	if g := d.Kernel.Grid[0]; g.Static != C || len(g.PushConstants) != 0 {
		t.Fatalf("grid %+v: want one workgroup per column (%d)", g, C)
	}
	r := rand.New(rand.NewSource(3))
	keys := make([]int32, R*C)
	vals := make([]float32, R*C)
	for i := range keys {
		keys[i] = int32(r.Intn(9) - 4)
		vals[i] = float32(i) // distinct: shows the order of equal keys
	}
	bind := bindArgs(d, [][]byte{i32Bytes(keys), bytesOf(vals)}, sizeOf)
	run(t, d, bind)
	gotK, gotV := i32s(bind[resultBinding(t, d, 0)]), f32s(bind[resultBinding(t, d, 1)])
	for c := 0; c < C; c++ {
		idx := make([]int, R)
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return keys[idx[a]*C+c] < keys[idx[b]*C+c] })
		for i, src := range idx {
			if gotK[i*C+c] != keys[src*C+c] || gotV[i*C+c] != vals[src*C+c] {
				t.Fatalf("column %d row %d: got (%d, %v) want (%d, %v)", c, i, gotK[i*C+c], gotV[i*C+c], keys[src*C+c], vals[src*C+c])
			}
		}
	}
}

// A scatter-add of row windows with repeated and out-of-range indices
// combines updates in order and skips the out-of-range ones.
func TestScatterKernelCombinesInOrderAndSkipsOutOfRange(t *testing.T) {
	const N, R, C = 40, 10, 3
	ds := lowerAll(t, `func.func @f(%x: tensor<10x3xf32>, %i: tensor<40x1xi32>, %u: tensor<40x3xf32>) -> tensor<10x3xf32> {
  %0 = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false} : (tensor<10x3xf32>, tensor<40x1xi32>, tensor<40x3xf32>) -> tensor<10x3xf32>
  return %0 : tensor<10x3xf32>
}`, codegen.CPUStrategy)
	if len(ds) != 1 {
		t.Fatalf("%d dispatches, want 1", len(ds))
	}
	d := ds[0]
	r := rand.New(rand.NewSource(4))
	x, u := random(R*C, r), random(N*C, r)
	idx := make([]int32, N)
	for i := range idx {
		idx[i] = int32(r.Intn(R+4) - 2) // some below 0, some ≥ R
	}
	bind := bindArgs(d, [][]byte{bytesOf(x), i32Bytes(idx), bytesOf(u)}, func(v *ir.Value) int { return sizeOf(v) })
	run(t, d, bind)
	got := f32s(bind[resultBinding(t, d, 0)])
	want := append([]float32(nil), x...)
	for n, row := range idx {
		if row < 0 || row >= R {
			continue
		}
		for c := 0; c < C; c++ {
			want[int(row)*C+c] += u[n*C+c]
		}
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("element %d: got %v want %v (same order of f32 sums)", i, got[i], want[i])
		}
	}
}
