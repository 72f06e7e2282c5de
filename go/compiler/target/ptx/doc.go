// Package ptx is the PTX emitter of the cuda target: it translates the
// legalized thread-level kernels of one executable (go/compiler/kir,
// after gpu.Legalize and mathexp.Expand for a CUDA target) into one PTX
// module, written entirely in Go, and describes it as a cuda-nvptx-fb
// variant (go/schemas/cuda): one .visible .entry per kernel, in order,
// named by the kernel's name made a unique PTX identifier.
//
// # Kernel ABI
//
// As go/schemas/cuda specifies it: the entry takes only .u64 parameters,
// the B binding pointers, the B binding byte lengths, the status-buffer
// pointer (only when the entry reports errors: cuda.FlagErrors), then
// the P push constants (each an int64's bits); .reqntid is the kernel's
// workgroup size, and the grid is the host program's. Bindings hold
// their elements little-endian (i1 as a byte 0 or 1, f16 and bf16 as
// their 16-bit patterns). A failed run-time check stores llvm-cpu's
// ErrorCode (llvmcpu.MakeError(kind, binding, check number), checks
// numbered in program order from 1) into the status buffer's first 8
// bytes by atom.global.cas.b64 from zero, so the first failure wins.
// Shared allocations are module-level .shared .align 16 .b8 arrays
// (whole words), at most cuda.MaxStaticSharedBytes in all.
//
// The module is text built by the files: emit (driver, entry, ABI),
// regs (register classes, constants), translate (op dispatch, vectors),
// arith (integers), float and convert (float arithmetic, comparisons,
// conversions), memory (parameters, bounds-checked loads and stores,
// shared memory, atomics), control (If and For) and thread (ids,
// barriers, subgroup operations).
//
// # Semantics
//
// The reference interpreter (kir.Run) defines what every op computes; the
// module reproduces it as follows.
//
//   - Vectors are scalarized: a value of N lanes is N virtual registers
//     (ptxas allocates the hardware ones), so any lane count works;
//     Reduce combines lanes in order, lane 0 first. i1 lanes are .pred
//     registers; i8, i16 and i32 lanes .b32 registers holding the value
//     sign-extended (as the interpreter's lanes), i64 and f64 .b64, f32
//     .b32, f16 and bf16 .b16 holding the raw bits.
//   - Integers wrap; division and remainder by zero give 0, the minimum
//     divided by -1 wraps (selects around div and rem, whose results PTX
//     leaves unspecified there); shifts by the width or more give 0 or
//     the sign fill (PTX clamps the amount, read unsigned).
//   - f32 and f64 arithmetic uses explicitly rounded instructions
//     (add.rn, sub.rn, mul.rn, div.rn, sqrt.rn, fma.rn), which ptxas may
//     not contract or reassociate; minimumf/maximumf propagate NaN and
//     order -0 < +0, minnumf/maxnumf return the non-NaN operand; Round is
//     half away from zero, RoundEven, Floor, Ceil and Trunc are cvt's
//     integer roundings; Rsqrt is sqrt.rn then rcp.rn in f64, rounded to
//     the type, as the interpreter computes 1/sqrt(x). f16 and bf16
//     values are widened exactly to f32, computed there and rounded back
//     to nearest even per op (cvt.rn.f16.f32; cvt.rn.bf16.f32 on sm_80 and
//     newer, integer rounding before), NaN results becoming the
//     interpreter's quiet NaN of the same sign. f64 → bf16 rounds to odd
//     in f32 first, so that it is rounded once, like f64 → f16
//     (cvt.rn.f16.f64).
//   - float → int conversions truncate and saturate at the destination
//     type's range, NaN giving 0 (cvt.rzi saturates to 32 or 64 bits;
//     narrower types are clamped further).
//   - Every Load, Store, LoadStrided, StoreStrided and AtomicRMW checks
//     its lanes against the binding's byte length as the interpreter does
//     (offset and last lane in range, the stride below 2^40 in
//     magnitude), LoadShared and StoreShared against the allocation's
//     count (statically, when the operands are constants). A failed check
//     skips the access (a load gives zeros) and records ErrOutOfBounds or
//     ErrShared; the thread goes on. A For whose step is not a positive
//     constant checks the step at run time (ErrStep) and runs no
//     iteration when it is not positive; a loop ends when its induction
//     variable reaches hi or its increment overflows.
//   - Shared allocations that are not Scratch are zeroed cooperatively at
//     entry (by words), followed by bar.sync 0. Barrier is bar.sync 0;
//     with BarrierBindings a membar.cta before it orders the binding
//     accesses too. AtomicRMW is atom.global.and/or.b32 (relaxed).
//   - Subgroups are kir's: runs of E = min(SubgroupSize, threads)
//     consecutive linear thread ids (x + X·(y + Y·z), CUDA's warp order).
//     When they lie within warps (E divides 32, or the block is at most
//     one warp; other kernels are UNIMPLEMENTED) SubgroupShuffle is one
//     shfl.sync.idx per 32-bit word from the subgroup's lane (i mod the
//     subgroup's threads), and SubgroupReduce a loop of E-1 shuffles that
//     combines the lanes in order, lane 0 first, so that float sums round
//     as the interpreter's; a partial subgroup runs the same loop and
//     discards the steps past its last lane, so every thread of a warp
//     executes the same shuffles, with the membermask of the warp's
//     threads. LaneID and SubgroupSize are computed from the linear id.
//
// The tile ops (Contract, DWConv; gpu.Legalize expands them) and the
// transcendental functions (mathexp.Expand expands them: Exp, Log, Sin,
// Erf, PowF, Atan2, Cbrt, RemF, …) are UNIMPLEMENTED.
//
// # Known differences
//
//   - NaN payloads: PTX's f32 and f64 arithmetic returns the canonical
//     NaN where the interpreter propagates Go's (f16 and bf16 NaNs match
//     exactly). Only the bits of a NaN differ, never whether a value is
//     NaN.
//   - A binding whose byte length is not a multiple of its element size
//     ends in a partial element, which the interpreter reads with zeros
//     past the end; the PTX kernels count whole elements only, like
//     llvm-cpu, so an access to the partial element is a failed check
//     (reported, never a load or store past the binding's range).
//   - A failed check skips the access and the thread continues (the
//     dispatch's outputs are then unspecified, as kir allows); the
//     interpreter stops the dispatch.
//
// # Tests
//
// Every module the tests emit — every op kind and scalar type, vectors
// of 1 to 16 lanes, loops and nested ifs, shared memory, barriers,
// subgroup operations and atomics in full, partial and sub-warp
// subgroups, and the kernels codegen makes for the programs of tests/e2e
// and samples with the cuda target's strategy — is assembled by ptxas
// for sm_60, sm_80 and sm_90 when ptxas is found ($GREE_PTXAS, PATH, or
// pip's nvidia-cuda-nvcc in the repository's .venv). The differential
// tests run the kernels on ptxsim (the PTX simulator in the ptxsim
// subdirectory) and on kir.Run over the same inputs, and compare every
// binding bit for bit (NaN payloads aside): integer ops, float
// arithmetic, conversions, vectors, loops, bounds and step checks,
// thread-level ops and the program kernels.
package ptx
