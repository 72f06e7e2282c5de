package vecf32

import "golang.org/x/sys/cpu"

var hasAVX2 = cpu.X86.HasAVX2

//go:noescape
func addAVX2(d, a, b *float32, n int)

//go:noescape
func subAVX2(d, a, b *float32, n int)

//go:noescape
func mulAVX2(d, a, b *float32, n int)

//go:noescape
func divAVX2(d, a, b *float32, n int)

//go:noescape
func maxAVX2(d, a, b *float32, n int)

//go:noescape
func minAVX2(d, a, b *float32, n int)

// binaryAsm runs the multiple-of-8 prefix in assembly and returns its
// length.
func binaryAsm(op Op, d, a, b []float32) int {
	n := len(d) &^ 7
	if !hasAVX2 || n == 0 {
		return 0
	}
	switch op {
	case Add:
		addAVX2(&d[0], &a[0], &b[0], n)
	case Sub:
		subAVX2(&d[0], &a[0], &b[0], n)
	case Mul:
		mulAVX2(&d[0], &a[0], &b[0], n)
	case Div:
		divAVX2(&d[0], &a[0], &b[0], n)
	case Max:
		maxAVX2(&d[0], &a[0], &b[0], n)
	case Min:
		minAVX2(&d[0], &a[0], &b[0], n)
	default:
		return 0
	}
	return n
}
