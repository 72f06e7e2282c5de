// Package gpu is what every GPU target shares: the target descriptions
// that flags and names resolve to (Target; VulkanTarget for
// --iree-vulkan-target and its older triples), the GPU strategy for
// codegen (Strategy), and the kernel-IR → kernel-IR legalization that
// turns codegen's kernels into kernels a GPU emitter translates as they
// are (Legalize: each thread of a workgroup takes one tile of the work,
// DistributeTiles; the target's subgroup size). Emitters (SPIR-V, PTX, …)
// decide nothing of their own; the legalized kernels also run on the
// reference interpreter and vmvx, which is how CI tests the GPU strategy
// without a GPU.
package gpu
