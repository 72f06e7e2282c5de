// Package gpu is what every GPU target shares: the target descriptions
// that flags and names resolve to (Target; VulkanTarget for
// --iree-vulkan-target, its older triples and -features), the GPU
// strategy for codegen (Strategy: tile sizes, grids over all parallel
// loops, cooperative reductions, Contract tiles sized for shared-memory
// expansion), and the kernel-IR → kernel-IR legalization that turns
// codegen's kernels into kernels a GPU emitter translates as they are.
//
// Legalize runs, in order:
//
//   - ExpandContracts (contract.go): a Contract tile op of 64×64 becomes
//     64 threads, each an 8×8 register block, with A and B staged 16 deep
//     in workgroup memory; sums in the interpreter's order, bit for bit.
//   - DistributeTiles (distribute.go): one-thread kernels give each thread
//     of a workgroup one tile of the work (Threads(t) threads).
//   - the target's subgroup size, then UnrollInnerLoops (loops.go) where
//     LoopIterations shows a thread may exceed Target.MaxLoopIterations
//     (lavapipe's budget, kept by the portable profile too).
//   - LowerInt64 (int64.go: NarrowIndices to i32 index arithmetic, then
//     EmulateInt64 on pairs of i32 words) on targets without Int64.
//   - NarrowTypes (narrow.go) on targets without 8/16-bit types: values
//     widened to i32/f32 with the narrow type's wrapping and rounding,
//     bindings packed into i32 words (AtomicRMW for partial words).
//
// Emitters (SPIR-V, PTX, …) decide nothing of their own; the legalized
// kernels also run on the reference interpreter and vmvx
// (--gree-test-gpu-strategy), which is how CI tests the GPU strategy
// without a GPU.
package gpu
