package input

import (
	"testing"

	"github.com/gree-ml/gree/go/compiler/input/internal/inputtest"
)

// TestGolden converts each testdata/*.mlir (the core rules: element-wise,
// named linalg and tensor ops) and compares the printed IR with its
// .golden file (go test -update rewrites them).
func TestGolden(t *testing.T) { inputtest.Golden(t, Run) }
