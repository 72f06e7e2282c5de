package compiler

import (
	"fmt"
	"strings"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/gpu"
	"github.com/gree-ml/gree/go/compiler/target/mathexp"
	"github.com/gree-ml/gree/go/compiler/target/ptx"
	schema "github.com/gree-ml/gree/go/schemas/cuda"
	"github.com/gree-ml/gree/go/schemas/module"
	"github.com/gree-ml/gree/go/status"
)

func init() {
	RegisterBackend(&Backend{
		Target:    Target{Name: "cuda", Device: "cuda"},
		Format:    schema.Format,
		Configure: configureCUDA,
	})
}

// cudaTargets resolves the --iree-cuda-target list.
func cudaTargets(opts CUDAOptions) ([]*gpu.Target, error) {
	var ts []*gpu.Target
	seen := map[string]bool{}
	for _, name := range strings.Split(opts.Target, ",") {
		t, err := gpu.CUDATarget(name, opts.TargetFeatures)
		if err != nil {
			return nil, err
		}
		if seen[t.Arch] {
			continue
		}
		seen[t.Arch] = true
		ts = append(ts, t)
	}
	return ts, nil
}

// configureCUDA resolves the CUDA targets. Kernels are generated once with
// the strategy of the first (all CUDA targets share the GPU strategy's
// parameters: 32-wide subgroups, every scalar type), legalized and their
// math expanded (mathexp.Expand), then written as one PTX module per
// target.
func configureCUDA(opts Options) (*Backend, error) {
	ts, err := cudaTargets(opts.CUDA)
	if err != nil {
		return nil, err
	}
	t := ts[0]
	return &Backend{
		Target:   Target{Name: "cuda", Device: "cuda"},
		Format:   schema.Format,
		Strategy: gpu.Strategy(t),
		Legalize: func(k *kir.Kernel) error {
			if err := gpu.Legalize(k, t); err != nil {
				return err
			}
			return mathexp.Expand(k)
		},
		EmitWith: func(ks []*kir.Kernel, opts Options) ([]byte, []module.Attr, error) {
			return emitPTX(ks, ts, opts.Dump)
		},
	}, nil
}

// emitPTX writes the kernels as one cuda-nvptx-fb executable with a PTX
// module per target, dumping each module where dump asks.
func emitPTX(ks []*kir.Kernel, ts []*gpu.Target, dump DumpOptions) ([]byte, []module.Attr, error) {
	x := &schema.Executable{}
	var names []string
	for _, t := range ts {
		v, err := ptx.Emit(ks, ptx.Options{Arch: t.Arch, PTXVersion: t.PTXVersion, Target: t.Name})
		if err != nil {
			return nil, nil, err
		}
		name := "executable"
		if len(ks) > 0 {
			name = ks[0].Name
		}
		if err := dumpFile(dump.Binaries, fmt.Sprintf("%s_%s.ptx", name, t.Arch), v.PTX); err != nil {
			return nil, nil, err
		}
		x.Variants = append(x.Variants, v)
		names = append(names, fmt.Sprintf("%s (PTX %d.%d)", t.Arch, t.PTXVersion/10, t.PTXVersion%10))
	}
	data, err := schema.Encode(x)
	if err != nil {
		return nil, nil, status.Errorf(status.Internal, "encoding the cuda executable: %v", err)
	}
	return data, []module.Attr{{Key: "cuda.target", Value: strings.Join(names, ", ")}}, nil
}
