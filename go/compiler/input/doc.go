// Package input is the compiler's input-conversion phase: it rewrites the
// ops of the accepted input dialects into gree's core tensor program —
// linalg.generic for all computation, tensor.* for data movement and
// shapes, arith/scf for scalar host code, util.global for state — which
// every later phase consumes. Element-wise arith and math ops on tensors
// become generics; named linalg ops become generics with their indexing
// maps; util.unfoldable_constant becomes a constant behind an optimization
// barrier.
package input
