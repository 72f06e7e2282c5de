package spirv_test

import (
	"crypto/sha256"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/codegen"
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

// programDispatches compiles an MLIR file to its dispatches, legalized
// for t.
func programDispatches(path string, t *gpu.Target) ([]*codegen.Dispatch, error) {
	return targettest.ProgramDispatches(path, gpu.Strategy(t), func(k *kir.Kernel) error { return gpu.Legalize(k, t) })
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
			in0, pcs0, grid0 := targettest.SweepInputs(d, 1, false)
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
					in, pcs, grid := targettest.SweepInputs(d, uint64(v+1), wide)
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
