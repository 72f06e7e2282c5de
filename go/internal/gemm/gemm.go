package gemm

import (
	"fmt"
	"sync"
)

// kernel is a register-tiled micro-kernel together with the cache blocking
// that suits it.
type kernel struct {
	name   string
	mr, nr int // register tile: rows of A and columns of B per call
	// mc, kc, nc block the problem: an mc×kc panel of A (a multiple of mr
	// rows) stays in L2, a kc×nr sliver of B in L1, a kc×nc panel of B in L3.
	mc, kc, nc int
	// asm adds A·B to the mr×nr tile of C at c, whose rows are rs floats
	// apart and whose columns are adjacent; a and b are packed slivers
	// holding mr and nr floats per k step. Nil for the portable kernel.
	asm func(k int, a, b, c *float32, rs int)
	// trans, if not nil, speeds up packing slivers whose lanes are
	// contiguous in k.
	trans transposer
	// dot and row, if not nil, are assembly versions of dotGo and rowGo
	// (on pointers to the first elements) for matrix-vector-like problems.
	dot func(k int, x, y *float32) float32
	row func(k, n int, a *float32, as int, b *float32, bs int, c *float32)
}

// goKernel is the portable micro-kernel (see goKernel4x4).
var goKernel = &kernel{name: "go-4x4", mr: 4, nr: 4, mc: 128, kc: 256, nc: 1024}

// active is the kernel F32 uses: the first entry of kernels().
var active = kernels()[0]

// smallWork is the m·n·k below which F32 skips packing and runs plain loops.
const smallWork = 1024

// thinDim is the largest m or n for which F32 prefers matrix-vector
// products (rows of C at a time, or single elements) to packing.
const thinDim = 8

// F32 computes C += A·B for an m×n×k problem. Element (i,j) of A is at
// a[aOff+i*aRS+j*aCS], likewise B (k×n) and C (m×n). Any strides are allowed,
// including negative, zero (broadcast) and overlapping ones; elements of C
// that share storage receive the sum of their updates. It panics with a
// descriptive message when an operand reaches outside its slice.
//
// F32 is safe for concurrent use on disjoint C.
func F32(m, n, k int, a []float32, aOff, aRS, aCS int, b []float32, bOff, bRS, bCS int, c []float32, cOff, cRS, cCS int) {
	f32(active, m, n, k, a, aOff, aRS, aCS, b, bOff, bRS, bCS, c, cOff, cRS, cCS)
}

// F64 is F32 for float64 operands, in portable Go.
func F64(m, n, k int, a []float64, aOff, aRS, aCS int, b []float64, bOff, bRS, bCS int, c []float64, cOff, cRS, cCS int) {
	if m <= 0 || n <= 0 || k <= 0 {
		return
	}
	checkBounds("A", len(a), m, k, aOff, aRS, aCS)
	checkBounds("B", len(b), k, n, bOff, bRS, bCS)
	checkBounds("C", len(c), m, n, cOff, cRS, cCS)
	if cCS != 1 && cRS == 1 {
		m, n, a, aOff, aRS, aCS, b, bOff, bRS, bCS, cRS, cCS = n, m, b, bOff, bCS, bRS, a, aOff, aCS, aRS, cCS, cRS
	}
	if bCS == 1 && cCS == 1 {
		// Row i of C gains a[i,p] times row p of B, for each p.
		for i := 0; i < m; i++ {
			ci := c[cOff+i*cRS : cOff+i*cRS+n]
			for p := 0; p < k; p++ {
				av := a[aOff+i*aRS+p*aCS]
				bp := b[bOff+p*bRS : bOff+p*bRS+n]
				for j, bv := range bp {
					ci[j] += av * bv
				}
			}
		}
		return
	}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float64
			ai, bj := aOff+i*aRS, bOff+j*bCS
			for p := 0; p < k; p++ {
				s += a[ai+p*aCS] * b[bj+p*bRS]
			}
			c[cOff+i*cRS+j*cCS] += s
		}
	}
}

