// Package vmvx is the interpreter of vmvx executables (go/schemas/vmvx),
// shared by the local CPU drivers: Load verifies and prepares an
// executable, and RunWorkgroup runs one workgroup of an entry point with a
// per-goroutine State.
//
// Preparation turns every instruction into a handler chosen for its
// operand types, with register operands resolved to byte offsets in the
// thread's frame. Registers are typed storage (see regs.go), so a vector
// instruction is one tight Go loop over typed slices; bounds are checked
// once per memory instruction, not per lane. Contract on f32 and f64 calls
// the blocked GEMM of go/internal/gemm.
//
// The numeric semantics are those of the kernel IR's reference interpreter
// (kir.Run): the compiler's differential tests run the same kernels through
// both and compare the bytes.
package vmvx
