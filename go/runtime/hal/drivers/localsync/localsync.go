// Package localsync registers the local-sync driver: the host CPU with
// inline, synchronous execution on the caller's thread.
package localsync

import (
	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/hal/local"
)

// Name is the driver name.
const Name = "local-sync"

// Factory registers local-sync.
var Factory = hal.Factory{
	Name:     Name,
	FullName: "Local execution using a lightweight inline synchronous queue",
	Create:   func() (hal.Driver, error) { return local.NewDriver(Name, 1), nil },
}
