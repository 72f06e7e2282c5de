package allocators

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/hal/cts"
	"github.com/gree-ml/gree/go/runtime/hal/drivers/cuda"
	"github.com/gree-ml/gree/go/runtime/hal/drivers/localsync"
	"github.com/gree-ml/gree/go/runtime/hal/drivers/localtask"
	"github.com/gree-ml/gree/go/runtime/hal/drivers/vulkan"
)

// SpecSets are the allocator spec lists the conformance suite runs with.
var specSets = [][]string{{"caching"}, {"debug"}, {"caching", "debug"}, {"debug", "caching:*=1mib;4mib;8"}}

// The conformance suite every driver runs, on the wrapped allocators
// (vulkan and cuda where they are installed; the cuda driver's own tests
// run it on the fake libcuda's device-only memory too).
func TestConformanceWrapped(t *testing.T) {
	for _, specs := range specSets {
		for _, f := range []hal.Factory{localsync.Factory, localtask.Factory, vulkan.Factory, cuda.Factory} {
			t.Run(f.Name+"/"+strings.Join(specs, "+"), func(t *testing.T) { cts.Run(t, WithSpecs(f, specs...)) })
		}
	}
}
