// Package llvmcpu loads and runs llvm-cpu executables (go/schemas/llvmcpu):
// native shared objects that the llvm-cpu target built with LLVM. Load
// verifies the executable, checks that the host has its architecture and
// every CPU feature it requires (refusing it with a clear error rather
// than letting an instruction fault), writes the shared object to an
// anonymous memory file and dlopens it with purego; Run calls an entry
// point for a range of workgroups through the fixed C ABI the format
// documents, with the binding buffers pinned for the call.
//
// The kernels call libm for transcendental functions; Load opens
// libm.so.6 with RTLD_GLOBAL first so that the shared object's undefined
// references resolve.
package llvmcpu
