package gpu

import (
	"github.com/gree-ml/gree/go/compiler/codegen"
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/status"
)

// DefaultThreads is the number of threads of a distributed workgroup
// (two subgroups of a 32-wide GPU, one of a 64-wide one), lowered to the
// target's invocation limit.
const DefaultThreads = 64

// Strategy is the codegen strategy of GPU targets: no tile ops (Contract,
// DWConv and convolution chains are CPU microkernels), four-lane vectors
// (a thread's loads and stores of 16 bytes of f32), and tiles of four
// elements: after DistributeTiles each thread computes one such tile, so
// that a workgroup of 64 threads covers 256 consecutive elements.
// Reductions run whole in one thread.
func Strategy(t *Target) codegen.Strategy {
	return codegen.Strategy{VectorWidth: 4, WorkgroupElements: 4}
}

// Threads returns the threads per workgroup for t: DefaultThreads, or
// fewer where the target's limits are lower.
func Threads(t *Target) int {
	n := DefaultThreads
	if t.MaxWorkgroupInvocations > 0 && t.MaxWorkgroupInvocations < n {
		n = t.MaxWorkgroupInvocations
	}
	if t.MaxWorkgroupSize[0] > 0 && t.MaxWorkgroupSize[0] < n {
		n = t.MaxWorkgroupSize[0]
	}
	return n
}

// Legalize turns a tile-level kernel made with Strategy(t) into the
// thread-level kernel the emitters translate: each thread takes one tile
// (DistributeTiles over Threads(t)), subgroups are the target's size,
// and the result verifies. A kernel with tile ops is an INTERNAL error
// (Strategy makes none).
func Legalize(k *kir.Kernel, t *Target) error {
	if op := findKind(k.Body, kir.Contract, kir.DWConv); op != nil {
		return status.Errorf(status.Internal, "gpu: %s has a %v tile op, which GPU targets do not lower", k.Name, op.Kind)
	}
	if err := DistributeTiles(k, Threads(t)); err != nil {
		return err
	}
	k.SubgroupSize = t.SubgroupSize
	if err := kir.Verify(k); err != nil {
		return status.Errorf(status.Internal, "gpu: legalized %s does not verify: %v", k.Name, err)
	}
	return nil
}
