package codegen_test

import (
	"encoding/binary"
	"math"
	"math/rand"
	"testing"

	"github.com/gree-ml/gree/go/compiler/codegen"
	"github.com/gree-ml/gree/go/compiler/flow"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/targettest"
)

// lowerAll compiles src to its dispatches.
func lowerAll(t *testing.T, src string, st codegen.Strategy) []*codegen.Dispatch {
	t.Helper()
	m := targettest.Flow(t, src)
	var out []*codegen.Dispatch
	m.Op.Walk(func(op *ir.Operation) bool {
		if op.Name == flow.RegionName {
			d, err := codegen.Lower(op, "k", st)
			if err != nil {
				t.Fatal(err)
			}
			if err := kir.Verify(d.Kernel); err != nil {
				t.Fatalf("kernel does not verify: %v\n%s", err, d.Kernel)
			}
			out = append(out, d)
			return false
		}
		return true
	})
	return out
}

func f32s(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func bytesOf(xs []float32) []byte {
	b := make([]byte, 4*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// run executes a dispatch with the given static grid sizes and bindings
// (static shapes only: push constants empty).
func run(t *testing.T, d *codegen.Dispatch, bindings [][]byte) {
	t.Helper()
	var grid [3]int64
	for i, g := range d.Kernel.Grid {
		if len(g.PushConstants) > 0 {
			t.Fatalf("dynamic grid in a static test")
		}
		grid[i] = (g.Static + g.Tile - 1) / g.Tile
	}
	if err := kir.Run(d.Kernel, grid, nil, bindings); err != nil {
		t.Fatalf("run: %v\n%s", err, d.Kernel)
	}
}

func random(n int, r *rand.Rand) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = r.Float32()*2 - 1
	}
	return out
}

func TestElementwiseChainFusesAndVectorizes(t *testing.T) {
	for _, st := range []codegen.Strategy{codegen.CPUStrategy, {VectorWidth: 1, WorkgroupElements: 100}} {
		ds := lowerAll(t, `func.func @f(%a: tensor<1000xf32>, %b: tensor<1000xf32>) -> tensor<1000xf32> {
  %0 = arith.mulf %a, %b : tensor<1000xf32>
  %1 = arith.addf %0, %a : tensor<1000xf32>
  %2 = math.exp %1 : tensor<1000xf32>
  %3 = arith.subf %2, %b : tensor<1000xf32>
  return %3 : tensor<1000xf32>
}`, st)
		if len(ds) != 1 {
			t.Fatalf("%d dispatches, want 1 (element-wise fusion)", len(ds))
		}
		r := rand.New(rand.NewSource(1))
		a, b := random(1000, r), random(1000, r)
		in := map[string][]byte{"a": bytesOf(a), "b": bytesOf(b)}
		bind := make([][]byte, len(ds[0].Bindings))
		args := ds[0].Region.ParentOp().Regions[0].Blocks[0].Args
		for i, v := range ds[0].Bindings {
			switch v {
			case args[0]:
				bind[i] = in["a"]
			case args[1]:
				bind[i] = in["b"]
			default:
				bind[i] = make([]byte, 4000)
			}
		}
		run(t, ds[0], bind)
		got := f32s(bind[0])
		for i := range a {
			want := float32(math.Exp(float64(a[i]*b[i]+a[i]))) - b[i]
			if math.Abs(float64(got[i]-want)) > 1e-5*math.Abs(float64(want))+1e-6 {
				t.Fatalf("element %d: got %v want %v", i, got[i], want)
			}
		}
	}
}

// bindByName fills a dispatch's bindings: function arguments by position
// from args, everything else zeroed with the given byte sizes.
func bindArgs(d *codegen.Dispatch, args [][]byte, size func(v *ir.Value) int) [][]byte {
	fargs := d.Region.ParentOp().Regions[0].Blocks[0].Args
	bind := make([][]byte, len(d.Bindings))
	for i, v := range d.Bindings {
		bind[i] = nil
		for j, a := range fargs {
			if v == a {
				bind[i] = args[j]
			}
		}
		if bind[i] == nil {
			bind[i] = make([]byte, size(v))
		}
	}
	return bind
}

func sizeOf(v *ir.Value) int {
	n, _ := ir.NumElements(v.Type.(*ir.RankedTensorType).Dims)
	return int(n) * 4
}

func TestMatmulAndReduction(t *testing.T) {
	const M, N, K = 37, 70, 45
	src := `func.func @f(%a: tensor<37x45xf32>, %b: tensor<45x70xf32>) -> (tensor<37x70xf32>, tensor<37xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<37x70xf32>
  %f = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%z : f32) outs(%e : tensor<37x70xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<37x70xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<37x45xf32>, tensor<45x70xf32>) outs(%f : tensor<37x70xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<37x70xf32>
  %e2 = tensor.empty() : tensor<37xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<37x45xf32>) outs(%e2 : tensor<37xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  } -> tensor<37xf32>
  return %m, %r : tensor<37x70xf32>, tensor<37xf32>
}`
	if testing.Short() {
		t.Skip("parser hooks for the generic custom syntax are needed")
	}
	for _, st := range []codegen.Strategy{codegen.CPUStrategy, {VectorWidth: 8, WorkgroupElements: 64}} {
		ds := lowerAll(t, src, st)
		r := rand.New(rand.NewSource(2))
		a, b := random(M*K, r), random(K*N, r)
		args := [][]byte{bytesOf(a), bytesOf(b)}
		var results [][]byte
		for _, d := range ds {
			bind := bindArgs(d, args, sizeOf)
			run(t, d, bind)
			results = append(results, bind[0])
		}
		mm := f32s(results[len(results)-2])
		red := f32s(results[len(results)-1])
		for i := 0; i < M; i++ {
			sum := 0.0
			for k := 0; k < K; k++ {
				sum += float64(a[i*K+k])
			}
			if math.Abs(float64(red[i])-sum) > 1e-5*K {
				t.Fatalf("reduction row %d: got %v want %v", i, red[i], sum)
			}
			for j := 0; j < N; j++ {
				want := 0.0
				for k := 0; k < K; k++ {
					want += float64(a[i*K+k]) * float64(b[k*N+j])
				}
				if math.Abs(float64(mm[i*N+j])-want) > 1e-5*K {
					t.Fatalf("matmul (%d,%d): got %v want %v", i, j, mm[i*N+j], want)
				}
			}
		}
	}
}