func f32(kern *kernel, m, n, k int, a []float32, aOff, aRS, aCS int, b []float32, bOff, bRS, bCS int, c []float32, cOff, cRS, cCS int) {
	if m <= 0 || n <= 0 || k <= 0 {
		return
	}
	checkBounds("A", len(a), m, k, aOff, aRS, aCS)
	checkBounds("B", len(b), k, n, bOff, bRS, bCS)
	checkBounds("C", len(c), m, n, cOff, cRS, cCS)
	// The kernels write rows of C, so a column-major C is handled as the
	// transposed problem Cᵀ += Bᵀ·Aᵀ.
	if cCS != 1 && cRS == 1 {
		m, n, a, aOff, aRS, aCS, b, bOff, bRS, bCS, cRS, cCS = n, m, b, bOff, bCS, bRS, a, aOff, aCS, aRS, cCS, cRS
	}
	if m*n*k < smallWork {
		small32(m, n, k, a, aOff, aRS, aCS, b, bOff, bRS, bCS, c, cOff, cRS, cCS)
		return
	}
	if min(m, n) <= thinDim && thin32(kern, m, n, k, a, aOff, aRS, aCS, b, bOff, bRS, bCS, c, cOff, cRS, cCS) {
		return
	}
	blocked32(kern, m, n, k, a, aOff, aRS, aCS, b, bOff, bRS, bCS, c, cOff, cRS, cCS)
}

// checkBounds panics unless every element of the rows×cols operand lies in a
// slice of length n.
func checkBounds(name string, n, rows, cols, off, rs, cs int) {
	lo, hi := off, off
	for _, d := range [2]int{(rows - 1) * rs, (cols - 1) * cs} {
		if d < 0 {
			lo += d
		} else {
			hi += d
		}
	}
	if lo < 0 || hi >= n {
		panic(fmt.Sprintf("gemm: %s (%d×%d, offset %d, strides %d,%d) spans elements %d..%d of a slice of length %d",
			name, rows, cols, off, rs, cs, lo, hi, n))
	}
}

// small32 runs plain loops, for problems too small or too thin to repay
// packing.
func small32(m, n, k int, a []float32, aOff, aRS, aCS int, b []float32, bOff, bRS, bCS int, c []float32, cOff, cRS, cCS int) {
	if bCS == 1 && cCS == 1 && !(aCS == 1 && bRS == 1) {
		// Row i of C gains a[i,p] times row p of B, for each p.
		for i := 0; i < m; i++ {
			ci := c[cOff+i*cRS : cOff+i*cRS+n]
			for p := 0; p < k; p++ {
				av := a[aOff+i*aRS+p*aCS]
				bp := b[bOff+p*bRS : bOff+p*bRS+n]
				for j, bv := range bp {
					ci[j] += av * bv
				}
			}
		}
		return
	}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float32
			ai, bj := aOff+i*aRS, bOff+j*bCS
			if aCS == 1 && bRS == 1 {
				ap, bp := a[ai:ai+k], b[bj:bj+k]
				for p, av := range ap {
					s += av * bp[p]
				}
			} else {
				for p := 0; p < k; p++ {
					s += a[ai+p*aCS] * b[bj+p*bRS]
				}
			}
			c[cOff+i*cRS+j*cCS] += s
		}
	}
}

// thin32 computes C += A·B, where m or n is at most thinDim, as dot
// products or as rows of C, each the product of a row of A with B, when the
// operands' layout gives contiguous vectors; the thin operand is copied
// into such a layout when needed. It reports false, having done nothing,
// when no layout fits.
func thin32(kern *kernel, m, n, k int, a []float32, aOff, aRS, aCS int, b []float32, bOff, bRS, bCS int, c []float32, cOff, cRS, cCS int) bool {
	switch {
	case aCS == 1 && bRS == 1:
	case m <= n && bCS == 1 && cCS == 1:
		// Rows of B and C are contiguous.
		for i := 0; i < m; i++ {
			rowOf(kern, k, n, a, aOff+i*aRS, aCS, b, bOff, bRS, c, cOff+i*cRS)
		}
		return true
	case n <= m && aRS == 1 && cRS == 1:
		// Columns of A and C are contiguous: rows of Cᵀ += Bᵀ·Aᵀ.
		for j := 0; j < n; j++ {
			rowOf(kern, k, m, b, bOff+j*bCS, bRS, a, aOff, aCS, c, cOff+j*cCS)
		}
		return true
	case m <= n && bRS == 1:
		// Copy the thin A into contiguous rows.
		buf := bufPool.Get().(*buffers)
		defer bufPool.Put(buf)
		buf.a = grow(buf.a, m*k)
		for i := 0; i < m; i++ {
			copyStrided(buf.a[i*k:i*k+k], a, aOff+i*aRS, aCS)
		}
		a, aOff, aRS, aCS = buf.a, 0, k, 1
	case n <= m && aCS == 1:
		// Copy the thin B into contiguous columns.
		buf := bufPool.Get().(*buffers)
		defer bufPool.Put(buf)
		buf.b = grow(buf.b, n*k)
		for j := 0; j < n; j++ {
			copyStrided(buf.b[j*k:j*k+k], b, bOff+j*bCS, bRS)
		}
		b, bOff, bRS, bCS = buf.b, 0, 1, k
	default:
		return false
	}
	// Rows of A and columns of B are contiguous.
	for i := 0; i < m; i++ {
		ai := a[aOff+i*aRS : aOff+i*aRS+k]
		for j := 0; j < n; j++ {
			bj := b[bOff+j*bCS : bOff+j*bCS+k]
			var s float32
			if kern.dot != nil {
				s = kern.dot(k, &ai[0], &bj[0])
			} else {
				s = dotGo(ai, bj)
			}
			c[cOff+i*cRS+j*cCS] += s
		}
	}
	return true
}

