// Package vecf32 holds element-wise f32 vector kernels (add, sub, mul,
// div, and arith's NaN-propagating maximumf/minimumf) with AVX2 assembly on
// amd64 and plain Go elsewhere. The CPU interpreter runs its widest and
// most frequent vector instructions through them.
package vecf32
