package runtime

import (
	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/hal/drivers"
)

// Version is gree's version.
const Version = "0.1.0"

// Drivers returns the process-wide driver registry with every built-in
// driver registered.
func Drivers() *hal.Registry {
	drivers.RegisterAll()
	return hal.Default
}

// CreateDriver creates the driver named by a URI's scheme.
func CreateDriver(uri string) (hal.Driver, error) { return Drivers().CreateDriver(uri) }