// copyStrided sets d[p] to src[off+p*stride] for each p.
func copyStrided(d, src []float32, off, stride int) {
	if stride == 1 {
		copy(d, src[off:off+len(d)])
		return
	}
	for p := range d {
		d[p] = src[off+p*stride]
	}
}

// rowOf adds the sum over p < k of a[aOff+p*as] times the n contiguous
// floats at b[bOff+p*bs:] to the n contiguous floats at c[cOff:].
func rowOf(kern *kernel, k, n int, a []float32, aOff, as int, b []float32, bOff, bs int, c []float32, cOff int) {
	if kern.row != nil {
		kern.row(k, n, &a[aOff], as, &b[bOff], bs, &c[cOff])
		return
	}
	rowGo(k, n, a, aOff, as, b, bOff, bs, c[cOff:cOff+n])
}

// dotGo returns the dot product of x and y[:len(x)].
func dotGo(x, y []float32) float32 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float32
	p := 0
	for ; p+4 <= len(x); p += 4 {
		x4, y4 := x[p:p+4:p+4], y[p:p+4:p+4]
		s0 += x4[0] * y4[0]
		s1 += x4[1] * y4[1]
		s2 += x4[2] * y4[2]
		s3 += x4[3] * y4[3]
	}
	for ; p < len(x); p++ {
		s0 += x[p] * y[p]
	}
	return (s0 + s1) + (s2 + s3)
}

// rowGo adds the sum over p < k of a[aOff+p*as] times b[bOff+p*bs:][:len(c)]
// to c, in blocks of columns so that the sums stay in registers.
func rowGo(k, n int, a []float32, aOff, as int, b []float32, bOff, bs int, c []float32) {
	j := 0
	for ; j+4 <= n; j += 4 {
		var s0, s1, s2, s3 float32
		for p := 0; p < k; p++ {
			av := a[aOff+p*as]
			b4 := b[bOff+p*bs+j : bOff+p*bs+j+4 : bOff+p*bs+j+4]
			s0 += av * b4[0]
			s1 += av * b4[1]
			s2 += av * b4[2]
			s3 += av * b4[3]
		}
		c4 := c[j : j+4 : j+4]
		c4[0] += s0
		c4[1] += s1
		c4[2] += s2
		c4[3] += s3
	}
	for ; j < n; j++ {
		var s float32
		for p := 0; p < k; p++ {
			s += a[aOff+p*as] * b[bOff+p*bs+j]
		}
		c[j] += s
	}
}

// buffers holds the packed panels of one F32 call.
type buffers struct{ a, b []float32 }

var bufPool = sync.Pool{New: func() any { return new(buffers) }}

// grow returns s resliced to length n, reallocated when too short.
func grow(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}

