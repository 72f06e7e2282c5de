package compiler

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/gpu"
	"github.com/gree-ml/gree/go/compiler/target/spirv"
	"github.com/gree-ml/gree/go/schemas/module"
	schema "github.com/gree-ml/gree/go/schemas/spirv"
	"github.com/gree-ml/gree/go/status"
)

func init() {
	RegisterBackend(&Backend{
		Target:    Target{Name: "vulkan-spirv", Device: "vulkan"},
		Format:    schema.Format,
		Configure: configureVulkan,
	})
}

// configureVulkan resolves --iree-vulkan-target (and -features) to a GPU
// target: the strategy and legalization for it, and an emitter writing
// one SPIR-V module per kernel with the target's version and
// capabilities.
func configureVulkan(opts Options) (*Backend, error) {
	t, err := gpu.VulkanTarget(opts.Vulkan.Target, opts.Vulkan.TargetFeatures)
	if err != nil {
		return nil, err
	}
	return &Backend{
		Target:   Target{Name: "vulkan-spirv", Device: "vulkan"},
		Format:   schema.Format,
		Strategy: gpu.Strategy(t),
		Legalize: func(k *kir.Kernel) error { return gpu.Legalize(k, t) },
		EmitWith: func(ks []*kir.Kernel, opts Options) ([]byte, []module.Attr, error) {
			return emitSPIRV(ks, t, opts.Dump)
		},
	}, nil
}

// emitSPIRV translates the kernels for t into one vulkan-spirv-fb
// executable, writing each kernel's SPIR-V where dump asks.
func emitSPIRV(ks []*kir.Kernel, t *gpu.Target, dump DumpOptions) ([]byte, []module.Attr, error) {
	x := &schema.Executable{Target: t.Name}
	for _, k := range ks {
		e, err := spirv.Emit(k, spirv.Options{Version: t.SPIRVVersion, Capabilities: t.Capabilities, SubgroupSize: t.SubgroupSize, Target: t.Name})
		if err != nil {
			return nil, nil, err
		}
		if err := dumpFile(dump.Binaries, k.Name+".spv", e.SPIRV); err != nil {
			return nil, nil, err
		}
		x.Entries = append(x.Entries, e)
	}
	data, err := schema.Encode(x)
	if err != nil {
		return nil, nil, fmt.Errorf("encoding the executable: %w", err)
	}
	return data, []module.Attr{{Key: "vulkan.target", Value: t.String()}}, nil
}

// dumpFile writes data to dir/name when dir is set (an
// --iree-hal-dump-executable-*-to directory).
func dumpFile(dir, name string, data []byte) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return status.Errorf(status.PermissionDenied, "dump directory: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		return status.Errorf(status.PermissionDenied, "dumping %s: %v", name, err)
	}
	return nil
}
