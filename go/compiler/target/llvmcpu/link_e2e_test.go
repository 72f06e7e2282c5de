package llvmcpu_test

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler"
	"github.com/gree-ml/gree/go/compiler/target/llvmcpu"
	"github.com/gree-ml/gree/go/runtime"
	"github.com/gree-ml/gree/go/runtime/tooling"
	"github.com/gree-ml/gree/go/runtime/vm"
)

// checkProgram compiles an MLIR check program for llvm-cpu, linking with
// gree's linker or ld.lld, and runs its checks on dev; it returns whether
// they passed and the report.
func checkProgram(t *testing.T, s *runtime.Session, path string, gree bool) (bool, string) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ok bool
	var report bytes.Buffer
	t.Run(map[bool]string{true: "gree", false: "lld"}[gree], func(t *testing.T) {
		llvmcpu.UseLinker(t, gree)
		out, err := compiler.Compile(src, compiler.Options{Filename: path, Backends: []string{"llvm-cpu"}})
		if err != nil {
			report.WriteString("compile: " + err.Error())
			return
		}
		m, err := vm.LoadModule(out)
		if err != nil {
			t.Fatalf("loading the module: %v", err)
		}
		ok = tooling.RunChecks(s.Device, []*vm.Module{m}, tooling.CheckOptions{}, &report) == 0
	})
	return ok, report.String()
}

// TestGreeLinkerRunsPrograms compiles the check programs of tests/e2e
// for llvm-cpu twice, linking the kernels with ld.lld and
// with gree's linker, and runs both on the local-sync device: whatever
// passes with ld.lld's shared objects must pass with gree's.
func TestGreeLinkerRunsPrograms(t *testing.T) {
	needLLVM(t)
	if testing.Short() {
		t.Skip("compiles every e2e program twice")
	}
	root := filepath.Join("..", "..", "..", "..")
	files, _ := filepath.Glob(filepath.Join(root, "tests", "e2e", "*.mlir"))
	sort.Strings(files)
	if len(files) == 0 {
		t.Skip("no MLIR programs found")
	}
	s, err := runtime.NewSession("local-sync")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	passed := 0
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".mlir")
		t.Run(name, func(t *testing.T) {
			lldOK, lldReport := checkProgram(t, s, path, false)
			greeOK, greeReport := checkProgram(t, s, path, true)
			if greeOK {
				passed++
			}
			if lldOK && !greeOK {
				t.Errorf("passes when ld.lld links, fails when gree's linker does:\n%s", greeReport)
			}
			if !lldOK {
				t.Logf("fails with ld.lld too:\n%s", lldReport)
			}
		})
	}
	t.Logf("%d of %d programs pass linked by gree's linker", passed, len(files))
}
