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
//
// # Threads, subgroups and tile ops
//
// Every thread of a workgroup (WorkgroupSize[0]·[1]·[2] of them, numbered
// x fastest: linear = x + X·(y + Y·z)) runs the whole body. Subgroups are
// runs of min(S, threads) consecutive linear ids, S being
// Kernel.SubgroupSize (0: MaxSubgroupSize); the last one may be partial.
// LaneID is linear mod that size and SubgroupSize returns it. Every
// implementation honours Kernel.SubgroupSize exactly: a target whose
// hardware subgroups differ must emulate the kernel's (vmvx does so with
// workgroup memory and barriers) or refuse the kernel.
//
// The tile ops (Contract, DWConv) are defined for one-thread workgroups
// only: each would be computed whole by every thread, racing on its
// output. Verify rejects them in a kernel whose workgroup has more than
// one thread.
//
// # Uniform control flow
//
// Barrier, SubgroupReduce and SubgroupShuffle synchronize threads: every
// thread of the workgroup (Barrier) or of the subgroup (the subgroup ops)
// must reach the same op the same number of times, together. Verify
// checks this statically, as WGSL and SPIR-V require it: such an op may
// only be nested in Ifs whose condition and Fors whose bounds (lo, hi and
// step) are uniform values. A value is uniform when it is
//
//   - a constant, a push constant, WorkgroupID, WorkgroupCount,
//     WorkgroupSize, SubgroupSize or LaneIota;
//   - the result of any other op that is not listed below, all of whose
//     operands are uniform;
//   - an If result whose condition and both yielded values are uniform;
//     a For's induction variable when its bounds are; a For's
//     loop-carried value and result when its bounds, its initial value
//     and the value yielded for it are uniform.
//
// Everything else is not: ThreadID and LaneID; the results of
// SubgroupShuffle (per lane) and SubgroupReduce (equal within a subgroup
// but not across the workgroup, so that a target may build subgroup ops
// from workgroup barriers); every load (Load, LoadStrided, LoadShared),
// whatever its address. The rule concerns nesting only: a non-uniform For
// or If that ends before a barrier is fine (a thread's strided loop over
// its share of the data, then a barrier), and so is a non-uniform If
// with no synchronizing op inside (`if lane_id == 0 { store_shared }`)
// followed by a barrier at the outer level.
//
// The rule is one level, workgroup uniformity, for both kinds of op; a
// subgroup op in control flow that is uniform only per subgroup is
// rejected. Run, and every target, may assume a kernel follows it: a
// kernel that breaks it is invalid, and Run and the vmvx emitter, which
// verify every kernel, refuse it with INVALID_ARGUMENT before running
// anything. The interpreters (Run's and the vmvx runtime's, which runs
// bytecode that no verifier may have seen) keep a dynamic check as well:
// a barrier or subgroup op that the threads of its group do not all
// reach at the same op is a FAILED_PRECONDITION error, never a hang or a
// value.
//
// # Barriers and memory
//
// A Barrier is a workgroup execution barrier with acquire-release
// semantics on workgroup memory only — SPIR-V's OpControlBarrier
// (Workgroup, Workgroup, AcquireRelease|WorkgroupMemory), WGSL's
// workgroupBarrier, CUDA's __syncthreads as far as shared memory is
// concerned: every thread of the workgroup waits until all have reached
// it, and every LoadShared/StoreShared a thread made before it happens
// before every shared access any thread of the workgroup makes after it.
// Stores to bindings are not ordered by it: a thread may not read a
// binding element another thread of the same dispatch wrote (nor two
// threads write the same element) — exchange data through shared memory
// — except across a Barrier with Imm BarrierBindings, which orders the
// binding accesses of the workgroup's threads too (UniformMemory as
// well as WorkgroupMemory in SPIR-V's semantics); threads of different
// workgroups are never ordered.
// Two accesses of different threads to the same shared element, one of
// them a store, with no barrier between them, are a data race, whose
// result is undefined. Run and vmvx order every memory access at a
// barrier, which is stronger than the contract; code that relies on more
// than the contract is wrong even when they run it as intended.
//
// # Out-of-bounds accesses
//
// A load or store outside its binding or shared allocation, and a tile op
// whose tile reaches outside its operand, is an error of the dispatch,
// never silent: the dispatch fails with an error naming the kind of check
// (load/store, tile, shared memory, loop step) and the binding or
// allocation. Run reports OUT_OF_RANGE statuses naming the op and the
// binding ("binding 0", "shared allocation 1"); vmvx OUT_OF_RANGE naming
// entry, instruction and binding; llvm-cpu and the SPIR-V target an
// ErrorCode (go/schemas/llvmcpu: ErrOutOfBounds, ErrTileBounds, ErrShared
// with the binding and the check's number) that the runtime turns into an
// error. A target may skip the faulting access, or stop the workgroup,
// but it must report the failure; what the other workgroups and threads
// of a failed dispatch wrote is unspecified. A For whose step is not
// positive is reported the same way (INVALID_ARGUMENT in Run and vmvx,
// ErrStep in llvm-cpu).
//
// # Partial elements and atomics
//
// A binding's buffer whose length is not a multiple of its element size
// ends in a partial element, which loads and stores address like the
// others (the element count rounds up): its bytes past the buffer's end
// read as zero in Run and vmvx (unspecified elsewhere) and are not
// written. This is how a GPU legalization's packed bindings see their
// last word: on targets without 8- and 16-bit storage, package gpu
// (NarrowTypes) turns a binding of i8, i16, f16 or bf16 elements into one
// of i32 words over the same bytes, so a tensor of 7 i8 elements is two
// words, the second partial. The runtimes that run legalized kernels bind
// whole words: the Vulkan driver rounds every binding's range up to a
// multiple of 4 bytes (allocations are whole words), and vmvx runs a
// dispatch whose buffer ends in a partial element on a padded copy.
// Bounds checks of packed bindings are therefore per word: an access to
// the bytes of the last word past the tensor's end is not reported.
// llvm-cpu, which never sees legalized kernels, counts whole elements.
//
// Packed elements narrower than a word are stored with AtomicRMW (clear
// the element's bits with an and, set them with an or), which is atomic
// with respect to the other threads' atomics on the word; no thread reads
// or writes another's element, so plain loads of the word see its own
// bytes exactly. Run executes atomics, and the loads and stores of kernels
// that have them, under one lock; vmvx with the host's atomic
// instructions; SPIR-V with OpAtomicAnd and OpAtomicOr (Device scope,
// relaxed).
//
// FetchAdd and SpinUntil let the workgroups of a CPU kernel share work
// through counters in a binding: a workgroup takes a piece of work with a
// FetchAdd, waits with SpinUntil until the pieces before it are counted
// done, and counts its own. Since a CPU may run a dispatch's workgroups
// one after another, a kernel waits only for work already taken (see
// SpinUntil); Run, which runs workgroups in order, reports a wait that
// could never end as an error. Only llvm-cpu lowers them (an atomicrmw
// add and a loop of acquire loads with a spin-loop hint).
package kir
