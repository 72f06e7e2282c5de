package compiler

import (
	"github.com/gree-ml/gree/go/compiler/codegen"
	"github.com/gree-ml/gree/go/compiler/target/vmvx"
)

// VMVXFormat is the executable format of the vmvx target; the CPU drivers
// load it.
const VMVXFormat = "vmvx-bytecode"

func init() {
	// vmvx-inline is the same bytecode: gree's local drivers run it inline
	// (local-sync) or spread over workers (local-task) either way.
	for _, name := range []string{"vmvx", "vmvx-inline"} {
		RegisterBackend(&Backend{
			Target:   Target{Name: name, Device: "local"},
			Format:   VMVXFormat,
			Strategy: codegen.CPUStrategy,
			Emit:     vmvx.Emit,
		})
	}
}
