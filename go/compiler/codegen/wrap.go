package codegen

import "github.com/gree-ml/gree/go/compiler/ir"

// wrapRead is where the vectorized loop may run vectors when some reads
// are at (a·d + L + c) mod n along it (a zero pad's wrapped read, also
// inside a convolution that the pad was fused into, where L is a sum of
// other loops such as the window's): for d in [first, end) no lane of
// any such read wraps for any value of the other loops, so each read is
// linear in d with slope a there.
type wrapRead struct {
	first, end int64
}

// linearForm returns e as Σ coef[k]·dk + c when it is linear (products
// only with constants, no symbols), over n loops.
func linearForm(e ir.AffineExpr, n int) (coef []int64, c int64, ok bool) {
	switch e := e.(type) {
	case *ir.AffineDimExpr:
		if e.Pos >= n {
			return nil, 0, false
		}
		coef = make([]int64, n)
		coef[e.Pos] = 1
		return coef, 0, true
	case *ir.AffineConstantExpr:
		return make([]int64, n), e.Value, true
	case *ir.AffineBinaryExpr:
		lc, lk, lok := linearForm(e.LHS, n)
		rc, rk, rok := linearForm(e.RHS, n)
		if !lok || !rok {
			return nil, 0, false
		}
		switch e.Kind {
		case ir.AffineAdd:
			return combineLinear('+', lc, lk, rc, rk)
		case ir.AffineMul:
			return combineLinear('*', lc, lk, rc, rk)
		}
	}
	return nil, 0, false
}

// combineLinear combines the linear forms lc·d + lk and rc·d + rk with
// op '+', '-' or '*' (a product only where one side is constant),
// reusing lc.
func combineLinear(op byte, lc []int64, lk int64, rc []int64, rk int64) ([]int64, int64, bool) {
	if op == '+' || op == '-' {
		sign := int64(1)
		if op == '-' {
			sign = -1
		}
		for i := range lc {
			lc[i] += sign * rc[i]
		}
		return lc, lk + sign*rk, true
	}
	if isZero(lc) {
		lc, lk, rc, rk = rc, rk, lc, lk
	}
	if !isZero(rc) {
		return nil, 0, false
	}
	for i := range lc {
		lc[i] *= rk
	}
	return lc, lk * rk, true
}

func isZero(xs []int64) bool {
	for _, x := range xs {
		if x != 0 {
			return false
		}
	}
	return true
}

// wrapOf matches e = (a·dk + L + c) mod n with a > 0 and n a positive
// constant, returning a, n, c and the range [lmin, lmax] of L over the
// other loops (each of a static size). ok is false otherwise.
func (l *genericLowering) wrapOf(e ir.AffineExpr, k int) (a, n, c, lmin, lmax int64, ok bool) {
	m, isBin := e.(*ir.AffineBinaryExpr)
	if !isBin || m.Kind != ir.AffineMod {
		return
	}
	nc, isC := m.RHS.(*ir.AffineConstantExpr)
	if !isC || nc.Value <= 0 {
		return
	}
	coef, c, lin := linearForm(m.LHS, len(l.its))
	if !lin || coef[k] <= 0 {
		return
	}
	for j, cj := range coef {
		if j == k || cj == 0 {
			continue
		}
		s := l.sizes[j].static
		if s < 1 {
			return
		}
		lmin += min(0, cj*(s-1))
		lmax += max(0, cj*(s-1))
	}
	return coef[k], nc.Value, c, lmin, lmax, true
}

// wrapRange returns the range of d where (a·d + L + c) lies in
// [q·n, (q+1)·n) for every L in [lmin, lmax].
func wrapRange(a, n, c, lmin, lmax, q int64) (first, end int64) {
	first = CeilDiv(q*n-c-lmin, a)
	end = floorDiv((q+1)*n-c-lmax-1, a) + 1
	return first, max(first, end)
}

func floorDiv(x, y int64) int64 {
	q := x / y
	if (x%y != 0) && ((x < 0) != (y < 0)) {
		q--
	}
	return q
}

// CeilDiv is ⌈x/y⌉ for y ≠ 0, rounding toward +∞ (arith.ceildivsi).
func CeilDiv(x, y int64) int64 { return -floorDiv(-x, y) }

// wrappedIn reports whether every map is linear in loop k except for
// results (a·k + L + c) mod n, and returns a range of k where none of
// their reads wraps (the longest one found within the loop, when its
// size is known).
func (l *genericLowering) wrappedIn(k int) (*wrapRead, bool) {
	size := l.sizes[k].static
	var w *wrapRead
	for _, m := range l.maps {
		for _, e := range m.Results {
			if _, ok := linearCoef(e, k); ok {
				continue
			}
			a, n, c, lmin, lmax, ok := l.wrapOf(e, k)
			if !ok || lmax-lmin >= n {
				return nil, false
			}
			// Candidate quotients: those the read takes over the loop.
			q0 := floorDiv(c+lmin, n)
			q1 := q0 + 1
			if size >= 0 {
				q1 = floorDiv(a*max(size-1, 0)+c+lmax, n)
			}
			var best *wrapRead
			bestLen := int64(-1)
			for q := q0; q <= q1 && q < q0+64; q++ {
				f, e := wrapRange(a, n, c, lmin, lmax, q)
				f = max(f, 0)
				if w != nil {
					f, e = max(f, w.first), min(e, w.end)
				}
				if size >= 0 {
					e = min(e, size)
				}
				if e-f > bestLen {
					best, bestLen = &wrapRead{first: f, end: e}, e-f
				}
			}
			if best == nil || bestLen <= 0 {
				return nil, false
			}
			w = best
		}
	}
	return w, w != nil
}

// vecCoef is linearCoef along the vectorized loop, where a wrapped read
// counts as linear with its slope (vectors never cross its wrap).
func (l *genericLowering) vecCoef(e ir.AffineExpr) (int64, bool) {
	if c, ok := linearCoef(e, l.vecDim); ok {
		return c, true
	}
	if l.wrap != nil {
		if a, _, _, _, _, ok := l.wrapOf(e, l.vecDim); ok {
			return a, true
		}
	}
	return 0, false
}
