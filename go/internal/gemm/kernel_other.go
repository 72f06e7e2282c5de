//go:build !amd64

package gemm

// kernels lists the micro-kernels this machine can run: only the portable
// Go kernel.
func kernels() []*kernel { return []*kernel{goKernel} }
