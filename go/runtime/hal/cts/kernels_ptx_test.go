package cts

import (
	"testing"

	"github.com/gree-ml/gree/go/internal/ptxas"
	"github.com/gree-ml/gree/go/schemas/cuda"
)

func TestScalePTXAssembles(t *testing.T) {
	p := ptxas.Need(t)
	x, err := cuda.Decode(ScalePTX())
	if err != nil {
		t.Fatal(err)
	}
	for _, arch := range []string{"sm_60", "sm_80", "sm_90"} {
		infos, err := ptxas.Assemble(p, x.Variants[0].PTX, arch)
		if err != nil {
			t.Fatal(err)
		}
		if in := infos["scale"]; in.SpillStore != 0 || in.SpillLoad != 0 {
			t.Errorf("%s: scale spills: %+v", arch, in)
		}
	}
}
