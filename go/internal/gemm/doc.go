// Package gemm multiplies float matrices on the CPU: F32 and F64 compute
// C += A·B for operands laid out with arbitrary offsets and row and column
// strides (transposed, broadcast with zero strides, reversed).
//
// F32 is single-threaded; callers parallelize by giving goroutines disjoint
// tiles of C. It follows the usual cache-blocked scheme: a kc×nc panel of B
// and an mc×kc panel of A are packed into contiguous slivers (buffers come
// from a sync.Pool), and a register-tiled micro-kernel adds each mr×nr tile
// of the product to C. On amd64 the micro-kernel is Go assembly chosen once
// at start-up from the CPU's features: a 14×32 AVX-512F kernel (which also
// packs row-major slivers by in-register 16×16 transposes), else a 6×16
// AVX2+FMA kernel, else a portable 4×4 Go kernel, which is also the only one
// on other architectures. Tiles at the edges of C, and C with a non-unit
// column stride, go through a small buffer; a column-major C is handled as
// Cᵀ += Bᵀ·Aᵀ. Problems with m or n of at most 8 run as matrix-vector
// products (AVX2 on amd64) instead, and tiny ones as plain loops.
//
// F64 is portable Go without blocking.
//
// The assembly is generated: edit gen_kernels.go and run go generate.
package gemm
