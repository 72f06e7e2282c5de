package compiler

import (
	"os"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/schemas/module"
)

// TestRecurrenceRunsInOneKernel checks that on llvm-cpu the recurrent
// loop of tests/e2e/recurrence.mlir (a product, a cell reading the step's
// input row, an insert into Y) leaves no loop in the host program — the
// steps run inside one kernel — while vmvx keeps the host loop.
func TestRecurrenceRunsInOneKernel(t *testing.T) {
	if err := TargetUnavailable("llvm-cpu"); err != nil {
		t.Skipf("llvm-cpu unavailable: %v", err)
	}
	src, err := os.ReadFile("../../tests/e2e/recurrence.mlir")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		backend  string
		hostLoop bool
	}{{"llvm-cpu", false}, {"vmvx", true}} {
		out, err := Compile(src, Options{Filename: "recurrence.mlir", Backends: []string{tc.backend}})
		if err != nil {
			t.Fatalf("%s: %v", tc.backend, err)
		}
		m, err := module.Decode(out)
		if err != nil {
			t.Fatal(err)
		}
		dis := module.Disassemble(m)
		if loop := strings.Contains(dis, "cond_br"); loop != tc.hostLoop {
			t.Errorf("%s: host loop %v, want %v:\n%s", tc.backend, loop, tc.hostLoop, dis)
		}
	}
}
