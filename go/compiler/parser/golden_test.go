package parser

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gree-ml/gree/go/compiler/ir"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// printModule prints m in generic form; with locations for files whose name
// contains "loc".
func printModule(t *testing.T, m *ir.Module, locs bool) string {
	t.Helper()
	var sb strings.Builder
	if err := m.Print(&sb, ir.PrintOptions{Locations: locs}); err != nil {
		t.Fatal(err)
	}
	return sb.String()
}

// TestGolden parses every testdata/*.mlir, compares the generic print with
// testdata/*.golden and checks that parse → print → parse → print is
// stable, with and without locations.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.mlir")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Parse(filepath.Base(file), src)
			if err != nil {
				t.Fatal(err)
			}
			locs := strings.Contains(file, "loc")
			got := printModule(t, m, locs)
			golden := strings.TrimSuffix(file, ".mlir") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("generic print differs from %s (-want +got):\n%s", golden, diff)
			}
			for _, withLocs := range []bool{true, false} {
				first := printModule(t, m, withLocs)
				m2, err := Parse("printed.mlir", []byte(first))
				if err != nil {
					t.Fatalf("reparsing the printed module: %v\n%s", err, first)
				}
				if diff := cmp.Diff(first, printModule(t, m2, withLocs)); diff != "" {
					t.Errorf("round trip (locations %v) is not stable (-first +second):\n%s", withLocs, diff)
				}
			}
		})
	}
}
