// Package localtask registers the local-task driver: the host CPU with
// workgroups spread over all cores.
package localtask

import (
	"runtime"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/hal/local"
)

// Name is the driver name.
const Name = "local-task"

// Factory registers local-task.
var Factory = hal.Factory{
	Name:     Name,
	FullName: "Local execution using the IREE multithreading task system",
	Create:   func() (hal.Driver, error) { return local.NewDriver(Name, runtime.GOMAXPROCS(0)), nil },
}
