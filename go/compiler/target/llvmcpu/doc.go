// Package llvmcpu is the llvm-cpu target: it translates kernels in the
// kernel IR (package kir) to LLVM IR text, has LLVM optimize it (the
// default<O2> pipeline through LLVMRunPasses, as IREE's; O3 on request)
// and generate native code for the target machine, links the objects into
// a shared object (with ld.lld, or with gree's own linker) and wraps it in
// an llvm-cpu executable (go/schemas/llvmcpu), which the local drivers
// load (go/runtime/hal/local/llvmcpu). Kernels with the same LLVM code
// share one symbol, and the distinct ones are compiled as one LLVM module
// per CPU, in parallel.
//
// LLVM is found at run time, never linked, behind a small interface (llvm:
// parse, optimize, emit an object; host CPU, features and triple;
// version), with two implementations bound through purego: the system's
// libLLVM 19 through the LLVM-C API (Debian's libllvm19; GREE_LIBLLVM
// names another), tried first, and else the LLVM inside llvmlite's
// libllvmlite.so through its LLVMPY_* C functions (GREE_LIBLLVMLITE, which
// the iree_go Python package sets from the installed llvmlite, or
// site-packages found at and above the running program and libgree.so;
// llvmlite 0.45 or newer, LLVM 20+). llvmlite's PassBuilder with default
// PipelineTuningOptions and buildPerModuleDefaultPipeline(On) is the
// pipeline LLVMRunPasses runs for "default<On>". GREE_LLVM=system or
// llvmlite picks one. Available says whether an LLVM was found, and what
// to install when not; Describe names it (iree-compile --version).
//
// The objects are linked by ld.lld when it is installed (GREE_LLD, else
// ld.lld-19 or ld.lld on PATH), else by gree's linker (link*.go; forced
// with GREE_LINKER=gree): an ELF linker for exactly what LLVM emits for
// the kernels with the PIC relocation model on x86-64 and AArch64 (code,
// read-only and writable data; PC-relative, PLT, GOT and absolute
// relocations; calls to libm and libc through PLT stubs and GOT slots
// bound at load time), producing the shared object ld.lld would: R, R+X
// and RW segments, PT_DYNAMIC, a non-executable stack, DT_HASH, BIND_NOW,
// the gree_entry_N symbols exported, only RELATIVE, GLOB_DAT and 64-bit
// absolute dynamic relocations, no DT_NEEDED, init or fini. Anything else
// in an object is an error naming it.
//
// The translation keeps kir.Run's semantics: integer division by zero
// gives 0 and MIN / -1 wraps (guarded with selects, never LLVM's undefined
// behaviour), out-of-range shifts give 0 or the sign, float-to-integer
// conversions saturate (llvm.fpto*i.sat), f16 and bf16 arithmetic is f32
// arithmetic rounded back (bf16 rounding and f64→f16/bf16 single rounding
// are done with integer operations, no runtime library), transcendental
// functions call libm's f64 functions and round, and every load, store
// and Contract tile is bounds-checked against its binding's size: a
// failing check skips the access (a load gives zeros), records the first
// failure's code and the entry point returns it (llvmcpu.ErrorCode), so
// memory outside the binding is never touched. The checks do not return
// from inside loops: loop exits make LLVM's loop passes many times slower.
//
// Control flow is structured: a For loop becomes a header with phis for
// the induction variable and the loop-carried values (it ends when the
// increment overflows, as in kir.Run), an If two branches joined by phis.
// Vector values are LLVM vectors; LLVM splits them into the machine's
// registers. libm calls and f16/bf16 reductions on vectors go lane by lane
// in a loop through a stack buffer; strided accesses are masked gathers
// and scatters. The Contract tile op becomes a call of a register-blocked f32
// microkernel (8 rows × 2 vectors of C in registers with AVX-512, else
// 6 × 2; fused multiply-adds over K, B packed per panel, transposed when
// its columns are contiguous, ragged edges masked) when C's rows or
// columns and B's rows or columns are contiguous, and of a reference loop
// nest otherwise.
package llvmcpu
