package codegen_test

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/codegen"
	"github.com/gree-ml/gree/go/compiler/flow"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/targettest"
)

// padConvSrc is a zero pad as the ONNX importer writes it (lo rows and
// columns before, hi after, reads at (i + n - lo) mod n) feeding a 3×3
// depthwise convolution of stride s, NCHW, with a zero-filled init.
func padConvSrc(c, n, lo, hi, s int) string {
	p := n + lo + hi
	o := (p-3)/s + 1
	return fmt.Sprintf(`func.func @f(%%x: tensor<1x%[1]dx%[2]dx%[2]dxf32>, %%w: tensor<%[1]dx1x3x3xf32>) -> tensor<1x%[1]dx%[6]dx%[6]dxf32> {
  %%e = tensor.empty() : tensor<1x%[1]dx%[5]dx%[5]dxf32>
  %%p = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, (d2 + %[7]d) mod %[2]d, (d3 + %[7]d) mod %[2]d)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%%x : tensor<1x%[1]dx%[2]dx%[2]dxf32>) outs(%%e : tensor<1x%[1]dx%[5]dx%[5]dxf32>) {
  ^bb0(%%in: f32, %%out: f32):
    %%lo = arith.constant %[3]d : index
    %%end = arith.constant %[8]d : index
    %%i = linalg.index 2 : index
    %%a = arith.cmpi sge, %%i, %%lo : index
    %%b = arith.cmpi slt, %%i, %%end : index
    %%j = linalg.index 3 : index
    %%c = arith.cmpi sge, %%j, %%lo : index
    %%d = arith.cmpi ult, %%j, %%end : index
    %%ab = arith.andi %%a, %%b : i1
    %%cd = arith.andi %%c, %%d : i1
    %%ok = arith.andi %%ab, %%cd : i1
    %%z = arith.constant 0.0 : f32
    %%v = arith.select %%ok, %%in, %%z : f32
    linalg.yield %%v : f32
  } -> tensor<1x%[1]dx%[5]dx%[5]dxf32>
  %%zero = arith.constant 0.0 : f32
  %%e2 = tensor.empty() : tensor<1x%[1]dx%[6]dx%[6]dxf32>
  %%f = linalg.fill ins(%%zero : f32) outs(%%e2 : tensor<1x%[1]dx%[6]dx%[6]dxf32>) -> tensor<1x%[1]dx%[6]dx%[6]dxf32>
  %%r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * %[4]d + d4, d3 * %[4]d + d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, 0, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%%p, %%w : tensor<1x%[1]dx%[5]dx%[5]dxf32>, tensor<%[1]dx1x3x3xf32>) outs(%%f : tensor<1x%[1]dx%[6]dx%[6]dxf32>) {
  ^bb0(%%a: f32, %%b: f32, %%o: f32):
    %%m = arith.mulf %%a, %%b : f32
    %%s = arith.addf %%o, %%m : f32
    linalg.yield %%s : f32
  } -> tensor<1x%[1]dx%[6]dx%[6]dxf32>
  return %%r : tensor<1x%[1]dx%[6]dx%[6]dxf32>
}`, c, n, lo, s, p, o, n-lo%n, lo+n)
}

// runWith compiles src (static shapes) for strategy st and runs its
// dispatches in order through the kernel-IR interpreter, with args bound
// to the function's arguments; it returns the bytes of the returned value
// and the kernels (each verified).
func runWith(t *testing.T, src string, args [][]byte, st codegen.Strategy) ([]byte, []*kir.Kernel) {
	t.Helper()
	m := targettest.Flow(t, src)
	var fn *ir.Operation
	m.Op.Walk(func(op *ir.Operation) bool {
		if op.Name == "func.func" {
			fn = op
			return false
		}
		return true
	})
	buf := map[*ir.Value][]byte{}
	for i, a := range fn.Regions[0].Blocks[0].Args {
		buf[a] = args[i]
	}
	var ret *ir.Operation
	var ks []*kir.Kernel
	for _, op := range fn.Regions[0].Blocks[0].Ops {
		if op.Name == "func.return" {
			ret = op
			continue
		}
		if op.Name != flow.RegionName {
			continue
		}
		d, err := codegen.Lower(op, "k", st)
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		if err := kir.Verify(d.Kernel); err != nil {
			t.Fatalf("kernel does not verify: %v\n%s", err, d.Kernel)
		}
		ks = append(ks, d.Kernel)
		bind := make([][]byte, len(d.Bindings))
		for i, v := range d.Bindings {
			if b, ok := buf[v]; ok {
				bind[i] = b
				continue
			}
			rt := v.Type.(*ir.RankedTensorType)
			n, _ := ir.NumElements(rt.Dims)
			s, _ := codegen.ScalarOf(rt.Elem)
			bind[i] = make([]byte, int(n)*s.ByteSize())
			buf[v] = bind[i]
		}
		var grid [3]int64
		for i, g := range d.Kernel.Grid {
			grid[i] = (g.Static + g.Tile - 1) / g.Tile
		}
		if err := kir.Run(d.Kernel, grid, nil, bind); err != nil {
			t.Fatalf("run: %v\n%s", err, d.Kernel)
		}
	}
	out, ok := buf[ret.Operands[0]]
	if !ok {
		t.Fatalf("the result is not a dispatch result\n%s", src)
	}
	return out, ks
}

