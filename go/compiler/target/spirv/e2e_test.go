package spirv_test

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/codegen"
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/spirv"
	"github.com/gree-ml/gree/go/compiler/target/targettest"
)

// gpuStrategy is codegen's strategy for these tests: no tile ops (GPU
// legalization would expand them), 4-lane vectors.
var gpuStrategy = codegen.Strategy{VectorWidth: 4, WorkgroupElements: 1024, ContractTile: [2]int64{32, 32}}

// programKernels compiles an MLIR file to its dispatch kernels.
func programKernels(path string) ([]*kir.Kernel, error) {
	ds, err := targettest.ProgramDispatches(path, gpuStrategy, nil)
	ks := make([]*kir.Kernel, len(ds))
	for i, d := range ds {
		ks[i] = d.Kernel
	}
	return ks, err
}

// TestProgramKernels emits and validates every kernel codegen makes for
// the MLIR programs of tests/e2e and samples.
func TestProgramKernels(t *testing.T) {
	spirvVal(t)
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
	total, valid := 0, 0
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".mlir")
		ks, err := programKernels(path)
		if err != nil {
			t.Logf("%s: codegen: %v (its other kernels are still checked)", name, err)
		}
		for _, k := range ks {
			total++
			k.Name = name + "_" + k.Name
			ok := t.Run(k.Name, func(t *testing.T) {
				for _, v := range versions[:2] {
					e, err := spirv.Emit(k, spirv.Options{Version: v.word, Capabilities: allCaps, SubgroupSize: 32})
					if err != nil {
						t.Fatalf("%v\n%s", err, k)
					}
					validate(t, k.Name, e.SPIRV, v.env)
				}
			})
			if ok {
				valid++
			}
		}
	}
	t.Logf("%d of %d kernels from %d programs emit and validate", valid, total, len(files))
}
