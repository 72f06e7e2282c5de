package compiler

import (
	"os"
	"path/filepath"
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

// TestCooperativeRecurrence checks that on llvm-cpu the recurrence whose
// step product is large enough (cooperative_rnn_steps: 4 column blocks,
// 32768 multiply-adds) shares its steps among two workgroups through
// counters, and the small one (reverse_rnn_steps) runs on one workgroup
// without them. tests/e2e/recurrence.mlir checks both values.
func TestCooperativeRecurrence(t *testing.T) {
	if err := TargetUnavailable("llvm-cpu"); err != nil {
		t.Skipf("llvm-cpu unavailable: %v", err)
	}
	src, err := os.ReadFile("../../tests/e2e/recurrence.mlir")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := Compile(src, Options{Filename: "recurrence.mlir", Backends: []string{"llvm-cpu"}, Dump: DumpOptions{Sources: dir}}); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.kir"))
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(text), "contract ") || !strings.Contains(string(text), "for ") {
			continue
		}
		fn := strings.Split(filepath.Base(f), "_dispatch_")[0]
		found[fn] = strings.Contains(string(text), "fetch_add") && strings.Contains(string(text), "spin_until")
		if fn == "cooperative_rnn_steps" {
			// Merged steps (codegen's mergedStep): ticket 0 and the
			// merged phase, each a claim and a completion: 4 FetchAdds
			// (6 unmerged: the product's phase and the cell's).
			if n := strings.Count(string(text), "fetch_add"); n != 4 {
				t.Errorf("cooperative_rnn_steps: %d fetch_adds, want 4 (merged steps)", n)
			}
		}
	}
	if coop, ok := found["cooperative_rnn_steps"]; !ok || !coop {
		t.Errorf("cooperative_rnn_steps: cooperative kernel %v (found %v)", coop, ok)
	}
	if coop, ok := found["reverse_rnn_steps"]; !ok || coop {
		t.Errorf("reverse_rnn_steps: cooperative kernel %v (found %v), want a single workgroup's", coop, ok)
	}
}
