package cts

import (
	_ "embed"

	"github.com/gree-ml/gree/go/schemas/cuda"
)

// scalePTX is testdata/scale.ptx (TestScalePTXAssembles checks it with
// ptxas).
//
//go:embed testdata/scale.ptx
var scalePTX []byte

// ScalePTX is ScaleVMVX for CUDA devices: a cuda-nvptx-fb executable
// (cuda.Format) for sm_60 and newer whose one entry point "scale" computes
// the same on the same grid, with 16 threads per block. It checks its
// loads and stores against the bindings' lengths and reports a failed
// check through its status buffer (cuda.FlagErrors), as compiled kernels
// do: a store past the end of binding 1 is "load or store outside binding
// 1 (check 2)".
func ScalePTX() []byte {
	x := &cuda.Executable{Variants: []cuda.Variant{{
		Arch:       "sm_60",
		PTXVersion: 60,
		Entries: []cuda.Entry{{
			Name:      "scale",
			Symbol:    "scale",
			BlockSize: [3]int{16, 1, 1},
			Bindings:  []cuda.Access{cuda.Read, cuda.Write},
			Flags:     cuda.FlagErrors,
		}},
		PTX: scalePTX,
	}}}
	data, err := cuda.Encode(x)
	if err != nil {
		panic(err)
	}
	return data
}
