package localsync

import (
	"testing"

	"github.com/gree-ml/gree/go/runtime/hal/cts"
)

func TestConformance(t *testing.T) { cts.Run(t, Factory) }
