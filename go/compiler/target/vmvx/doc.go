// Package vmvx is the vmvx target's emitter: it translates kernels in the
// kernel IR (package kir) into one vmvx executable (package
// go/schemas/vmvx), one entry per kernel, which the runtime's vmvx
// interpreter (go/runtime/hal/local/vmvx) runs.
//
// The translation is one instruction per kir op, plus moves and jumps for
// structured control flow: a For loop becomes moves of the initial values
// into the loop-carried registers, ForInit, the body, moves of the yielded
// values (a parallel move, cycles broken with a temporary), ForNext and the
// moves of the results; an If becomes Jz, the then branch, Jmp, the else
// branch, each ending with moves into the result registers.
//
// Thread level: vmvx's subgroups are min(32, threads) threads. A kernel
// asking for other ones (kir.Kernel.SubgroupSize: 8, 16, 64, …) gets them
// emulated (subgroups.go): LaneID and SubgroupSize from the linear thread
// id, each SubgroupReduce and SubgroupShuffle through a shared array of
// one element per thread between two barriers, which kir.Verify's
// uniformity rule (every synchronizing op in workgroup-uniform control
// flow) makes valid. Every kernel is verified first, so a barrier or
// subgroup op in divergent control flow is an INVALID_ARGUMENT error here;
// the runtime's check of bytecode that breaks the rule anyway (threads
// not all at the same barrier or subgroup instruction) is a
// FAILED_PRECONDITION error, as in kir's interpreter.
//
// Registers are typed, as vmvx requires. Allocation is a linear scan over
// the ops in program order: a value's register is taken when it is defined
// and returned to the pool of its type after its last use, where a use
// inside a loop of a value defined outside counts as a use at the loop's
// end. Registers are only reused among values of the same type, so wide
// vectors occupy as many registers as are live at once.
package vmvx
