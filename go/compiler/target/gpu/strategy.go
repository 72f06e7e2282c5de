package gpu

import (
	"github.com/gree-ml/gree/go/compiler/codegen"
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/status"
)

// DefaultThreads is the number of threads of a workgroup (two subgroups
// of a 32-wide GPU, one of a 64-wide one), lowered to the target's limits.
const DefaultThreads = 64

// Strategy is the codegen strategy of GPU targets: no tile ops (Contract,
// DWConv and convolution chains are CPU microkernels), four-lane vectors
// (a thread's loads and stores of 16 bytes of f32), and tiles of four
// elements: after DistributeTiles each thread computes one such tile, so
// that a workgroup of 64 threads covers 256 consecutive elements.
// Long reductions are shared by a workgroup's Threads(t) threads, which
// combine their partial results with subgroup reductions where the target
// has them (codegen's cooperative reductions); short ones run whole in
// one thread.
func Strategy(t *Target) codegen.Strategy {
	st := codegen.Strategy{VectorWidth: 4, WorkgroupElements: 4, ReductionThreads: Threads(t), GridAll: true}
	if t.SubgroupSize > 0 && t.Has("GroupNonUniformArithmetic") {
		st.ReductionSubgroup = t.SubgroupSize
	}
	if contractFits(t) {
		// f32 matrix products as Contract tiles of 64×64 (fused epilogues
		// too), which Legalize expands into shared-memory tiled,
		// register-blocked thread-level code (ExpandContracts).
		st.Contract, st.ContractTile, st.ContractEpilogue = true, [2]int64{contractTile, contractTile}, true
	}
	return st
}

// contractFits reports whether t runs ExpandContracts' workgroups.
func contractFits(t *Target) bool {
	return (t.MaxWorkgroupInvocations == 0 || t.MaxWorkgroupInvocations >= contractThreads) &&
		(t.MaxWorkgroupSize[0] == 0 || t.MaxWorkgroupSize[0] >= contractThreads) &&
		(t.MaxSharedBytes == 0 || t.MaxSharedBytes >= ContractSharedBytes)
}

// Threads returns the threads per workgroup for t: DefaultThreads, or the
// largest power of two within the target's limits where they are lower.
func Threads(t *Target) int {
	n := DefaultThreads
	for n > 1 && ((t.MaxWorkgroupInvocations > 0 && n > t.MaxWorkgroupInvocations) || (t.MaxWorkgroupSize[0] > 0 && n > t.MaxWorkgroupSize[0])) {
		n /= 2
	}
	return n
}

// unrollFactor is the unrolling of innermost loops for targets with a loop
// iteration budget.
const unrollFactor = 8

// Legalize turns a kernel made with Strategy(t) into the thread-level
// kernel the emitters translate: Contract tile ops expand into
// cooperative shared-memory code (ExpandContracts); other tile-level
// kernels' threads each take one tile (DistributeTiles over Threads(t));
// thread-level kernels (cooperative reductions) stay as they are.
// Subgroups are the target's size, loops fit the target's budget, and the
// result verifies. A DWConv tile op is an INTERNAL error (Strategy makes
// none).
func Legalize(k *kir.Kernel, t *Target) error {
	if op := findKind(k.Body, kir.DWConv); op != nil {
		return status.Errorf(status.Internal, "gpu: %s has a %v tile op, which GPU targets do not lower", k.Name, op.Kind)
	}
	expanded, err := ExpandContracts(k)
	if err != nil {
		return err
	}
	if k.WorkgroupSize == [3]int{1, 1, 1} && !expanded {
		if err := DistributeTiles(k, Threads(t)); err != nil {
			return err
		}
	} else if n := k.WorkgroupSize[0] * k.WorkgroupSize[1] * k.WorkgroupSize[2]; t.MaxWorkgroupInvocations > 0 && n > t.MaxWorkgroupInvocations {
		return status.Errorf(status.Internal, "gpu: %s has %d threads per workgroup, over %s's %d", k.Name, n, t.Name, t.MaxWorkgroupInvocations)
	}
	if k.SubgroupSize != 0 && k.SubgroupSize != t.SubgroupSize {
		return status.Errorf(status.Internal, "gpu: %s was built for subgroups of %d, %s's are %d", k.Name, k.SubgroupSize, t.Name, t.SubgroupSize)
	}
	k.SubgroupSize = t.SubgroupSize
	FitGrid(k, t)
	if t.MaxLoopIterations > 0 {
		// Only kernels that may run past the budget grow: unrolling makes
		// shaders larger and slower to build.
		if n, ok := LoopIterations(k); !ok || n > t.MaxLoopIterations {
			UnrollInnerLoops(k, unrollFactor)
		}
	}
	if !t.Has("Int64") {
		// No i64 data on targets without 64-bit integers.
		if err := LowerInt64(k, t); err != nil {
			return err
		}
	}
	// 8- and 16-bit types the target cannot hold, last: after the i64
	// legalization, whose i32 words it may leave narrow work around.
	if err := NarrowTypes(k, t); err != nil {
		return err
	}
	if err := kir.Verify(k); err != nil {
		return status.Errorf(status.Internal, "gpu: legalized %s does not verify: %v", k.Name, err)
	}
	return nil
}
