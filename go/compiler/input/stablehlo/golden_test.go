package stablehlo_test

import (
	"testing"

	"github.com/gree-ml/gree/go/compiler/input"
	"github.com/gree-ml/gree/go/compiler/input/internal/inputtest"
)

// TestGolden converts each testdata/*.mlir (StableHLO, CHLO and JAX input) with input.Run
// and compares the printed IR with its .golden file (go test -update
// rewrites them).
func TestGolden(t *testing.T) { inputtest.Golden(t, input.Run) }
