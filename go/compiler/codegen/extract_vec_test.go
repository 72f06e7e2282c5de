package codegen_test

import (
	"encoding/binary"
	"math/rand"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/codegen"
	"github.com/gree-ml/gree/go/compiler/ir"
)

// TestLinearExtractVectorizes checks that a generic whose tensor.extract
// indices move linearly along the vectorized loop — a row chosen by
// another tensor's value read along the row (contiguous), the same
// element for every lane (broadcast), a column read down a row index
// (strided) — stays vectorized and computes the gather.
func TestLinearExtractVectorizes(t *testing.T) {
	if testing.Short() {
		t.Skip("parser hooks for the generic custom syntax are needed")
	}
	const R, C, N, W = 9, 40, 5, 37
	src := `func.func @f(%tab: tensor<9x40xf32>, %idx: tensor<5xi32>) -> tensor<5x37xf32> {
  %e = tensor.empty() : tensor<5x37xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%idx : tensor<5xi32>) outs(%e : tensor<5x37xf32>) {
  ^bb0(%k: i32, %out: f32):
    %row = arith.index_cast %k : i32 to index
    %j = linalg.index 1 : index
    %c2 = arith.constant 2 : index
    %col = arith.addi %j, %c2 : index
    %a = tensor.extract %tab[%row, %col] : tensor<9x40xf32>
    %c0 = arith.constant 0 : index
    %b = tensor.extract %tab[%row, %c0] : tensor<9x40xf32>
    %i = linalg.index 0 : index
    %jr = arith.remsi %j, %c2 : index
    %c3 = arith.constant 3 : index
    %jj = arith.muli %jr, %c3 : index
    %rr = arith.addi %i, %jj : index
    %c = tensor.extract %tab[%rr, %row] : tensor<9x40xf32>
    %s = arith.addf %a, %b : f32
    %t = arith.addf %s, %c : f32
    linalg.yield %t : f32
  } -> tensor<5x37xf32>
  return %r : tensor<5x37xf32>
}`
	// The third extract's row (i + 3·(j mod 2)) is not linear along j:
	// the kernel then runs points one at a time; without it, vectors.
	linear := strings.Replace(src, "%rr = arith.addi %i, %jj : index", "%rr = arith.addi %i, %c3 : index", 1)
	r := rand.New(rand.NewSource(5))
	tab := random(R*C, r)
	idx := make([]byte, 4*N)
	rows := make([]int, N)
	for i := range rows {
		rows[i] = r.Intn(R - 3)
		binary.LittleEndian.PutUint32(idx[4*i:], uint32(rows[i]))
	}
	for _, tc := range []struct {
		name   string
		src    string
		vector bool
		rowOf  func(i, j int) int
	}{
		{"linear", linear, true, func(i, j int) int { return i + 3 }},
		{"nonlinear", src, false, func(i, j int) int { return i + 3*(j%2) }},
	} {
		for _, st := range []codegen.Strategy{codegen.CPUStrategy, {VectorWidth: 8, WorkgroupElements: 64}} {
			ds := lowerAll(t, tc.src, st)
			if len(ds) != 1 {
				t.Fatalf("%s: %d dispatches, want 1", tc.name, len(ds))
			}
			d := ds[0]
			text := d.Kernel.String()
			if vec := strings.Contains(text, "xf32>"); vec != tc.vector {
				t.Errorf("%s (width %d): vectorized %v, want %v:\n%s", tc.name, st.VectorWidth, vec, tc.vector, text)
			}
			bind := bindArgs(d, [][]byte{bytesOf(tab), idx}, func(v *ir.Value) int { return sizeOf(v) })
			run(t, d, bind)
			got := f32s(bind[0])
			for i := 0; i < N; i++ {
				for j := 0; j < W; j++ {
					k := rows[i]
					want := tab[k*C+j+2] + tab[k*C] + tab[tc.rowOf(i, j)*C+k]
					if g := got[i*W+j]; g != want {
						t.Fatalf("%s (width %d): out[%d,%d] = %v, want %v", tc.name, st.VectorWidth, i, j, g, want)
					}
				}
			}
		}
	}
}
