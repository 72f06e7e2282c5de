package cts

import (
	_ "embed"

	"github.com/gree-ml/gree/go/schemas/cuda"
	"github.com/gree-ml/gree/go/schemas/spirv"
)

// scaleModule is testdata/scale.spvasm assembled by
// `spirv-as --target-env vulkan1.1` (TestScaleSPIRVAssembles checks it).
//
//go:embed testdata/scale.spv
var scaleModule []byte

// ScaleSPIRV is ScaleVMVX for Vulkan devices: a vulkan-spirv executable
// (spirv.Format) whose one entry point "scale" computes the same on the
// same grid, with 16 invocations per workgroup. It checks its loads and
// stores against the bindings' lengths and reports a failed check through
// its status buffer (spirv.FlagErrors), as compiled kernels do: a store
// past the end of binding 1 is "load or store outside binding 1 (check
// 2)".
func ScaleSPIRV() []byte {
	x := &spirv.Executable{Target: "vulkan-spirv", Entries: []spirv.Entry{{
		Name:          "scale",
		WorkgroupSize: [3]int{16, 1, 1},
		Bindings:      []spirv.Access{spirv.Read, spirv.Write},
		Flags:         spirv.FlagErrors,
		Capabilities:  []string{"Shader"},
		SPIRV:         scaleModule,
	}}}
	data, err := spirv.Encode(x)
	if err != nil {
		panic(err)
	}
	return data
}

// scaleKernel returns the suite's scale kernel in the first of the
// formats the device loads that the suite has it in (vmvx first), or
// false.
func scaleKernel(formats []string) (string, func() []byte, bool) {
	for _, k := range []struct {
		format string
		data   func() []byte
	}{{VMVXFormat, ScaleVMVX}, {spirv.Format, ScaleSPIRV}, {cuda.Format, ScalePTX}} {
		for _, f := range formats {
			if f == k.format {
				return k.format, k.data, true
			}
		}
	}
	return "", nil, false
}
