package ptxsim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/internal/ptxas"
)

// TestPtxasAcceptsTestKernels keeps the test PTX honest: every kernel the
// tests run must assemble with NVIDIA's ptxas (skipped, with the reason,
// when ptxas is not installed).
func TestPtxasAcceptsTestKernels(t *testing.T) {
	path := ptxas.Need(t)
	files, _ := filepath.Glob("testdata/*.ptx")
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ptxas.Assemble(path, src, "sm_80"); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	var sb strings.Builder
	sb.WriteString(ptxHeader)
	for _, c := range allOpCases() {
		sb.WriteString(c.kernel())
	}
	if _, err := ptxas.Assemble(path, []byte(sb.String()), "sm_90"); err != nil {
		t.Errorf("op cases: %v", err)
	}
}
