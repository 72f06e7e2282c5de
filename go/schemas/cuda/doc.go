// Package cuda is the cuda-nvptx-fb executable format: PTX modules that the
// cuda target (go/compiler/target/ptx) writes from the kernel IR and the
// cuda driver (go/runtime/hal/drivers/cuda) loads with cuModuleLoadDataEx,
// the driver's JIT compiling them for the GPU. No CUDA toolkit is needed at
// either end.
//
// One executable holds one or more variants, each the whole set of entry
// points built for one NVIDIA architecture ("sm_60", "sm_80", "sm_90a", …)
// as one PTX module. Every variant lists the same entry names in the same
// (dispatch-ordinal) order. A driver loads the variant with the highest
// architecture the device runs: sm_XY runs on devices of compute
// capability X.Y or newer; an "a" (architecture-specific) variant only on
// exactly X.Y.
//
// Layout (all integers little-endian; "uv" is an unsigned LEB128 varint):
//
//	header (16 bytes): magic "GPTX", version u16 = 1, flags u16 = 0,
//	                   body length u32, CRC-32 (IEEE) of the body u32
//	body:   uv variant count, per variant:
//	          uv arch length, arch ("sm_80")
//	          uv PTX ISA version ×10 (78 is PTX 7.8)
//	          uv entry count, per entry:
//	            uv name length, name (the dispatch's name, unique)
//	            uv symbol length, symbol (the .entry's PTX name)
//	            uv block size x, y, z (each ≥ 1)
//	            uv static shared-memory bytes
//	            uv push-constant count
//	            uv binding count, per binding: u8 access (1 read, 2 write, 3 both)
//	            u8 flags (bit 0: the entry reports run-time errors)
//	          uv PTX length, the PTX text (ASCII, no NUL)
//
// Interface of every entry (the kernel ABI the emitter and the driver
// share). The .entry takes only .u64 parameters, in this order, for an
// entry with B bindings and P push constants:
//
//   - B binding pointers: the device address of binding i's range (the
//     buffer's address plus the binding's offset);
//   - B binding lengths: the byte length of binding i's range, which the
//     kernel checks every access against;
//   - with the error flag, the device address of a status buffer of
//     StatusBytes bytes, zeroed before the dispatch: the kernel stores a
//     nonzero ErrorCode (llvm-cpu's packing) into its first 8 bytes when a
//     run-time check fails (first failure wins, by atom.cas on those 8
//     bytes), and the driver turns it into an error of the submission;
//   - P push constants, each the int64's bits.
//
// The block size is the entry's workgroup size (the driver launches with
// it); the grid is the one the host program computed, launched as it is (a
// grid past the device's limits is an error; an empty grid launches
// nothing). Static shared memory is declared in the PTX and bounded by
// MaxStaticSharedBytes.
//
// The file is untrusted input: Decode checks the header, the checksum and
// every count against the bytes left and the limits, and that each PTX
// text is ASCII without NUL and names its entries; it never panics.
package cuda