// blocked32 is the packed, cache-blocked algorithm: for each kc×nc panel of
// B and each mc×kc panel of A, both packed into slivers, the micro-kernel
// sweeps the mr×nr tiles of the mc×nc block of C.
func blocked32(kern *kernel, m, n, k int, a []float32, aOff, aRS, aCS int, b []float32, bOff, bRS, bCS int, c []float32, cOff, cRS, cCS int) {
	mr, nr := kern.mr, kern.nr
	kcMax := min(kern.kc, k)
	// Balance the k blocks so that the last one is not tiny, keeping them
	// multiples of 16 (the transposing packer's block) where possible.
	if nb := (k + kcMax - 1) / kcMax; nb > 1 {
		kcMax = min(roundUp((k+nb-1)/nb, 16), kcMax)
	}
	mcMax := roundUp(min(kern.mc, m), mr)
	ncMax := roundUp(min(kern.nc, n), nr)
	buf := bufPool.Get().(*buffers)
	defer bufPool.Put(buf)
	buf.a = grow(buf.a, mcMax*kcMax)
	buf.b = grow(buf.b, ncMax*kcMax)
	ap, bp := buf.a, buf.b
	var tmp [maxTile]float32
	// Tiles of C whose rows do not overlap are accumulated in place (from
	// C's values, so k blocks sum in one sequential order); overlapping
	// rows (broadcast outputs) go through tmp and are added back row by row.
	direct := cCS == 1 && cRS >= kern.nr && kern.asm != nil

	for jc := 0; jc < n; jc += ncMax {
		nc := min(ncMax, n-jc)
		for pc := 0; pc < k; pc += kcMax {
			kc := min(kcMax, k-pc)
			packB(kern, bp, b, bOff+pc*bRS+jc*bCS, bRS, bCS, kc, nc)
			for ic := 0; ic < m; ic += mcMax {
				mc := min(mcMax, m-ic)
				packA(kern, ap, a, aOff+ic*aRS+pc*aCS, aRS, aCS, mc, kc)
				for jr := 0; jr < nc; jr += nr {
					cols := min(nr, nc-jr)
					bs := bp[jr*kc : jr*kc+nr*kc]
					for ir := 0; ir < mc; ir += mr {
						rows := min(mr, mc-ir)
						as := ap[ir*kc : ir*kc+mr*kc]
						co := cOff + (ic+ir)*cRS + (jc+jr)*cCS
						if direct && rows == mr && cols == nr {
							kern.asm(kc, &as[0], &bs[0], &c[co], cRS)
							continue
						}
						t := tmp[:mr*nr]
						clear(t)
						disjoint := tileDisjoint(cRS, cCS, rows, cols)
						if disjoint {
							for i := 0; i < rows; i++ {
								ci := co + i*cRS
								for j := 0; j < cols; j++ {
									t[i*nr+j] = c[ci+j*cCS]
								}
							}
						}
						if kern.asm != nil {
							kern.asm(kc, &as[0], &bs[0], &t[0], nr)
						} else {
							goKernel4x4(kc, as, bs, t)
						}
						for i := 0; i < rows; i++ {
							ti := t[i*nr : i*nr+cols]
							ci := co + i*cRS
							switch {
							case disjoint && cCS == 1:
								copy(c[ci:ci+cols], ti)
							case disjoint:
								for j, v := range ti {
									c[ci+j*cCS] = v
								}
							case cCS == 1:
								cr := c[ci : ci+cols]
								for j, v := range ti {
									cr[j] += v
								}
							default:
								for j, v := range ti {
									c[ci+j*cCS] += v
								}
							}
						}
					}
				}
			}
		}
	}
}

// maxTile bounds mr·nr over all kernels.
const maxTile = 14 * 32

func roundUp(x, m int) int { return (x + m - 1) / m * m }

// packA copies the mc×kc block of A at a[off:] into dst as slivers of mr
// rows: sliver s occupies dst[s*mr*kc:] and holds, for each k step p, the mr
// values A[s*mr+i, p]. Rows past mc are zero.
func packA(kern *kernel, dst, a []float32, off, rs, cs, mc, kc int) {
	mr := kern.mr
	for i0 := 0; i0 < mc; i0 += mr {
		packSliver(kern.trans, dst[i0*kc:i0*kc+mr*kc], a, off+i0*rs, rs, cs, min(mr, mc-i0), kc, mr)
	}
}

// packB copies the kc×nc block of B at b[off:] into dst as slivers of nr
// columns: sliver s occupies dst[s*nr*kc:] and holds, for each k step p, the
// nr values B[p, s*nr+j]. Columns past nc are zero.
func packB(kern *kernel, dst, b []float32, off, rs, cs, kc, nc int) {
	nr := kern.nr
	for j0 := 0; j0 < nc; j0 += nr {
		packSliver(kern.trans, dst[j0*kc:j0*kc+nr*kc], b, off+j0*cs, cs, rs, min(nr, nc-j0), kc, nr)
	}
}

// transposer is the signature of transpose16 (see gen_kernels.go): for each
// p < k&^15 and i < lanes it stores src[offs[i]+p] at dst[p*dstStride+i].
type transposer func(k int, src *float32, offs *[16]int, lanes int, dst *float32, dstStride int)

