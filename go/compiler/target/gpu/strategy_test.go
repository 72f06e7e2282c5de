package gpu_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/codegen"
	"github.com/gree-ml/gree/go/compiler/flow"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/gpu"
	"github.com/gree-ml/gree/go/compiler/target/targettest"
)

// programs are static-shape programs whose dispatches cover the kinds of
// kernels codegen makes: elementwise with a ragged tail, broadcasts,
// transposes, reductions (inner and outer), matmul, convolution, pooling,
// integer arithmetic and casts.
var programs = map[string]string{
	"elementwise": `func.func @f(%a: tensor<1003xf32>, %b: tensor<1003xf32>) -> tensor<1003xf32> {
  %0 = arith.addf %a, %b : tensor<1003xf32>
  %1 = math.exp %0 : tensor<1003xf32>
  return %1 : tensor<1003xf32>
}`,
	"broadcast_transpose": `func.func @f(%a: tensor<37x19xf32>, %b: tensor<19xf32>) -> tensor<19x37xf32> {
  %e = tensor.empty() : tensor<19x37xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<37x19xf32>, tensor<19xf32>) outs(%e : tensor<19x37xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.mulf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<19x37xf32>
  return %0 : tensor<19x37xf32>
}`,
	"reduce_inner": `func.func @f(%a: tensor<67x45xf32>) -> tensor<67xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<67xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<67xf32>) -> tensor<67xf32>
  %0 = linalg.reduce ins(%a : tensor<67x45xf32>) outs(%i : tensor<67xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return %0 : tensor<67xf32>
}`,
	"reduce_outer": `func.func @f(%a: tensor<45x67xf32>) -> tensor<67xf32> {
  %z = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<67xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<67xf32>) -> tensor<67xf32>
  %0 = linalg.reduce ins(%a : tensor<45x67xf32>) outs(%i : tensor<67xf32>) dimensions = [0]
    (%x: f32, %acc: f32) {
      %s = arith.maximumf %x, %acc : f32
      linalg.yield %s : f32
    }
  return %0 : tensor<67xf32>
}`,
	"matmul": `func.func @f(%a: tensor<33x45xf32>, %b: tensor<45x17xf32>) -> tensor<33x17xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<33x17xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<33x17xf32>) -> tensor<33x17xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<33x45xf32>, tensor<45x17xf32>) outs(%i : tensor<33x17xf32>) -> tensor<33x17xf32>
  return %0 : tensor<33x17xf32>
}`,
	"conv": `func.func @f(%a: tensor<1x9x9x3xf32>, %w: tensor<3x3x3x5xf32>) -> tensor<1x7x7x5xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x7x7x5xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<1x7x7x5xf32>) -> tensor<1x7x7x5xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%a, %w : tensor<1x9x9x3xf32>, tensor<3x3x3x5xf32>) outs(%i : tensor<1x7x7x5xf32>) -> tensor<1x7x7x5xf32>
  return %0 : tensor<1x7x7x5xf32>
}`,
	"sum_rows": `func.func @f(%a: tensor<5x3001xf32>) -> tensor<5xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<5xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<5xf32>) -> tensor<5xf32>
  %0 = linalg.reduce ins(%a : tensor<5x3001xf32>) outs(%i : tensor<5xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return %0 : tensor<5xf32>
}`,
	"sum_all_squares": `func.func @f(%a: tensor<4097xf32>) -> tensor<f32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%a : tensor<4097xf32>) outs(%i : tensor<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %m = arith.mulf %x, %x : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %0 : tensor<f32>
}`,
	"max_rows_f16": `func.func @f(%a: tensor<3x700xf16>) -> tensor<3xf16> {
  %z = arith.constant 0xFC00 : f16
  %e = tensor.empty() : tensor<3xf16>
  %i = linalg.fill ins(%z : f16) outs(%e : tensor<3xf16>) -> tensor<3xf16>
  %0 = linalg.reduce ins(%a : tensor<3x700xf16>) outs(%i : tensor<3xf16>) dimensions = [1]
    (%x: f16, %acc: f16) {
      %s = arith.maximumf %x, %acc : f16
      linalg.yield %s : f16
    }
  return %0 : tensor<3xf16>
}`,
	"sum_rows_i32": `func.func @f(%a: tensor<6x1000xi32>) -> tensor<6xi32> {
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<6xi32>
  %i = linalg.fill ins(%z : i32) outs(%e : tensor<6xi32>) -> tensor<6xi32>
  %0 = linalg.reduce ins(%a : tensor<6x1000xi32>) outs(%i : tensor<6xi32>) dimensions = [1]
    (%x: i32, %acc: i32) {
      %s = arith.addi %x, %acc : i32
      linalg.yield %s : i32
    }
  return %0 : tensor<6xi32>
}`,
	"ints": `func.func @f(%a: tensor<130xi32>, %b: tensor<130xi8>) -> tensor<130xi64> {
  %0 = arith.extsi %b : tensor<130xi8> to tensor<130xi32>
  %1 = arith.muli %a, %0 : tensor<130xi32>
  %2 = arith.extsi %1 : tensor<130xi32> to tensor<130xi64>
  return %2 : tensor<130xi64>
}`,
}

