// Package llvmcpu is the llvm-cpu executable format: native code for the
// host CPU that the llvm-cpu target (go/compiler/target/llvmcpu) builds
// with LLVM and the local CPU drivers (go/runtime/hal/local/llvmcpu) load
// with dlopen. One executable holds one entry point per dispatch kernel,
// all in one ELF shared object.
//
// Layout (all integers little-endian; "uv" is an unsigned LEB128 varint):
//
//	header (16 bytes): magic "GLLC", version u16 = 1, flags u16 = 0,
//	                   body length u32, CRC-32 (IEEE) of the body u32
//	body:   uv triple length, triple (e.g. "x86_64-unknown-linux-gnu")
//	        uv CPU name length, CPU name (e.g. "skylake-avx512", "generic")
//	        uv feature-string length, LLVM feature string as compiled
//	        uv required-feature count, per feature: uv length, name
//	        uv entry count, per entry:
//	          uv name length, name (the kernel's name, unique)
//	          uv symbol length, symbol (exported by the shared object)
//	          uv push-constant count, uv binding count
//	        uv shared-object length, the ELF shared object
//
// Every entry symbol has one C ABI on every platform (ABI below), so the
// loader needs nothing from the compiler. Required features are the CPU
// features the code may use that a loader must find on the host (names as
// LLVM spells them: "avx2", "fma", "avx512f", "neon", …); a loader refuses
// an executable whose triple's architecture or required features the host
// lacks, rather than letting it fault.
//
// Entry ABI (ABIVersion 1):
//
//	int64_t entry(const gree_dispatch* d, int64_t first, int64_t count);
//	struct gree_dispatch {           // all fields 8 bytes
//	  uint8_t**      bindings;       // base address of each binding
//	  const int64_t* binding_sizes;  // size of each binding in bytes
//	  const int64_t* push_constants;
//	  int64_t        workgroup_count[3];
//	};
//
// The entry runs the workgroups with linear indices first … first+count-1
// (x fastest, then y, then z) and returns 0, or a nonzero ErrorCode at the
// first failing run-time check (a load, store or tile outside its binding,
// a loop step that is not positive); see DecodeError.
//
// The file is untrusted input: Decode checks the header, the checksum and
// every count against the bytes left and the limits; it never panics.
// docs/llvmcpu-format.md describes the format in full.
//
// This package imports only the standard library and go/status.
package llvmcpu
