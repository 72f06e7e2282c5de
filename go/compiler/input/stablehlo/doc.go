// Package stablehlo converts StableHLO and CHLO ops to the core tensor
// program (package core): element-wise ops, shapes and data movement,
// dot/dot_general and convolution, reduce and reduce_window, gather,
// scatter, sort, control flow, RNG, FFT, einsum and the one-device
// collectives. Complex values are carried as real tensors with a trailing
// dimension of 2 (complex*.go), for ops of any dialect. What JAX adds to
// its StableHLO programs — sharding annotations, the ApproxTopK and CPU
// LAPACK custom calls — is rewritten before conversion (jax*.go).
//
// Package input calls Lower, LowerCHLO, TouchesComplex/LowerComplex and
// the module-level rewrites StripShardingAnnotations,
// FlattenTupleSignatures and RewriteHouseholder.
package stablehlo