// TestLegalizedKernelsMatchTileKernels lowers each program's dispatches
// with the GPU strategy, runs every kernel on the reference interpreter
// before and after Legalize, and compares the bindings bit for bit.
func TestLegalizedKernelsMatchTileKernels(t *testing.T) {
	for _, target := range []*gpu.Target{gpu.Llvmpipe(), gpu.AndroidBaseline2022()} {
		for name, src := range programs {
			t.Run(target.Name+"/"+name, func(t *testing.T) {
				eachGPUDispatch(t, src, target, func(d *codegen.Dispatch, n int) {
					checkLegalized(t, d, target, rand.New(rand.NewSource(int64(n))))
				})
			})
		}
	}
}

// eachGPUDispatch lowers the dispatch regions of program src with
// target's GPU strategy and calls f with each and its ordinal (from 1);
// a program without dispatches fails t.
func eachGPUDispatch(t *testing.T, src string, target *gpu.Target, f func(d *codegen.Dispatch, n int)) {
	t.Helper()
	m := targettest.Flow(t, src)
	n := 0
	m.Op.Walk(func(op *ir.Operation) bool {
		if op.Name != flow.RegionName {
			return true
		}
		n++
		d, err := codegen.Lower(op, "k", gpu.Strategy(target))
		if err != nil {
			t.Fatal(err)
		}
		f(d, n)
		return false
	})
	if n == 0 {
		t.Fatal("no dispatches")
	}
}

func checkLegalized(t *testing.T, d *codegen.Dispatch, target *gpu.Target, r *rand.Rand) {
	t.Helper()
	k := d.Kernel
	in := make([][]byte, len(k.Bindings))
	for i, b := range k.Bindings {
		in[i] = randomBinding(b.Elem, elements(t, d.Bindings[i]), r)
	}
	before := targettest.Clone(in)
	grid0 := grid(k)
	if err := kir.Run(k, grid0, nil, before); err != nil {
		t.Fatalf("tile kernel: %v\n%s", err, k)
	}
	text := k.String()
	// Thread-level kernels (cooperative reductions) and expanded
	// Contracts keep their grids.
	cooperative := k.WorkgroupSize != [3]int{1, 1, 1} || strings.Contains(text, "contract")
	if err := gpu.Legalize(k, target); err != nil {
		t.Fatalf("legalize: %v\n%s", err, text)
	}
	if k.WorkgroupSize[0] != gpu.Threads(target) || k.SubgroupSize != target.SubgroupSize {
		t.Fatalf("workgroup %v subgroup %d, want %d threads, subgroup %d", k.WorkgroupSize, k.SubgroupSize, gpu.Threads(target), target.SubgroupSize)
	}
	g := grid(k)
	if cooperative {
		if g != grid0 {
			t.Fatalf("a thread-level kernel's grid changed from %v to %v", grid0, g)
		}
	} else if n := int64(gpu.Threads(target)); g[2] != grid0[2] || g[0]*g[1]*n < grid0[0]*grid0[1] || g[0]*g[1] > grid0[0]*grid0[1] {
		t.Fatalf("grid %v after %v: %d threads do not cover the tiles, or workgroups grew", g, grid0, n)
	}

	after := targettest.Clone(in)
	if err := kir.Run(k, g, nil, after); err != nil {
		t.Fatalf("thread kernel: %v\n%s", err, k)
	}
	for i := range before {
		if !bytes.Equal(before[i], after[i]) {
			t.Fatalf("binding %d differs after legalization\nbefore:\n%s\nafter:\n%s", i, text, k)
		}
	}
}

