// Package targettest holds what the tests of the compiler's later stages
// share: the kernel-IR test kernels of the emitters' differential tests
// (so vmvx and llvm-cpu build the same kernels and compare each against
// kir.Run with their own harness), the pieces those harnesses share
// (Clone, Concurrently, WorkgroupID), and Flow, the front of the pipeline
// that codegen, emitter and vm tests start from. It is imported only by
// tests.
package targettest