// TestPadFusesIntoDepthwiseConv checks that a zero pad is computed inside
// the depthwise convolution reading it (no dispatch writes the padded
// tensor), that the fused convolution is vectorized along the output
// rows with the borders apart, and that it matches a float64 reference
// for strides 1 to 3, pads that wrap on one or both sides, rows shorter
// and longer than a vector, and several vector widths and tiles.
func TestPadFusesIntoDepthwiseConv(t *testing.T) {
	if testing.Short() {
		t.Skip("parser hooks for the generic custom syntax are needed")
	}
	cases := []struct{ c, n, lo, hi, s int }{
		{3, 12, 1, 1, 1}, {2, 40, 1, 1, 1}, {3, 12, 0, 1, 2}, {2, 41, 1, 1, 2},
		{2, 7, 1, 1, 1}, {2, 30, 2, 2, 3}, {4, 5, 1, 1, 2}, {1, 70, 1, 0, 1},
	}
	strategies := []codegen.Strategy{
		{VectorWidth: 8, WorkgroupElements: 1 << 16},
		{VectorWidth: 32, ReductionWidth: 16, WorkgroupElements: 64},
		{VectorWidth: 1, WorkgroupElements: 1 << 16},
	}
	for _, tc := range cases {
		p := tc.n + tc.lo + tc.hi
		o := (p-3)/tc.s + 1
		r := rand.New(rand.NewSource(int64(tc.n*10 + tc.s)))
		x, w := random(tc.c*tc.n*tc.n, r), random(tc.c*9, r)
		want := make([]float64, tc.c*o*o)
		for ch := 0; ch < tc.c; ch++ {
			for oy := 0; oy < o; oy++ {
				for ox := 0; ox < o; ox++ {
					sum := 0.0
					for ky := 0; ky < 3; ky++ {
						for kx := 0; kx < 3; kx++ {
							iy, ix := oy*tc.s+ky-tc.lo, ox*tc.s+kx-tc.lo
							if iy < 0 || iy >= tc.n || ix < 0 || ix >= tc.n {
								continue
							}
							sum += float64(x[(ch*tc.n+iy)*tc.n+ix]) * float64(w[ch*9+ky*3+kx])
						}
					}
					want[(ch*o+oy)*o+ox] = sum
				}
			}
		}
		src := padConvSrc(tc.c, tc.n, tc.lo, tc.hi, tc.s)
		for _, st := range strategies {
			out, ks := runWith(t, src, [][]byte{bytesOf(x), bytesOf(w)}, st)
			if len(ks) != 2 {
				// The fill of the init and the convolution with the pad inside.
				t.Fatalf("%+v: %d kernels, want 2 (the padded tensor is materialized)", tc, len(ks))
			}
			if st.VectorWidth == 8 && o-2 >= 8 && !strings.Contains(ks[len(ks)-1].String(), "<8xf32>") {
				t.Errorf("%+v: the fused convolution is not vectorized:\n%s", tc, ks[len(ks)-1])
			}
			got := f32s(out)
			for i := range want {
				if math.Abs(float64(got[i])-want[i]) > 1e-5*(1+math.Abs(want[i])) {
					t.Fatalf("%+v, strategy %+v: element %d = %v, want %v", tc, st, i, got[i], want[i])
				}
			}
		}
	}
}