// grid evaluates a static kernel's grid.
func grid(k *kir.Kernel) [3]int64 {
	var g [3]int64
	for i, d := range k.Grid {
		g[i] = (d.Static + d.Tile - 1) / d.Tile
	}
	return g
}

func elements(t *testing.T, v *ir.Value) int {
	t.Helper()
	st, ok := v.Type.(*ir.RankedTensorType)
	if !ok {
		return 1
	}
	n := 1
	for _, d := range st.Dims {
		if d < 0 {
			t.Fatalf("dynamic binding %v in a static test", v.Type)
		}
		n *= int(d)
	}
	return n
}

// randomBinding fills n elements of e with small values (floats in
// [-1, 1), integers in [-8, 8)).
func randomBinding(e kir.Scalar, n int, r *rand.Rand) []byte {
	b := make([]byte, n*e.ByteSize())
	for i := 0; i < n; i++ {
		x := r.Float64()*2 - 1
		iv := uint64(r.Intn(16) - 8)
		switch e {
		case kir.F32:
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(x)))
		case kir.F64:
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
		default:
			for j := 0; j < e.ByteSize(); j++ {
				b[i*e.ByteSize()+j] = byte(iv >> (8 * j))
			}
		}
	}
	return b
}

// TestGPUStrategyAgreesWithCPU lowers each program's dispatches with the
// CPU strategy and with the legalized GPU strategy of targets with and
// without subgroup operations, runs both on the same bindings, and
// compares the results: integers exactly, floats to a relative error
// of 1e-5 of the row's magnitude (the orders of float sums differ).
func TestGPUStrategyAgreesWithCPU(t *testing.T) {
	for _, target := range []*gpu.Target{gpu.Llvmpipe(), gpu.AndroidBaseline2022()} {
		for name, src := range programs {
			t.Run(target.Name+"/"+name, func(t *testing.T) {
				m := targettest.Flow(t, src)
				r := rand.New(rand.NewSource(7))
				contents := map[*ir.Value][]byte{}
				m.Op.Walk(func(op *ir.Operation) bool {
					if op.Name != flow.RegionName {
						return true
					}
					cpu, err := codegen.Lower(op, "k", codegen.Strategy{VectorWidth: 8, WorkgroupElements: 64})
					if err != nil {
						t.Fatal(err)
					}
					g, err := codegen.Lower(op, "k", gpu.Strategy(target))
					if err != nil {
						t.Fatal(err)
					}
					if err := gpu.Legalize(g.Kernel, target); err != nil {
						t.Fatal(err)
					}
					bind := func(d *codegen.Dispatch) [][]byte {
						out := make([][]byte, len(d.Bindings))
						for i, v := range d.Bindings {
							if contents[v] == nil {
								contents[v] = randomBinding(d.Kernel.Bindings[i].Elem, elements(t, v), r)
							}
							out[i] = append([]byte(nil), contents[v]...)
						}
						return out
					}
					bc, bg := bind(cpu), bind(g)
					if err := kir.Run(cpu.Kernel, grid(cpu.Kernel), nil, bc); err != nil {
						t.Fatal(err)
					}
					if err := kir.Run(g.Kernel, grid(g.Kernel), nil, bg); err != nil {
						t.Fatalf("%v\n%s", err, g.Kernel)
					}
					for i, v := range g.Bindings {
						j := indexOf(cpu.Bindings, v)
						if j < 0 {
							t.Fatalf("binding %d of the GPU kernel is not one of the CPU kernel's", i)
						}
						if msg := compare(g.Kernel.Bindings[i].Elem, bc[j], bg[i]); msg != "" {
							t.Fatalf("binding %d: %s\n%s", i, msg, g.Kernel)
						}
					}
					return false
				})
			})
		}
	}
}

