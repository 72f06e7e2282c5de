package codegen_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/codegen"
)

// padSrc is a zero pad as the ONNX importer writes it: the padded result
// reads its input through (i + n - lo) mod n (always in bounds) and keeps
// the element only inside.
func padSrc(n, lo, hi int) string {
	m := n + lo + hi
	return fmt.Sprintf(`func.func @f(%%x: tensor<3x%[1]dxf32>) -> tensor<3x%[4]dxf32> {
  %%e = tensor.empty() : tensor<3x%[4]dxf32>
  %%p = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, (d1 + %[5]d) mod %[1]d)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%%x : tensor<3x%[1]dxf32>) outs(%%e : tensor<3x%[4]dxf32>) {
  ^bb0(%%in: f32, %%out: f32):
    %%i = linalg.index 1 : index
    %%lo = arith.constant %[2]d : index
    %%end = arith.constant %[6]d : index
    %%a = arith.cmpi sge, %%i, %%lo : index
    %%b = arith.cmpi slt, %%i, %%end : index
    %%ok = arith.andi %%a, %%b : i1
    %%z = arith.constant 0.0 : f32
    %%two = arith.constant 2.0 : f32
    %%v = arith.mulf %%in, %%two : f32
    %%s = arith.select %%ok, %%v, %%z : f32
    linalg.yield %%s : f32
  } -> tensor<3x%[4]dxf32>
  return %%p : tensor<3x%[4]dxf32>
}`, n, lo, hi, m, n-lo%n, lo+n)
}

// TestWrappedPadVectorizes checks that a pad's wrapped read is vectorized
// (vectors only where no lane wraps) and gives the padded tensor, for
// vector widths that do and do not divide the rows and for grids that do
// and do not split the vectorized loop.
func TestWrappedPadVectorizes(t *testing.T) {
	if testing.Short() {
		t.Skip("parser hooks for the generic custom syntax are needed")
	}
	for _, c := range [][3]int{{45, 2, 3}, {37, 1, 1}, {5, 1, 2}, {64, 0, 7}, {17, 9, 0}} {
		n, lo, hi := c[0], c[1], c[2]
		m := n + lo + hi
		for _, st := range []codegen.Strategy{
			{VectorWidth: 8, WorkgroupElements: 1 << 16},
			{VectorWidth: 32, WorkgroupElements: 1 << 16},
			{VectorWidth: 8, WorkgroupElements: 4},
			{VectorWidth: 1, WorkgroupElements: 64},
		} {
			ds := lowerAll(t, padSrc(n, lo, hi), st)
			if len(ds) != 1 {
				t.Fatalf("%d dispatches, want 1", len(ds))
			}
			if st.VectorWidth > 1 && n >= st.VectorWidth && !strings.Contains(ds[0].Kernel.String(), fmt.Sprintf("<%dxf32>", st.VectorWidth)) {
				t.Errorf("pad %v, width %d: no vector access in\n%s", c, st.VectorWidth, ds[0].Kernel)
			}
			x := random(3*n, rand.New(rand.NewSource(int64(n))))
			bind := bindArgs(ds[0], [][]byte{bytesOf(x)}, sizeOf)
			run(t, ds[0], bind)
			got := f32s(bind[0])
			for r := 0; r < 3; r++ {
				for i := 0; i < m; i++ {
					want := float32(0)
					if i >= lo && i < lo+n {
						want = 2 * x[r*n+i-lo]
					}
					if got[r*m+i] != want {
						t.Fatalf("pad %v, strategy %+v: [%d,%d] = %v, want %v", c, st, r, i, got[r*m+i], want)
					}
				}
			}
		}
	}
}
