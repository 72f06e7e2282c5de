// Package spirv is the SPIR-V emitter of the vulkan-spirv target: it
// translates one kernel of the kernel IR (go/compiler/kir) into one
// SPIR-V module for Vulkan compute, written entirely in Go, with the
// interface of the executable format in go/schemas/spirv: entry point
// "main" with LocalSize = the kernel's workgroup size; kir binding i is
// descriptor set 0 binding i, a StorageBuffer Block holding a runtime
// array of the binding's element type (i1 stored as 8-bit 0 or 1, bf16
// as 16-bit patterns); push constants are the kernel's int64 values at
// byte offset 8·i; a kernel with run-time checks writes its first
// failure (llvm-cpu's error packing) into a status buffer at binding
// len(Bindings), by an atomic compare-exchange on the first word.
//
// The module is built by a small builder (module.go: header, ids,
// deduplicated types and constants, capabilities, extensions,
// GLSL.std.450, entry point, decorations, globals, functions) and the
// translation files: types (register and storage types), memory (bindings,
// bounds-checked loads and stores, shared memory), arith (integers), float
// and convert (float arithmetic, comparisons, conversions), math, exp,
// trig and erf (the math library), vector, control (structured If and For)
// and thread (ids, barriers, subgroup operations).
//
// # Semantics
//
// The reference interpreter (kir.Run) defines what every op computes; the
// module reproduces it as follows.
//
//   - Vectors are scalarized: a value of N lanes is N SPIR-V ids, so any
//     lane count works; Reduce combines lanes in order, lane 0 first.
//   - Integers wrap; division and remainder by zero give 0, the minimum
//     divided by -1 wraps, shifts by the width or more give 0 or the sign
//     fill — all by selects around SPIR-V's instructions, whose results
//     are undefined there. i1 values are OpTypeBool.
//   - f16 arithmetic converts to f32, computes and rounds back with
//     OpFConvert; bf16 values live in f32 registers and every result is
//     rounded to nearest even with integer operations.
//   - Loads and stores check every access against OpArrayLength of the
//     binding (or the shared array's size) as the interpreter does; a
//     failed check skips the access (a load gives zeros) and records
//     ErrOutOfBounds or ErrShared with the binding and the check's number.
//     A For whose step is not a positive constant checks the step at run
//     time (ErrStep) and runs no iteration when it is not positive.
//   - Shared allocations that are not Scratch are zeroed cooperatively at
//     the start, followed by a barrier.
//   - SubgroupReduce combines the subgroup's values in lane order (a loop
//     of shuffles), so float sums round as the interpreter's do and
//     minimumf/maximumf propagate NaN. Subgroup values travel as 32-bit
//     words, so no subgroup operation needs 8-, 16- or 64-bit types. The
//     subgroup of an invocation is assumed to be the consecutive
//     LocalInvocationIndex range the interpreter uses (true of every
//     known implementation with a required, full subgroup size).
//
// # Known differences
//
// These kir semantics are approximated, or depend on the device:
//
//   - Transcendental functions (exp, log, sin, pow, erf, …) are this
//     package's own range reductions and polynomials in the compute type,
//     within 2 ULP of the interpreter (Go's float64 functions rounded) on
//     the differential tests' inputs, not bit-exact; f16 and bf16 results
//     matched exactly there. pow in f32 is computed in f64 when the target
//     has Float64; without it, and for f64 pow, the error grows with
//     |y·log x| (up to a few hundred ULP near overflow). sin, cos and tan
//     reduce arguments exactly only below about 6e3 (f32) and 1.5e6 (f64);
//     beyond, the result stays in range but is not the function's value.
//   - Float arithmetic is decorated NoContraction, so drivers may not fuse
//     or reassociate it; but Vulkan still lets devices flush denormals to
//     zero, ignore signed zeros and NaNs unless SignedZeroInfNanPreserve
//     is in force, and implement f32 division with up to 2.5 ULP error
//     (lavapipe's is exact). FMA is GLSL's Fma, which Vulkan does not
//     require to be fused (lavapipe's is not: 1 ULP from the
//     interpreter's fused result). Conversions to f16, and f64 to f32, are
//     OpFConvert, correctly rounded on every known device.
//
// # Tests
//
// Every module the tests emit (every op kind and scalar type, vectors of
// 1 to 16 lanes, loops and nested ifs, thread-level ops, and the kernels
// codegen makes for tests/e2e and samples) passes spirv-val for Vulkan
// 1.1, 1.2 and 1.3. Where a Vulkan device is present (Mesa's lavapipe runs
// them on the CPU), the differential tests run modules through a
// test-only purego runner and compare every binding with kir.Run: integer
// ops, conversions, bounds and step checks, loops, shared memory, barriers
// and subgroup ops match bit for bit.
package spirv
