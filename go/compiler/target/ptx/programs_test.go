package ptx_test

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gree-ml/gree/go/compiler/codegen"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/gpu"
	"github.com/gree-ml/gree/go/compiler/target/targettest"
)

// The program sweep: every kernel codegen makes for the MLIR programs of
// tests/e2e and samples with the cuda target's GPU strategy (gpu.Strategy,
// gpu.Legalize and gpu.ExpandMath for sm_80, as the cuda backend compiles
// them) is emitted, one module per program, and assembled by ptxas for
// every architecture; each kernel then runs on ptxsim and kir.Run over
// the same random inputs, every binding agreeing bit for bit (NaN
// payloads aside): the expanded math is plain arithmetic, which the
// emitter reproduces exactly.

// dynamicDim is the extent the sweep gives every dynamic dimension.
const dynamicDim = 7

// programDispatches compiles an MLIR file to its dispatches, legalized
// for t with the math expanded.
func programDispatches(path string, t *gpu.Target) ([]*codegen.Dispatch, error) {
	return targettest.ProgramDispatches(path, gpu.Strategy(t), func(k *kir.Kernel) error {
		if err := gpu.Legalize(k, t); err != nil {
			return err
		}
		return gpu.ExpandMath(k)
	})
}

// sweepInputs makes the bindings, push constants and grid of one run of
// d: random values (small integers, floats in ±2, with wide also large
// integers and floats of varied magnitude).
func sweepInputs(d *codegen.Dispatch, seed uint64, wide bool) (bufs [][]byte, pcs []int64, grid [3]int64) {
	r := rand.New(rand.NewPCG(seed, 7))
	k := d.Kernel
	for i, v := range d.Bindings {
		n := int64(1)
		if tt, ok := v.Type.(*ir.RankedTensorType); ok {
			for _, x := range tt.Dims {
				if x < 0 {
					x = dynamicDim
				}
				n *= x
			}
		}
		s := k.Bindings[i].Elem
		if k.Bindings[i].Access&kir.Read == 0 {
			bufs = append(bufs, make([]byte, n*int64(s.ByteSize())))
			continue
		}
		if s.IsFloat() {
			xs := make([]float64, n)
			for j := range xs {
				xs[j] = r.Float64()*4 - 2
				if wide && j%3 == 0 {
					xs[j] *= math.Pow(10, float64(r.IntN(9)-4))
				}
			}
			bufs = append(bufs, encFloats(s, xs))
			continue
		}
		xs := make([]int64, n)
		for j := range xs {
			switch {
			case s == kir.I1:
				xs[j] = int64(r.IntN(2))
			case !wide:
				xs[j] = int64(r.IntN(16)) - 4
			case j%2 == 0:
				xs[j] = int64(r.IntN(512)) - 256
			default:
				xs[j] = int64(r.Uint64())
			}
		}
		bufs = append(bufs, targettest.EncInts(s, xs))
	}
	for _, p := range d.Push {
		if p.Dim < 0 {
			pcs = append(pcs, 3)
			continue
		}
		x := int64(dynamicDim)
		if tt, ok := p.Value.Type.(*ir.RankedTensorType); ok && tt.Dims[p.Dim] >= 0 {
			x = tt.Dims[p.Dim]
		}
		pcs = append(pcs, x)
	}
	for i, g := range k.Grid {
		n := g.Static
		for _, pc := range g.PushConstants {
			n *= pcs[pc]
		}
		grid[i] = max((n+g.Tile-1)/g.Tile, 1)
	}
	return bufs, pcs, grid
}

// programFiles lists the MLIR programs of tests/e2e and samples
// (GREE_SWEEP_FILES=name keeps those whose file name contains name).
func programFiles(t *testing.T) []string {
	root := filepath.Join("..", "..", "..", "..")
	var files []string
	for _, dir := range []string{"tests/e2e", "samples"} {
		fs, _ := filepath.Glob(filepath.Join(root, dir, "*.mlir"))
		files = append(files, fs...)
	}
	sort.Strings(files)
	if f := os.Getenv("GREE_SWEEP_FILES"); f != "" {
		var keep []string
		for _, p := range files {
			if strings.Contains(filepath.Base(p), f) {
				keep = append(keep, p)
			}
		}
		files = keep
	}
	if len(files) == 0 {
		t.Skip("no MLIR programs found")
	}
	return files
}

func TestProgramKernels(t *testing.T) {
	target, err := gpu.CUDATarget("sm_80", "")
	if err != nil {
		t.Fatal(err)
	}
	sim := true
	if err := simCheck(); err != nil || testing.Short() {
		t.Logf("kernels are emitted and assembled (-short: for sm_80 only), not run: ptxsim unavailable (%v) or -short", err)
		sim = false
	}
	var total, ran atomic.Int64
	t.Run("programs", func(t *testing.T) {
		for _, path := range programFiles(t) {
			name := strings.TrimSuffix(filepath.Base(path), ".mlir")
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				ds, err := programDispatches(path, target)
				if err != nil {
					t.Errorf("%s: %v", name, err)
				}
				if len(ds) == 0 {
					return
				}
				var ks []*kir.Kernel
				for _, d := range ds {
					d.Kernel.Name = name + "_" + d.Kernel.Name
					ks = append(ks, d.Kernel)
				}
				total.Add(int64(len(ks)))
				as := archs
				if testing.Short() {
					as = []string{"sm_80"}
				}
				vs := emitFor(t, as, ks...)
				if !sim {
					return
				}
				v := vs["sm_80"]
				m := simLoad(t, v)
				for i, d := range ds {
					ran.Add(1)
					for s, wide := range []bool{false, true} {
						in, pcs, grid := sweepInputs(d, uint64(s+1), wide)
						want := outcome{bufs: clone(in)}
						want.err = kir.Run(d.Kernel, grid, pcs, want.bufs)
						got := simLaunch(t, m, v.Entries[i], grid, pcs, clone(in))
						compare(t, d.Kernel, want, got)
					}
				}
			})
		}
	})
	t.Logf("%d kernels emitted and assembled; %d run on ptxsim", total.Load(), ran.Load())
}
