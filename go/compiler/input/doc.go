// Package input is the compiler's input-conversion phase: it rewrites the
// ops of the accepted input dialects into gree's core tensor program —
// linalg.generic for all computation, tensor.* for data movement and
// shapes, arith/scf for scalar host code, util.global for state — which
// every later phase consumes. Element-wise arith and math ops on tensors
// become generics; named linalg ops become generics with their indexing
// maps; util.unfoldable_constant becomes a constant behind an optimization
// barrier.
//
// The work is split by input dialect, around a shared core:
//
//   - core: the rewriter, the rules for arith/math/tensor/linalg/flow ops
//     and the builders the dialects share;
//   - stablehlo: StableHLO, CHLO, complex values and JAX's additions;
//   - tosa: TOSA;
//   - torchonnx: torch-onnx functions (from an ONNX importer);
//   - linalgext: IREE's iree_linalg_ext ops.
//
// This package is the entry point: Run prepares the module (prepare.go,
// params.go, inline_complex.go), converts each function, handing each op
// to its dialect's package (the core.Lowering of input.go), and checks
// the shape contract of the result (verify_shapes.go). Demote applies
// IREE's type demotion flags.
package input
