// Package targettest holds the kernel-IR test kernels that the kernel
// emitters' differential tests share, so that vmvx and llvm-cpu build the
// same kernels and compare each against kir.Run with their own harness.
// It is imported only by tests.
package targettest
