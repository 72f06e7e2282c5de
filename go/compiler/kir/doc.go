// Package kir is gree's kernel IR: the loop-level program of one dispatch,
// the contract between codegen and every target emitter (see
// docs/architecture.md).
//
// A Kernel has an interface — bindings (buffers it reads and writes),
// push constants (dynamic sizes and offsets, all i64) and the workgroup
// grid as a function of the push constants — and a body in SSA form with
// structured control flow:
//
//   - tile level: For loops (with loop-carried values), If, scalar and
//     short-vector arithmetic with arith/math semantics, contiguous and
//     strided loads and stores at linear element offsets, vector
//     reductions, and the Contract tile op (C += A·B on a strided tile),
//     which a target may map to a microkernel;
//   - thread level (GPU targets): thread, subgroup and workgroup ids,
//     workgroup (shared) memory, barriers and subgroup reductions.
//
// Values are numbered; Kernel.Types gives each one's type. Index values
// are I64. Every op with a result defines exactly the Values in Results;
// For and If yield their results through Yield.
//
// Emitters (vmvx bytecode, LLVM IR, PTX, SPIR-V, MSL, WGSL) translate this
// IR and make no fusion or tiling decisions of their own. The reference
// interpreter in this package defines the semantics every emitter is tested
// against.
package kir
