package ptx_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gree-ml/gree/go/compiler/codegen"
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/gpu"
	"github.com/gree-ml/gree/go/compiler/target/mathexp"
	"github.com/gree-ml/gree/go/compiler/target/targettest"
)

// The program sweep: every kernel codegen makes for the MLIR programs of
// tests/e2e and samples with the cuda target's GPU strategy (gpu.Strategy,
// gpu.Legalize and mathexp.Expand for sm_80, as the cuda backend compiles
// them) is emitted, one module per program, and assembled by ptxas for
// every architecture; each kernel then runs on ptxsim and kir.Run over
// the same random inputs, every binding agreeing bit for bit (NaN
// payloads aside): the expanded math is plain arithmetic, which the
// emitter reproduces exactly.

// programDispatches compiles an MLIR file to its dispatches, legalized
// for t with the math expanded.
func programDispatches(path string, t *gpu.Target) ([]*codegen.Dispatch, error) {
	return targettest.ProgramDispatches(path, gpu.Strategy(t), func(k *kir.Kernel) error {
		if err := gpu.Legalize(k, t); err != nil {
			return err
		}
		return mathexp.Expand(k)
	})
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
						in, pcs, grid := targettest.SweepInputs(d, uint64(s+1), wide)
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