// packSliver fills d, kc groups of w floats, with group p holding
// src[base+l*ls+p*ps] in lane l < lanes and zeros in lanes past that.
func packSliver(trans transposer, d, src []float32, base, ls, ps, lanes, kc, w int) {
	d = d[:kc*w]
	switch {
	case ls == 1 && lanes == w:
		packCopy(d, src, base, ps, kc, w)
		return
	case ls == 1:
		for p := 0; p < kc; p++ {
			dp := d[p*w : p*w+w]
			copy(dp, src[base+p*ps:base+p*ps+lanes])
			clear(dp[lanes:])
		}
		return
	case ps == 1 && trans != nil && kc >= 16:
		if lanes < w {
			clear(d)
		}
		var offs [16]int
		for l0 := 0; l0 < lanes; l0 += 16 {
			n := min(16, lanes-l0)
			for i := range offs {
				offs[i] = (l0 + min(i, n-1)) * ls
			}
			trans(kc, &src[base], &offs, n, &d[l0], w)
		}
		if p0 := kc &^ 15; p0 < kc {
			packTransposed(d[p0*w:], src, base+p0, ls, lanes, kc-p0, w)
		}
		return
	case ps == 1:
		packTransposed(d, src, base, ls, lanes, kc, w)
	default:
		for l := 0; l < lanes; l++ {
			o := base + l*ls
			for p := 0; p < kc; p++ {
				d[p*w+l] = src[o+p*ps]
			}
		}
	}
	for l := lanes; l < w; l++ {
		for p := 0; p < kc; p++ {
			d[p*w+l] = 0
		}
	}
}

// packCopy is packSliver for contiguous, full groups: group p is
// src[base+p*ps:][:w].
func packCopy(d, src []float32, base, ps, kc, w int) {
	switch w {
	case 32:
		for p := 0; p < kc; p++ {
			*(*[32]float32)(d[p*32:]) = *(*[32]float32)(src[base+p*ps:])
		}
	case 16:
		for p := 0; p < kc; p++ {
			*(*[16]float32)(d[p*16:]) = *(*[16]float32)(src[base+p*ps:])
		}
	case 14:
		for p := 0; p < kc; p++ {
			*(*[14]float32)(d[p*14:]) = *(*[14]float32)(src[base+p*ps:])
		}
	default:
		for p := 0; p < kc; p++ {
			copy(d[p*w:p*w+w], src[base+p*ps:base+p*ps+w])
		}
	}
}

// packTransposed is packSliver for lanes that are contiguous in p: lane l is
// src[base+l*ls:][:kc]. Lanes past lanes are left alone.
func packTransposed(d, src []float32, base, ls, lanes, kc, w int) {
	for l := 0; l < lanes; l++ {
		s := src[base+l*ls : base+l*ls+kc]
		dl := d[l : l+(kc-1)*w+1]
		p := 0
		for ; p+4 <= len(s); p += 4 {
			s4 := s[p : p+4 : p+4]
			x := dl[p*w:]
			x[3*w] = s4[3]
			x[0] = s4[0]
			x[w] = s4[1]
			x[2*w] = s4[2]
		}
		for ; p < len(s); p++ {
			dl[p*w] = s[p]
		}
	}
}

// goKernel4x4 adds A·B to the 4×4 tile t (row-major, 4 floats per row),
// where a and b are packed slivers of 4 floats per k step.
func goKernel4x4(k int, a, b, t []float32) {
	var c00, c01, c02, c03, c10, c11, c12, c13 float32
	var c20, c21, c22, c23, c30, c31, c32, c33 float32
	a, b = a[:4*k], b[:4*k]
	for p := 0; p+4 <= len(a); p += 4 {
		ap, bp := a[p:p+4:p+4], b[p:p+4:p+4]
		b0, b1, b2, b3 := bp[0], bp[1], bp[2], bp[3]
		a0 := ap[0]
		c00 += a0 * b0
		c01 += a0 * b1
		c02 += a0 * b2
		c03 += a0 * b3
		a1 := ap[1]
		c10 += a1 * b0
		c11 += a1 * b1
		c12 += a1 * b2
		c13 += a1 * b3
		a2 := ap[2]
		c20 += a2 * b0
		c21 += a2 * b1
		c22 += a2 * b2
		c23 += a2 * b3
		a3 := ap[3]
		c30 += a3 * b0
		c31 += a3 * b1
		c32 += a3 * b2
		c33 += a3 * b3
	}
	t = t[:16]
	t[0] += c00
	t[1] += c01
	t[2] += c02
	t[3] += c03
	t[4] += c10
	t[5] += c11
	t[6] += c12
	t[7] += c13
	t[8] += c20
	t[9] += c21
	t[10] += c22
	t[11] += c23
	t[12] += c30
	t[13] += c31
	t[14] += c32
	t[15] += c33
}

// tileDisjoint reports whether the rows×cols elements i*rs + j*cs are all
// distinct (a sufficient test).
func tileDisjoint(rs, cs, rows, cols int) bool {
	abs := func(x int) int {
		if x < 0 {
			return -x
		}
		return x
	}
	if cols > 1 && cs == 0 {
		return false
	}
	return rows == 1 || abs(rs) >= cols*max(abs(cs), 1)
}
