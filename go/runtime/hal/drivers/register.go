package drivers

import (
	"sync"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/hal/drivers/cuda"
	"github.com/gree-ml/gree/go/runtime/hal/drivers/hip"
	"github.com/gree-ml/gree/go/runtime/hal/drivers/localsync"
	"github.com/gree-ml/gree/go/runtime/hal/drivers/localtask"
	"github.com/gree-ml/gree/go/runtime/hal/drivers/vulkan"
)

// Factories returns the driver factories in registration order.
func Factories() []hal.Factory {
	return []hal.Factory{
		cuda.Factory,
		hip.Factory,
		localsync.Factory,
		localtask.Factory,
		vulkan.Factory,
	}
}

var once sync.Once

// RegisterAll registers every driver in hal.Default, once per process.
func RegisterAll() {
	once.Do(func() {
		for _, f := range Factories() {
			hal.Default.Register(f)
		}
	})
}
