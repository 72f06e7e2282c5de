// Package cudae2e runs gree's end-to-end check programs (tests/e2e) through
// the whole CUDA path on a machine without a GPU: the compiler's cuda
// target writes PTX, the cuda HAL driver loads and launches it on the fake
// libcuda of go/runtime/hal/drivers/cuda/cudatest, whose launches run on
// the PTX simulator (go/internal/ptxsim). A program passes when
// its check.expect_* calls hold, as with iree-check-module on a real GPU.
//
// The package has only tests. GREE_CUDA_E2E_DIRS (a list separated by the
// OS's path-list separator) adds directories of IREE-style check tests,
// e.g. a checkout of IREE's tests/e2e/linalg; GREE_CUDA_E2E_SKIP is a
// regular expression of file names to leave out (the simulator runs a
// large matrix product for a long time); GREE_CUDA_E2E_TARGET replaces
// the default --iree-cuda-target, sm_80.
package cudae2e
