package gemm

//go:generate go run gen_kernels.go

// kernAVX512 adds A·B to a 14×32 tile of C (see gen_kernels.go).
//
//go:noescape
func kernAVX512(k int, a, b, c *float32, rs int)

// kernAVX2 adds A·B to a 6×16 tile of C (see gen_kernels.go).
//
//go:noescape
func kernAVX2(k int, a, b, c *float32, rs int)

// transpose16 packs up to 16 rows into k-major slivers with AVX-512 (see
// transposer and gen_kernels.go).
//
//go:noescape
func transpose16(k int, src *float32, offs *[16]int, lanes int, dst *float32, dstStride int)

// dotAVX2 is dotGo for k > 0 floats at x and y.
//
//go:noescape
func dotAVX2(k int, x, y *float32) float32

// rowAVX2 is rowGo for k > 0 on pointers: it adds the sum over p < k of
// a[p*as] times the n floats at b[p*bs:] to the n floats at c.
//
//go:noescape
func rowAVX2(k, n int, a *float32, as int, b *float32, bs int, c *float32)

// cpuid executes the CPUID instruction for leaf eaxArg, sub-leaf ecxArg.
func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

// xgetbv returns extended control register 0, the register states the
// operating system saves on context switches.
func xgetbv() (eax, edx uint32)

var (
	avx512Kernel = &kernel{name: "avx512-14x32", mr: 14, nr: 32, mc: 14 * 16, kc: 384, nc: 2048, asm: kernAVX512, trans: transpose16, dot: dotAVX2, row: rowAVX2}
	avx2Kernel   = &kernel{name: "avx2-6x16", mr: 6, nr: 16, mc: 6 * 20, kc: 256, nc: 2048, asm: kernAVX2, dot: dotAVX2, row: rowAVX2}
)

// detect reports whether the CPU and the operating system support AVX2 with
// FMA, and AVX-512F.
func detect() (avx2, avx512 bool) {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false, false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const (
		fma     = 1 << 12
		osxsave = 1 << 27
		avx     = 1 << 28
	)
	if ecx1&(fma|osxsave|avx) != fma|osxsave|avx {
		return false, false
	}
	xcr0, _ := xgetbv()
	const (
		sseAVXState = 1<<1 | 1<<2        // XMM and YMM upper halves
		avx512State = 1<<5 | 1<<6 | 1<<7 // opmask, ZMM0-15 upper halves, ZMM16-31
	)
	if xcr0&sseAVXState != sseAVXState {
		return false, false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	avx2 = ebx7&(1<<5) != 0
	avx512 = avx2 && ebx7&(1<<16) != 0 && xcr0&avx512State == avx512State
	return avx2, avx512
}

// kernels lists the micro-kernels this machine can run, best first; the
// portable Go kernel is always last.
func kernels() []*kernel {
	avx2, avx512 := detect()
	var ks []*kernel
	if avx512 {
		ks = append(ks, avx512Kernel)
	}
	if avx2 {
		ks = append(ks, avx2Kernel)
	}
	return append(ks, goKernel)
}
