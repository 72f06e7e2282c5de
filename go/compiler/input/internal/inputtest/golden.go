// Package inputtest holds the golden-file test that the packages of the
// input conversion share.
package inputtest

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/parser"
)

var update = flag.Bool("update", false, "rewrite the .golden files")

// Golden converts each testdata/*.mlir of the test's package with convert
// (input.Run) and compares the printed IR with its .golden file (go test
// -update rewrites them); the printed IR must parse back.
func Golden(t *testing.T, convert func(*ir.Module) error) {
	t.Helper()
	files, _ := filepath.Glob("testdata/*.mlir")
	if len(files) == 0 {
		t.Fatal("no testdata")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			m, err := parser.Parse(f, src)
			if err != nil {
				t.Fatal(err)
			}
			if err := convert(m); err != nil {
				t.Fatal(err)
			}
			got := m.String()
			golden := strings.TrimSuffix(f, ".mlir") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if got != string(want) {
				t.Errorf("IR after input conversion differs from %s:\n%s", golden, got)
			}
			// The output must parse back.
			if _, err := parser.Parse("golden", []byte(got)); err != nil {
				t.Errorf("printed IR does not parse: %v", err)
			}
		})
	}
}
