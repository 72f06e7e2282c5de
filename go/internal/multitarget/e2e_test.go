package multitarget

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler"
	"github.com/gree-ml/gree/go/runtime"
	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/tooling"
	"github.com/gree-ml/gree/go/runtime/vm"
)

// inputType is the --iree-input-type of a file's RUN line, if any.
var inputType = regexp.MustCompile(`iree-input-type=(\S+)`)

// TestCheckProgramsRunWithEitherVariant compiles every check program of
// tests/e2e for llvm-cpu,vmvx into one module and runs its checks on
// local-sync and local-task with each variant: llvm-cpu's (the default)
// and vmvx's (--executable_loaders=vmvx).
func TestCheckProgramsRunWithEitherVariant(t *testing.T) {
	needLLVM(t)
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "tests", "e2e", "*.mlir"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no check programs in tests/e2e: %v", err)
	}
	devs := map[string]hal.Device{}
	for _, driver := range []string{"local-sync", "local-task"} {
		dev, err := runtime.Drivers().CreateDeviceByURI(driver)
		if err != nil {
			t.Fatal(err)
		}
		defer dev.Close()
		devs[driver] = dev
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(src, []byte("FileCheck")) || !bytes.Contains(src, []byte("check.expect")) {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			opts := compiler.Options{Filename: f, Backends: []string{"llvm-cpu", "vmvx"}}
			if m := inputType.FindSubmatch(src); m != nil {
				opts.InputType = string(m[1])
			}
			out, err := compiler.Compile(src, opts)
			if err != nil {
				t.Fatalf("compiling for llvm-cpu,vmvx: %v", err)
			}
			m, err := vm.LoadModule(out)
			if err != nil {
				t.Fatal(err)
			}
			for _, driver := range []string{"local-sync", "local-task"} {
				for _, loaders := range []string{"", "vmvx"} {
					setLoaders(t, loaders)
					var log bytes.Buffer
					if code := tooling.RunChecks(devs[driver], []*vm.Module{m}, tooling.CheckOptions{}, &log); code != 0 {
						t.Errorf("%s, --executable_loaders=%s: checks failed:\n%s", driver, loaders, lastLines(log.String(), 30))
					}
				}
			}
		})
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}
