// Package core is the shared core of the input conversion (package
// input): the Rewriter that replaces the ops of one function, the rules
// for the ops every input may contain — element-wise arith and math ops
// on tensors, splat constants, named linalg ops, tensor.* data movement
// (slices, pad, concat, pack/unpack, generate), flow.tensor.reshape and
// bitcast — and the builders the dialect packages share (scalar casts and
// comparisons, index arithmetic on static-or-dynamic sizes, placing one
// tensor into another, the quantized GEMM).
//
// Ops of the input dialects go through the rewriter's Lowering, which
// package input supplies: the dialect packages (stablehlo, tosa,
// torchonnx, linalgext) import core and never each other, and core
// imports none of them.
package core
