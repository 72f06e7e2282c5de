package compiler

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestLowerGCTargetRestores: the compile target holds while any of two
// overlapping compiles runs and the previous one returns after the last.
func TestLowerGCTargetRestores(t *testing.T) {
	if os.Getenv("GOGC") != "" {
		t.Skip("GOGC is set: compiles keep it")
	}
	old := debug.SetGCPercent(77)
	defer debug.SetGCPercent(old)
	done1 := lowerGCTarget()
	done2 := lowerGCTarget()
	if p := debug.SetGCPercent(compileGCPercent); p != compileGCPercent {
		t.Fatalf("during compiles: %d, want %d", p, compileGCPercent)
	}
	done1()
	if p := debug.SetGCPercent(compileGCPercent); p != compileGCPercent {
		t.Fatalf("while one compile runs: %d, want %d", p, compileGCPercent)
	}
	done2()
	if p := debug.SetGCPercent(77); p != 77 {
		t.Fatalf("after the compiles: %d, want 77", p)
	}
}
