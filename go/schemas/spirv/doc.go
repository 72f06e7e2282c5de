// Package spirv is the vulkan-spirv executable format: SPIR-V compute
// shaders that the vulkan-spirv target (go/compiler/target/spirv) writes
// from the kernel IR and the vulkan driver (go/runtime/hal/drivers/vulkan)
// loads as compute pipelines. One executable holds one entry per dispatch
// kernel, each a SPIR-V module of its own whose entry point is "main".
//
// Layout (all integers little-endian; "uv" is an unsigned LEB128 varint):
//
//	header (16 bytes): magic "GSPV", version u16 = 1, flags u16 = 0,
//	                   body length u32, CRC-32 (IEEE) of the body u32
//	body:   uv target length, target name (e.g. "llvmpipe", "ampere")
//	        uv entry count, per entry:
//	          uv name length, name (the kernel's name, unique)
//	          uv workgroup size x, y, z (each ≥ 1)
//	          uv required subgroup size (0: any)
//	          uv shared-memory bytes
//	          uv push-constant count
//	          uv binding count, per binding: u8 access (1 read, 2 write, 3 both)
//	          u8 flags (bit 0: the entry reports run-time errors)
//	          uv capability count, per capability: uv length, name
//	          uv SPIR-V length in bytes (a multiple of 4), the module's words
//
// Interface of every entry (the ABI the driver and the emitter share):
//
//   - Binding i is descriptor set 0, binding i: a storage buffer over the
//     kernel's binding i, from its offset (its element type is the
//     shader's business).
//   - Push constants: the kernel's push constants in order, each a
//     little-endian int64 at byte offset 8·i (a shader without Int64 reads
//     each as two 32-bit words).
//   - With the error flag, descriptor set 0 binding (binding count) is a
//     status buffer of StatusBytes bytes, zeroed before the dispatch: the
//     shader stores a nonzero ErrorCode (llvmcpu's packing, see
//     ErrorCode) into its first 8 bytes when a run-time check fails
//     (first failure wins, by an atomic compare-exchange on the low word);
//     the driver turns it into an error of the submission.
//   - The workgroup grid is the one the host program computed; the driver
//     dispatches it as it is (a grid past the device's limits is an
//     error).
//
// Capabilities are SPIR-V capability names ("Int64", "Float64", "Int8",
// "StorageBuffer8BitAccess", "GroupNonUniformArithmetic", …) the module
// declares; a driver checks them against the device before it builds a
// pipeline, so that a module built for more than the device has is an
// error naming the capability, not a failed pipeline.
//
// The file is untrusted input: Decode checks the header, the checksum and
// every count against the bytes left and the limits, and that each
// module starts with the SPIR-V magic number; it never panics.
//
// This package imports only the standard library, go/status and
// go/schemas/llvmcpu (whose run-time error codes it shares).
package spirv
