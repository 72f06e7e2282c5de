package cudae2e

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler"
	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/hal/drivers"
	"github.com/gree-ml/gree/go/runtime/hal/drivers/cuda"
	"github.com/gree-ml/gree/go/runtime/hal/drivers/cuda/cudatest"
	"github.com/gree-ml/gree/go/runtime/tooling"
	"github.com/gree-ml/gree/go/runtime/vm"
)

// inputType is the --iree-input-type of a file's RUN line, if any.
var inputType = regexp.MustCompile(`iree-input-type=(\S+)`)

// checkFiles lists the check-test files: tests/e2e, then the directories
// of GREE_CUDA_E2E_DIRS. Lit-style files (iree-run-mlir | FileCheck) are
// left out: they check printed output, which the check runner does not.
func checkFiles(t *testing.T) []string {
	dirs := []string{filepath.Join("..", "..", "..", "tests", "e2e")}
	if extra := os.Getenv("GREE_CUDA_E2E_DIRS"); extra != "" {
		dirs = append(dirs, filepath.SplitList(extra)...)
	}
	var files []string
	for _, d := range dirs {
		err := filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() && strings.HasSuffix(p, ".mlir") {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return files
}

func TestE2EOnSimulatedGPU(t *testing.T) {
	path, ctl := cudatest.Open(t)
	t.Setenv(cuda.LibraryEnv, path)
	drivers.RegisterAll()
	dev, err := hal.Default.CreateDeviceByURI("cuda")
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	target := os.Getenv("GREE_CUDA_E2E_TARGET")
	if target == "" {
		target = "sm_80"
	}
	var skip *regexp.Regexp
	if s := os.Getenv("GREE_CUDA_E2E_SKIP"); s != "" {
		skip = regexp.MustCompile(s)
	}
	files := 0
	defer func() {
		if files > 0 && ctl.Launches() == 0 {
			t.Errorf("%d programs ran without a kernel launch: they did not run on the cuda device", files)
		}
	}()
	for _, f := range checkFiles(t) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(src, []byte("FileCheck")) || !bytes.Contains(src, []byte("check.expect")) {
			continue
		}
		if skip != nil && skip.MatchString(filepath.Base(f)) {
			t.Logf("%s: skipped (GREE_CUDA_E2E_SKIP)", f)
			continue
		}
		files++
		t.Run(filepath.Base(f), func(t *testing.T) {
			opts := compiler.Options{Filename: f, Backends: []string{"cuda"}, CUDA: compiler.CUDAOptions{Target: target}}
			if m := inputType.FindSubmatch(src); m != nil {
				opts.InputType = string(m[1])
			}
			out, err := compiler.Compile(src, opts)
			if err != nil {
				t.Fatalf("compiling for cuda: %v", err)
			}
			m, err := vm.LoadModule(out)
			if err != nil {
				t.Fatal(err)
			}
			var log bytes.Buffer
			before := ctl.Launches()
			defer func() { t.Logf("%d kernel launches on the simulator", ctl.Launches()-before) }()
			if code := tooling.RunChecks(dev, []*vm.Module{m}, tooling.CheckOptions{}, &log); code != 0 {
				t.Errorf("checks failed on the simulated GPU:\n%s", log.String())
				for _, e := range cudatest.SimulatorErrors() {
					t.Logf("simulator: %v", e)
				}
			}
		})
	}
}
