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
//     package's own range reductions and polynomials in the compute type;
//     they are within a few ULP of the correctly rounded result (the
//     interpreter rounds Go's float64 result), not bit-exact. pow in f32
//     is computed in f64 when the target has Float64; without it, its
//     error grows with |y·log x| (up to ~100 ULP near overflow), as does
//     f64 pow's. Trigonometric argument reduction is exact only for |x|
//     below about 6e3 (f32) and 1.6e6 (f64).
//   - Vulkan lets devices flush denormals to zero, not honor NaN or
//     signed zeros in arithmetic, and implement f32 division with up to
//     2.5 ULP error; FMA is GLSL's Fma, which Vulkan does not require to
//     be fused. Conversions to f16 (and f64 → f32) are OpFConvert, whose
//     rounding is the device's (round to nearest even on every known
//     device).
//   - Float sums in SubgroupReduce are exact in order, but integer and
//     float results of other ops never differ.
package spirv
