package flow

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/parser"
)

var update = flag.Bool("update", false, "rewrite the .golden files")

// TestGolden fuses and forms dispatches for each testdata/*.mlir and compares the printed IR
// with its .golden file (go test -update rewrites them).
func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.mlir")
	if len(files) == 0 {
		t.Fatal("no testdata")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			got := runFlow(t, f).String()
			golden := strings.TrimSuffix(f, ".mlir") + ".golden"
			if *update {
				os.WriteFile(golden, []byte(got), 0o644)
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if got != string(want) {
				t.Errorf("IR after dispatch creation differs from %s:\n%s", golden, got)
			}
			// The output must parse back.
			if _, err := parser.Parse("golden", []byte(got)); err != nil {
				t.Errorf("printed IR does not parse: %v", err)
			}
		})
	}
}
