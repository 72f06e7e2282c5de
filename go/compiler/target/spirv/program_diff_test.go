package spirv_test

import (
	"crypto/sha256"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/codegen"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/gpu"
	"github.com/gree-ml/gree/go/compiler/target/spirv"
	"github.com/gree-ml/gree/go/compiler/target/targettest"
	schema "github.com/gree-ml/gree/go/schemas/spirv"
)

// The program sweep: every kernel codegen makes for the MLIR programs of
// tests/e2e and samples with lavapipe's GPU strategy (gpu.Strategy and
// gpu.Legalize for gpu.Llvmpipe, as the vulkan-spirv backend compiles
// them) runs on the Vulkan device and on kir.Run over the same random
// inputs; integer bindings must agree bit for bit, float ones within a
// small tolerance. A failure names the program and dispatch; the kernel
// is printed with -v.

// dynamicDim is the extent the sweep gives every dynamic dimension.
const dynamicDim = 7

// programDispatches compiles an MLIR file to its dispatches, legalized
// for t.
func programDispatches(path string, t *gpu.Target) ([]*codegen.Dispatch, error) {
	return targettest.ProgramDispatches(path, gpu.Strategy(t), func(k *kir.Kernel) error { return gpu.Legalize(k, t) })
}

// sweepInputs makes the bindings, push constants and grid of one run of
// d: every dynamic dimension is dynamicDim, scalar push constants 3,
// read bindings random (integers small in the first variant, of any
// width in the second) and written-only ones zero.
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

// sweepClose reports whether a float result is close enough to the
// interpreter's: within 8 ULPs, or a relative error of 1e-5 (f32),
// 1e-12 (f64), 1e-2 (f16) or 2e-2 (bf16) of values past 1. lavapipe's
// transcendental functions are not the interpreter's, and a few ULPs of
// difference grow through the chains of operations programs are made of.
func sweepClose(s kir.Scalar, got, want float64) bool {
	if ulps(s, got, want) <= 8 {
		return true
	}
	if math.IsNaN(got) || math.IsNaN(want) || math.IsInf(got, 0) || math.IsInf(want, 0) {
		return false
	}
	rel := map[kir.Scalar]float64{kir.F16: 1e-2, kir.BF16: 2e-2, kir.F32: 1e-5, kir.F64: 1e-12}[s]
	return math.Abs(got-want) <= rel*math.Max(1, math.Abs(want))
}

// compareSweep checks every binding, returning the differences as text
// (at most a few per binding).
func compareSweep(k *kir.Kernel, want, got [][]byte) []string {
	var diffs []string
	for b, bind := range k.Bindings {
		s := bind.Elem
		n := len(want[b]) / s.ByteSize()
		bad := 0
		for i := 0; i < n; i++ {
			wf, wu := elem(want[b], s, i)
			gf, gu := elem(got[b], s, i)
			ok := true
			switch {
			case s.IsFloat():
				ok = sweepClose(s, gf, wf)
			case s == kir.I1:
				ok = wu&1 == gu&1
			default:
				ok = wu == gu
			}
			if !ok {
				if bad < 4 {
					if s.IsFloat() {
						diffs = append(diffs, fmt.Sprintf("binding %d element %d: got %v, want %v", b, i, gf, wf))
					} else {
						diffs = append(diffs, fmt.Sprintf("binding %d element %d: got %d, want %d", b, i, int64(gu), int64(wu)))
					}
				}
				bad++
			}
		}
		if bad > 4 {
			diffs = append(diffs, fmt.Sprintf("binding %d: %d of %d elements differ", b, bad, n))
		}
	}
	return diffs
}

// sweepMaxBytes is the largest SPIR-V module the sweep runs by default:
// lavapipe takes a second or more to build a module past it (up to a
// minute for the unrolled f64 polynomials of stablehlo_chlo) on a cold
// shader cache; GREE_SWEEP=all runs them too.
const sweepMaxBytes = 16 << 10