func indexOf(vs []*ir.Value, v *ir.Value) int {
	for i, x := range vs {
		if x == v {
			return i
		}
	}
	return -1
}

// compare returns "" when want and got agree: bytes equal, or floats
// within 1e-5 of the largest magnitude (f16 within 1e-3).
func compare(e kir.Scalar, want, got []byte) string {
	if bytes.Equal(want, got) {
		return ""
	}
	var w, g []float64
	switch e {
	case kir.F32:
		for i := 0; i+4 <= len(want); i += 4 {
			w = append(w, float64(math.Float32frombits(binary.LittleEndian.Uint32(want[i:]))))
			g = append(g, float64(math.Float32frombits(binary.LittleEndian.Uint32(got[i:]))))
		}
	case kir.F16:
		for i := 0; i+2 <= len(want); i += 2 {
			w = append(w, f16(binary.LittleEndian.Uint16(want[i:])))
			g = append(g, f16(binary.LittleEndian.Uint16(got[i:])))
		}
	default:
		return "integers differ"
	}
	tol := 1e-5
	if e == kir.F16 {
		tol = 1e-3
	}
	scale := 1.0
	for _, x := range w {
		scale = max(scale, math.Abs(x))
	}
	for i := range w {
		if math.Abs(w[i]-g[i]) > tol*scale {
			return fmt.Sprintf("element %d: %g, want %g", i, g[i], w[i])
		}
	}
	return ""
}

// f16 decodes an IEEE half (finite values and infinities).
func f16(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp, frac := int(h>>10&0x1f), float64(h&0x3ff)
	switch exp {
	case 0:
		return sign * frac * math.Pow(2, -24)
	case 31:
		return sign * math.Inf(1)
	}
	return sign * (1 + frac/1024) * math.Pow(2, float64(exp-15))
}

func TestContractsExpandFromAnyTile(t *testing.T) {
	// The CPU's Contract tiles (128×512) expand too: every tile size is
	// covered by 64×64 blocks.
	m := targettest.Flow(t, programs["matmul"])
	expanded := 0
	r := rand.New(rand.NewSource(3))
	m.Op.Walk(func(op *ir.Operation) bool {
		if op.Name != flow.RegionName {
			return true
		}
		d, err := codegen.Lower(op, "k", codegen.CPUStrategy)
		if err != nil {
			t.Fatal(err)
		}
		hasContract := strings.Contains(d.Kernel.String(), "contract")
		checkLegalized(t, d, gpu.Llvmpipe(), r)
		if hasContract {
			expanded++
			if d.Kernel.WorkgroupSize[0] != 64 || strings.Contains(d.Kernel.String(), "contract") {
				t.Fatalf("not expanded:\n%s", d.Kernel)
			}
		}
		return false
	})
	if expanded != 1 {
		t.Fatalf("%d Contract kernels, want the matmul's", expanded)
	}
}

// A hand-built kernel whose body ends without a Yield (which kir allows at
// the top level) legalizes for every kind of target.
func TestLegalizeBodyWithoutYield(t *testing.T) {
	cudaT, err := gpu.CUDATarget("sm_80", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range []*gpu.Target{cudaT, gpu.Llvmpipe(), gpu.AndroidBaseline2022()} {
		k := targettest.Elementwise("chain", kir.F16, kir.F16, 1, 64, targettest.FloatChain)
		if err := gpu.Legalize(k, tg); err != nil {
			t.Errorf("%s: %v", tg.Name, err)
		}
	}
}
