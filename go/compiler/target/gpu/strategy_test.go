package gpu_test

import (
	"bytes"
	"encoding/binary"
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
					checkLegalized(t, d, target, rand.New(rand.NewSource(int64(n))))
					return false
				})
				if n == 0 {
					t.Fatal("no dispatches")
				}
			})
		}
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
	if err := gpu.Legalize(k, target); err != nil {
		t.Fatalf("legalize: %v\n%s", err, text)
	}
	if k.WorkgroupSize[0] != gpu.Threads(target) || k.SubgroupSize != target.SubgroupSize {
		t.Fatalf("workgroup %v subgroup %d, want %d threads, subgroup %d", k.WorkgroupSize, k.SubgroupSize, gpu.Threads(target), target.SubgroupSize)
	}
	g := grid(k)
	if want := (grid0[0] + int64(gpu.Threads(target)) - 1) / int64(gpu.Threads(target)); g[0] != want || g[1] != grid0[1] || g[2] != grid0[2] {
		t.Fatalf("grid %v after %v, want x = %d", g, grid0, want)
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

func TestLegalizeRejectsTileOps(t *testing.T) {
	m := targettest.Flow(t, programs["matmul"])
	rejected := 0
	m.Op.Walk(func(op *ir.Operation) bool {
		if op.Name != flow.RegionName {
			return true
		}
		d, err := codegen.Lower(op, "k", codegen.CPUStrategy)
		if err != nil {
			t.Fatal(err)
		}
		if err := gpu.Legalize(d.Kernel, gpu.Llvmpipe()); err != nil {
			if !strings.Contains(err.Error(), "contract tile op") {
				t.Fatalf("got %v, want a tile-op error", err)
			}
			rejected++
		}
		return false
	})
	if rejected != 1 {
		t.Fatalf("%d kernels rejected, want the matmul's", rejected)
	}
}