// TestRunProgramKernels is the program sweep (see above): of the ~650
// kernels, the ~400 distinct modules (kernels that emit the same module
// for the same inputs run once) up to sweepMaxBytes, in about a minute
// on a cold shader cache and seconds on a warm one; -short skips it.
// GREE_SWEEP=all runs every module, GREE_SWEEP_FILES=name only the
// programs whose file name contains name.
func TestRunProgramKernels(t *testing.T) {
	if testing.Short() {
		t.Skip("the program sweep takes up to a minute: skipped with -short")
	}
	r := device(t)
	root := filepath.Join("..", "..", "..", "..")
	var files []string
	for _, dir := range []string{"tests/e2e", "samples"} {
		fs, _ := filepath.Glob(filepath.Join(root, dir, "*.mlir"))
		files = append(files, fs...)
	}
	sort.Strings(files)
	if len(files) == 0 {
		t.Skip("no MLIR programs found")
	}
	if f := os.Getenv("GREE_SWEEP_FILES"); f != "" {
		var keep []string
		for _, p := range files {
			if strings.Contains(filepath.Base(p), f) {
				keep = append(keep, p)
			}
		}
		files = keep
	}
	all := os.Getenv("GREE_SWEEP") == "all"
	target := gpu.Llvmpipe()
	opts := spirv.Options{Version: target.SPIRVVersion, Capabilities: target.Capabilities, SubgroupSize: target.SubgroupSize, Target: target.Name}
	env := map[uint32]string{gpu.SPIRV13: "vulkan1.1", gpu.SPIRV15: "vulkan1.2", gpu.SPIRV16: "vulkan1.3"}[target.SPIRVVersion]
	seen := map[string]bool{}
	total, same, large := 0, 0, 0
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".mlir")
		ds, err := programDispatches(path, target)
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		for _, d := range ds {
			k := d.Kernel
			total++
			e, err := spirv.Emit(k, opts)
			if err != nil {
				t.Errorf("%s_%s: %v\n%s", name, k.Name, err, k)
				continue
			}
			in0, pcs0, grid0 := sweepInputs(d, 1, false)
			key := fmt.Sprintf("%x %v %v", sha256.Sum256(e.SPIRV), pcs0, grid0)
			for _, b := range in0 {
				key += fmt.Sprintf(" %d", len(b))
			}
			if seen[key] {
				same++
				continue
			}
			seen[key] = true
			if len(e.SPIRV) > sweepMaxBytes && !all {
				large++
				continue
			}
			t.Run(name+"_"+k.Name, func(t *testing.T) {
				t.Parallel()
				validate(t, k.Name, e.SPIRV, env)
				for v, wide := range []bool{false, true} {
					in, pcs, grid := sweepInputs(d, uint64(v+1), wide)
					want := targettest.Clone(in)
					werr := kir.Run(k, grid, pcs, want)
					got := targettest.Clone(in)
					code, err := r.run(e, grid, pcs, got)
					if err != nil {
						t.Fatal(err)
					}
					if (werr != nil) != (code != 0) {
						t.Fatalf("inputs %d: interpreter error %v, module status %#x (%s)\n%s", v, werr, code, schema.Describe(code), k)
					}
					if werr != nil {
						t.Logf("inputs %d: both report an error (%v)", v, werr)
						continue
					}
					if diffs := compareSweep(k, want, got); len(diffs) > 0 {
						t.Errorf("inputs %d (grid %v, push constants %v):\n  %s", v, grid, pcs, strings.Join(diffs, "\n  "))
						if testing.Verbose() {
							t.Logf("%s", k)
						}
					}
				}
			})
		}
	}
	t.Logf("%d kernels from %d programs: %d run, %d the same as one run, %d modules over %d bytes skipped (GREE_SWEEP=all runs them)",
		total, len(files), total-same-large, same, large, sweepMaxBytes)
}
