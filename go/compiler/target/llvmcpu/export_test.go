package llvmcpu

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// UseLinker makes the target link with gree's linker (gree true) or with
// ld.lld until the test ends, skipping the test when ld.lld is asked for
// and not installed. Tests that call it must not run in parallel.
func UseLinker(t testing.TB, gree bool) {
	t.Helper()
	tc, err := load()
	if err != nil {
		t.Skipf("llvm-cpu unavailable: %v", err)
	}
	old := tc.lld
	t.Cleanup(func() { tc.lld = old })
	if gree {
		tc.lld = ""
		return
	}
	if tc.lld = findLLD(); tc.lld == "" {
		t.Skip("ld.lld is not installed")
	}
}

var (
	liteOnce sync.Once
	liteTC   *liteLLVM
	liteErr  error
)

// UseLLVMLite makes the target compile with llvmlite's LLVM until the
// test ends, skipping the test when llvmlite is not found (GREE_LIBLLVMLITE,
// the usual places, or the repository's .venv). Tests that call it must
// not run in parallel.
func UseLLVMLite(t testing.TB) {
	t.Helper()
	tc, err := load()
	if err != nil {
		t.Skipf("llvm-cpu unavailable: %v", err)
	}
	liteOnce.Do(func() {
		if os.Getenv("GREE_LIBLLVMLITE") == "" && len(liteCandidates()) == 0 {
			for _, c := range siteLibs(filepath.Join("..", "..", "..", "..", ".venv")) {
				if _, err := os.Stat(c); err == nil {
					os.Setenv("GREE_LIBLLVMLITE", c)
					break
				}
			}
		}
		liteTC, liteErr = loadLLVMLite()
	})
	if liteErr != nil {
		t.Skipf("llvmlite unavailable: %v", liteErr)
	}
	old := tc.llvm
	t.Cleanup(func() { tc.llvm = old })
	tc.llvm = liteTC
}

// MayNeedColBlocks is mayNeedColBlocks for AVX-512's row kernel (16
// lanes: 32 columns per block, column blocks at 49 columns left).
func MayNeedColBlocks(kernels []*kir.Kernel) bool { return mayNeedColBlocks(kernels, 16) }
