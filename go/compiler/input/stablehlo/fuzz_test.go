package stablehlo_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/input"

	"github.com/gree-ml/gree/go/compiler/parser"
)

// FuzzStableHLO mutates StableHLO programs (control flow, complex
// numbers and FFTs, random numbers, CHLO and the misc ops) and checks
// that input conversion never panics and that every error it reports
// carries a location.
func FuzzStableHLO(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/stablehlo_*.mlir")
	more, _ := filepath.Glob("../../../tests/e2e/stablehlo_*.mlir")
	for _, p := range append(seeds, more...) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		m, err := parser.Parse("fz.mlir", []byte(src))
		if err != nil {
			return
		}
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("input conversion panicked: %v", r)
			}
		}()
		if err := input.Run(m); err != nil && !strings.HasPrefix(err.Error(), "fz.mlir:") {
			t.Fatalf("error without a location: %v", err)
		}
	})
}
