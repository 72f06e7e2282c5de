// Package ptxsim is a simulator for the subset of NVIDIA PTX that gree's
// cuda target emits. It parses a PTX module, validates it and executes its
// entries thread by thread, following the PTX ISA's semantics, so that the
// emitted kernels can run (and be compared against gree's reference
// interpreter) on machines without a GPU.
//
// # API
//
//	m, err := ptxsim.Load(ptxText)       // parse + validate; errors name the line
//	m.Entries()                           // entry names in source order
//	mem := ptxsim.NewArena()              // fake device memory
//	a := mem.Alloc(bytes)                 // nonzero, 256-aligned address
//	err = m.Launch("k", grid, block, []uint64{a, n}, mem)
//	out := mem.Bytes(a)                   // the allocation's current bytes
//
// gree's ABI passes every kernel parameter as .u64, so Launch takes one
// uint64 per declared .param. Memory is the interface a launch reads and
// writes global memory through; Arena implements it with separate
// allocations (accesses outside every allocation are errors naming the
// address) and NewHostMemory implements it over the process's own memory
// (addresses are host pointers, for a fake libcuda whose allocations are
// malloc'd; addresses below 4096 are errors, and Launch turns a fault on
// an unmapped address into an OUT_OF_RANGE error rather than a crash,
// though a stray pointer into mapped memory goes unnoticed).
//
// # Supported PTX
//
// Module directives .version, .target, .address_size 64; // and /* */
// comments; .visible .entry with .param .u64 parameters (optionally with
// .ptr .global .align N attributes) and the .reqntid/.maxntid/.minnctapersm
// directives; .reg declarations of every
// scalar type, single or %r<N>; .shared [.align N] arrays at module or
// entry scope; labels, nested { } scopes; @p / @!p guards on any
// instruction. Instructions:
//
//   - control: bra[.uni], ret, exit, trap, bar.sync 0 / barrier.sync[.aligned] 0,
//     bar.warp.sync, membar.*, fence.* (no-ops: the simulator is sequentially
//     consistent per block)
//   - data: mov (registers, immediates, special registers, shared symbol
//     addresses, b64↔{b32,b32} and b32↔{b16,b16} pack/unpack), selp,
//     cvta[.to].global.u64, ld.param.u64
//   - memory: ld/st .global (generic addressing is treated as global,
//     with .nc and cache/ordering qualifiers accepted and ignored) and
//     .shared, scalar and .v2/.v4, all integer and float types; addresses
//     [reg], [reg+imm], [sym], [sym+imm], [imm]; a narrow signed load
//     sign-extends; accesses must be naturally aligned (vectors: to the
//     whole vector)
//   - atomics: atom/red .global or .shared with and/or/xor/add/exch/cas/
//     min/max/inc/dec on the types PTX allows (atom.add.f32 flushes
//     subnormals, as the hardware does)
//   - integer: add sub (s32 .sat) mul/mad .lo/.hi/.wide div rem and or xor
//     not cnot shl shr min max neg abs popc clz brev bfind[.shiftamt] bfe
//     bfi on 16/32/64-bit types; and/or/xor/not on .pred
//   - compare: setp.<cmp>.<type> with every comparison (ordered and
//     unordered, num, nan), optional .and/.or/.xor with a (possibly negated)
//     third predicate, and the p|q dual destination
//   - float (.f32/.f64): add sub mul fma mad div sqrt rcp with .rn .rz .rm
//     .rp (correctly rounded), .ftz and .sat; div.approx/.full, sqrt/rcp
//     .approx, rsqrt, ex2, lg2, sin, cos, tanh .approx (computed in float64,
//     then rounded; rcp/rsqrt.approx.ftz.f64 too); neg abs min max (.NaN)
//     copysign testp.{finite,infinite,number,notanumber,normal,subnormal}
//   - cvt between .u8 .s8 .u16 .s16 .u32 .s32 .u64 .s64 .f16 .bf16 .f32
//     .f64 with .rn/.rz/.rm/.rp, .rni/.rzi/.rmi/.rpi, .sat and .ftz, all
//     correctly rounded (f16/bf16 values live in 16-bit registers)
//   - warp: shfl.sync.{up,down,bfly,idx}.b32 d[|p], a, b, c, membermask;
//     vote.sync.{all,any,uni}.pred and vote.sync.ballot.b32
//
// Anything else (an unknown instruction, modifier, state space or
// directive) is a Load error naming the line, as is an operand register
// that does not fit its instruction type (a .pred where a value is
// expected, or a register of another width; ld/st data and cvt operands
// may use a wider register for integer types, as in PTX). Like ptxas,
// Load rejects testp.nan (PTX has testp.notanumber) and negated hex float
// literals.
//
// # Semantics worth knowing
//
// Integer arithmetic wraps; shifts by at least the width give 0 (or the
// sign fill for shr.s*); division or remainder by zero is an error
// ("division by zero at line N ...") since PTX leaves the result
// undefined; the minimum divided by -1 wraps. Float-to-integer cvt
// saturates to the destination range and maps NaN to 0. min/max return
// the non-NaN operand (both NaN, or .NaN with any NaN: the canonical NaN)
// and order -0 below +0. copysign d, a, b is b's magnitude with a's sign.
// NaN results of f32/f64 arithmetic are the canonical NaNs 0x7fffffff and
// 0x7fffffffffffffff (f16/bf16: 0x7fff); neg/abs only flip or clear the
// sign bit. shfl.sync follows the ISA's pseudo-code: c supplies the clamp
// (bits 0-4) and segment mask (bits 8-12), the optional predicate says
// whether the source lane was in range, and an out-of-range source lane
// reads the thread's own value.
//
// Float instructions without a rounding modifier (add.f32, mul.f32, ...)
// execute as .rn; on hardware ptxas may contract such a mul and add into
// an fma, which the simulator never does (write .rn to forbid it there
// too).
//
// .shared memory is not initialized by PTX: the simulator fills it with
// 0xCD bytes at the start of every block so that kernels that forget to
// initialize it fail their tests.
//
// # Execution model
//
// Load pre-decodes every instruction into a compact form in which every
// source operand (register, immediate, parameter, special register,
// symbol address) is an index into the thread's register file, so the
// interpreter loop does no string or map work. Load keeps the last four
// decoded modules, keyed by their text, so loading one module again (once
// per entry, say) costs a string comparison. Launch runs blocks in
// parallel over GOMAXPROCS goroutines; within a block each thread runs
// alone until it exits or reaches a synchronizing instruction (bar.sync,
// shfl.sync, vote.sync, bar.warp.sync). When no thread can run, the
// scheduler executes every warp instruction whose membermask lanes (warps
// are 32 consecutive linear thread ids, linear = x + X*(y + Y*z)) have all
// arrived at the same instruction with the same mask (for bar.warp.sync:
// at any bar.warp.sync, as sm_70 allows), or releases bar.sync
// once every thread of the block waits at one. Otherwise the block is
// deadlocked (threads waiting at different points, or some exited while
// others wait at bar.sync or need them in a membermask) and Launch returns
// an error. Atomics are indivisible across blocks (Arena and host memory
// use compare-and-swap loops; every global access goes through
// sync/atomic, so simulated kernels are clean under Go's race detector).
// Module.Executed counts the instructions simulated, for speed reports.
//
// # Limits
//
// Only barrier 0 with all threads; no .local, .const, module .global
// variables, .func/call, textures, f16 arithmetic (only conversions),
// cvta to/from .shared, generic addressing of shared memory, or
// activemask. Memory ordering is trivially sequentially consistent, so
// races the hardware would expose are not detected. A thread that takes
// more than Module.MaxStepsPerThread backward branches (default
// DefaultMaxStepsPerThread) stops the launch with an error, so a kernel
// that never terminates fails instead of hanging. Approximate
// instructions are computed accurately rather than with the hardware's
// error bounds.
package ptxsim
