package codegen

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
)

// emit builds the loop nest: the first parallel loop is split over
// workgroups, the other parallel loops follow, the innermost parallel loop
// is vectorized with a scalar remainder, and reductions run innermost with
// the outputs as loop-carried values.
func (l *genericLowering) emit() error {
	g := l.g
	top := g.b
	ivs := make([]kir.Value, len(l.its))
	if l.coop {
		l.startCooperative(top)
	}
	if len(l.pars) == 0 {
		return l.point(top, ivs, 1)
	}
	if g.st.GridAll {
		return l.gridAll(top, ivs)
	}
	// Unit loops (the batch of one of an NCHW tensor) move inward, next to
	// the vectorized loop, so that the distributed loop has more than one
	// iteration and the grid more than one workgroup.
	if n := len(l.pars); n > 1 {
		var lead, unit []int
		for _, k := range l.pars[:n-1] {
			if l.sizes[k].static == 1 {
				unit = append(unit, k)
			} else {
				lead = append(lead, k)
			}
		}
		if len(lead) > 0 {
			l.pars = append(append(lead, unit...), l.pars[n-1])
		} else {
			// Only the vectorized loop is longer than one: it is the
			// distributed one, the unit loops stay at 0.
			for _, k := range unit {
				ivs[k] = g.idx(0)
			}
			l.pars = l.pars[n-1:]
		}
	}
	if l.shortLead() {
		// The first loop is too short to give every thread its share
		// (an im2col copy of two groups, of an RGB image's three
		// channels): its points are rows of workgroups along y and the
		// next loop is the distributed one.
		k := l.pars[0]
		g.k.Grid[1] = kir.GridDim{Static: l.sizes[k].static, Tile: 1}
		ivs[k] = top.EmitImm(kir.WorkgroupID, kir.S(kir.I64), 1)
		l.pars = l.pars[1:]
	}
	dist := l.pars[0]
	// Tile of the distributed loop: enough work for WorkgroupElements,
	// counting each output point's reduction (a global pool's 49 sums
	// per channel) as work too.
	inner := int64(1)
	for _, k := range l.pars[1:] {
		if s := l.sizes[k].static; s > 0 {
			inner *= s
		} else {
			inner *= 1024
		}
	}
	for _, k := range l.reds {
		if s := l.sizes[k].static; s > 0 {
			inner *= s
		} else {
			inner *= 1024
		}
	}
	tile := max(int64(1), g.st.WorkgroupElements/max(inner, 1))
	if s := l.sizes[dist].static; s > 0 && s*inner >= g.st.WorkgroupElements/minWorkgroupsBelow {
		// Enough work to share: at least minWorkgroups workgroups of
		// equal size, so that threads get even shares.
		tile = min(tile, (s+minWorkgroups-1)/minWorkgroups)
	}
	tile = l.gridX(dist, tile)
	wg := top.EmitImm(kir.WorkgroupID, kir.S(kir.I64), 0)
	lo := top.Bin(kir.Mul, wg, g.idx(tile))
	hi := top.Bin(kir.MinS, top.Bin(kir.Add, lo, g.idx(tile)), l.sizes[dist].value)
	return l.loops(top, ivs, 0, lo, hi)
}

// shortLead reports whether the first parallel loop becomes the grid's y
// dimension (emit): it has fewer than minWorkgroups iterations, the loop
// after it is neither the vectorized one nor shorter than two, and the
// generic has at least minWorkgroups·WorkgroupElements/minWorkgroupsBelow
// points, enough for every workgroup of a longer first loop. Splitting
// only the short loop left most threads idle: RegNetX-400MF's first
// grouped convolution copied its windows in two workgroups (245 µs).
func (l *genericLowering) shortLead() bool {
	if l.coop || len(l.pars) < 3 {
		return false
	}
	k, next := l.pars[0], l.pars[1]
	s := l.sizes[k].static
	if s < 2 || s >= minWorkgroups || next == l.vecDim || l.sizes[next].static < 2 {
		return false
	}
	points := int64(1)
	for _, p := range l.pars {
		if l.sizes[p].static < 0 {
			return false
		}
		points *= l.sizes[p].static
	}
	return points >= minWorkgroups*l.g.st.WorkgroupElements/minWorkgroupsBelow
}

// gridX makes the x dimension of the grid tiles of loop dim: tile
// rounded up to whole vectors when dim is the vectorized loop, 1 for a
// cooperative reduction (a workgroup per output point: its threads share
// the reduction), at most the loop's static size. It returns the tile.
func (l *genericLowering) gridX(dim int, tile int64) int64 {
	if dim == l.vecDim && l.width > 1 {
		tile = (tile + int64(l.width) - 1) / int64(l.width) * int64(l.width)
	}
	if l.coop {
		tile = 1
	}
	if s := l.sizes[dim].static; s >= 0 {
		tile = min(tile, max(s, 1))
		l.g.k.Grid[0] = kir.GridDim{Static: s, Tile: tile}
	} else {
		l.g.k.Grid[0] = kir.GridDim{Static: 1, PushConstants: []int{l.sizes[dim].push}, Tile: tile}
	}
	return tile
}

// gridAll splits all parallel loops among workgroups (Strategy.GridAll):
// the innermost parallel loop in tiles along x (one output point per
// workgroup for a cooperative reduction), every point of the outer
// parallel loops a row of workgroups along y, its indices decomposed from
// the workgroup's y index (the last outer loop fastest).
func (l *genericLowering) gridAll(top *kir.Builder, ivs []kir.Value) error {
	g := l.g
	n := len(l.pars)
	last := l.pars[n-1]
	tile := l.gridX(last, max(int64(1), g.st.WorkgroupElements))
	y := kir.GridDim{Static: 1, Tile: 1}
	for _, k := range l.pars[:n-1] {
		if s := l.sizes[k].static; s >= 0 {
			y.Static *= s
		} else {
			y.PushConstants = append(y.PushConstants, l.sizes[k].push)
		}
	}
	g.k.Grid[1] = y
	rest := top.EmitImm(kir.WorkgroupID, kir.S(kir.I64), 1)
	for i := n - 2; i >= 0; i-- {
		k := l.pars[i]
		if i == 0 {
			ivs[k] = rest
			break
		}
		if s := l.sizes[k].static; s == 1 {
			ivs[k] = g.idx(0)
			continue
		}
		ivs[k] = top.Bin(kir.RemS, rest, l.sizes[k].value)
		rest = top.Bin(kir.DivS, rest, l.sizes[k].value)
	}
	l.pars = l.pars[n-1:]
	wg := top.EmitImm(kir.WorkgroupID, kir.S(kir.I64), 0)
	lo := top.Bin(kir.Mul, wg, g.idx(tile))
	hi := top.Bin(kir.MinS, top.Bin(kir.Add, lo, g.idx(tile)), l.sizes[last].value)
	return l.loops(top, ivs, 0, lo, hi)
}

// A generic of at least WorkgroupElements/minWorkgroupsBelow elements is
// split into at least minWorkgroups workgroups (where its distributed
// loop is that long).
const (
	minWorkgroups      = 8
	minWorkgroupsBelow = 4
)

// loops emits parallel loop number i of l.pars (the distributed one
// ranges over [lo, hi)).
func (l *genericLowering) loops(b *kir.Builder, ivs []kir.Value, i int, lo, hi kir.Value) error {
	g := l.g
	k := l.pars[i]
	if i > 0 {
		lo, hi = g.idx(0), l.sizes[k].value
	}
	if k != l.vecDim {
		var err error
		loop := func(from, to kir.Value) {
			b.For(from, to, g.idx(1), nil, func(b *kir.Builder, iv kir.Value, _ []kir.Value) []kir.Value {
				ivs[k] = iv
				if e := l.loops(b, ivs, i+1, lo, hi); e != nil {
					err = e
				}
				return nil
			})
		}
		if r := l.outerWrap(i, k); r != nil {
			// Rows where a wrapped read (a pad's) does not wrap run apart,
			// with their range known: no division, the pad's tests fold.
			// The border rows before and after, in one loop: row j < first
			// is j, the others j + (end - first).
			nb := r.first + l.sizes[k].static - r.end
			if vs := l.sizes[l.vecDim].static; nb <= maxBorderPoints && vs >= 0 && vs <= int64(maxUnrolledRow*l.width) {
				// Few border rows of short rows: each apart, with its index
				// known (its wrapped reads and tests fold too).
				for v := int64(0); v < nb; v++ {
					row := v
					if v >= r.first {
						row = v + r.end - r.first
					}
					l.setRange(k, &interval{row, row})
					ivs[k] = g.idx(row)
					if e := l.loops(b, ivs, i+1, lo, hi); e != nil {
						err = e
					}
					l.setRange(k, nil)
				}
				nb = 0
			}
			saved := l.borderRows
			l.borderRows = true
			b.For(g.idx(0), g.idx(nb), g.idx(1), nil, func(b *kir.Builder, j kir.Value, _ []kir.Value) []kir.Value {
				before := b.Cmp(kir.CmpI, kir.PredSLT, j, g.idx(r.first))
				ivs[k] = b.Select(before, j, b.Bin(kir.Add, j, g.idx(r.end-r.first)))
				if e := l.loops(b, ivs, i+1, lo, hi); e != nil {
					err = e
				}
				return nil
			})
			l.borderRows = saved
			l.setRange(k, &interval{r.first, r.end - 1})
			loop(g.idx(r.first), g.idx(r.end))
			l.setRange(k, nil)
			return err
		}
		loop(lo, hi)
		return err
	}
	var err error
	main := lo
	// The bounds known at compile time (-1: not known): the vectorized
	// loop is not the distributed one and has a static size.
	slo, shi := int64(-1), int64(-1)
	if i > 0 && l.sizes[k].static >= 0 {
		slo, shi = 0, l.sizes[k].static
	}
	if l.wrap != nil {
		// Scalars up to the first index whose read does not wrap; vectors
		// stop at the next wrap (the scalar points after them finish).
		first, end := g.idx(l.wrap.first), g.idx(l.wrap.end)
		main = b.Bin(kir.MinS, b.Bin(kir.MaxS, lo, first), hi)
		mid := b.Bin(kir.MaxS, main, b.Bin(kir.MinS, hi, end))
		size := shi
		if slo >= 0 {
			smain := min(max(slo, l.wrap.first), shi)
			l.borderPoints(b, ivs, k, slo, smain, lo, main, &err)
			slo, shi = smain, max(smain, min(shi, l.wrap.end))
		} else {
			l.scalarPoints(b, ivs, k, lo, main, &err)
		}
		var sEnd int64
		main, sEnd = l.vectorLoops(b, ivs, k, main, mid, slo, shi, &err)
		if sEnd >= 0 {
			l.borderPoints(b, ivs, k, sEnd, size, main, hi, &err)
			return err
		}
	} else {
		main, _ = l.vectorLoops(b, ivs, k, main, hi, slo, shi, &err)
	}
	l.scalarPoints(b, ivs, k, main, hi, &err)
	return err
}

// maxBorderPoints is the most points of a wrapped read's border (where
// the read wraps for some window offset) that are emitted one by one,
// each with its index and the window's known: their wrapped reads then
// need no division and the pad's tests fold. Only rows of at most
// maxUnrolledRow·width points do so (in longer rows the borders weigh
// little and the code is not worth it), and not in an outer loop's
// border rows.
const (
	maxBorderPoints = 4
	maxUnrolledRow  = 2
	maxUnrolledTaps = 64
)

// borderPoints emits the scalar points [from, to) of loop k (static;
// [lo, hi) as kernel values), one by one when they are few.
func (l *genericLowering) borderPoints(b *kir.Builder, ivs []kir.Value, k int, from, to int64, lo, hi kir.Value, err *error) {
	taps := int64(1)
	for _, r := range l.reds {
		s := l.sizes[r].static
		if s < 0 {
			s = maxUnrolledTaps + 1
		}
		taps *= s
	}
	if to-from > maxBorderPoints || taps > maxUnrolledTaps || l.sizes[k].static > int64(maxUnrolledRow*l.width) {
		l.scalarPoints(b, ivs, k, lo, hi, err)
		return
	}
	l.unrollReds = true
	defer func() { l.unrollReds = false }()
	for v := from; v < to; v++ {
		l.setRange(k, &interval{v, v})
		ivs[k] = l.g.idx(v)
		if e := l.point(b, ivs, 1); e != nil {
			*err = e
		}
		l.setRange(k, nil)
	}
}

// scalarPoints emits a loop of scalar points of loop k over [lo, hi).
func (l *genericLowering) scalarPoints(b *kir.Builder, ivs []kir.Value, k int, lo, hi kir.Value, err *error) {
	b.For(lo, hi, l.g.idx(1), nil, func(b *kir.Builder, iv kir.Value, _ []kir.Value) []kir.Value {
		ivs[k] = iv
		if e := l.point(b, ivs, 1); e != nil {
			*err = e
		}
		return nil
	})
}

// outerWrap returns the range of the outer parallel loop k (number i, not
// the distributed one, static size) where no wrapped read along it wraps,
// when some read wraps along it and the range is not empty.
func (l *genericLowering) outerWrap(i, k int) *wrapRead {
	if i == 0 || l.width <= 1 || k != l.splitLoop() {
		return nil
	}
	r, ok := l.wrappedIn(k)
	if !ok || r.first < 0 || r.end <= r.first || r.end > l.sizes[k].static {
		return nil
	}
	return r
}

// minSplitRows is the smallest outer loop split by outerWrap.
const minSplitRows = 4

// splitLoop returns the one outer loop that outerWrap splits (each split
// repeats the code inside it three times): the longest outer parallel
// loop, not the distributed or the vectorized one, of at least
// minSplitRows iterations, along which some read wraps; -1 when none.
func (l *genericLowering) splitLoop() int {
	best := -1
	for _, k := range l.pars[1:] {
		s := l.sizes[k].static
		if k == l.vecDim || s < minSplitRows || (best >= 0 && s <= l.sizes[best].static) {
			continue
		}
		for _, m := range l.maps {
			for _, e := range m.Results {
				if _, _, _, _, _, ok := l.wrapOf(e, k); ok {
					best = k
				}
			}
		}
	}
	return best
}

// overlapSafe reports a kernel that reads none of the buffers it writes,
// so that computing a point twice stores the same values twice.
func (l *genericLowering) overlapSafe() bool {
	for _, bd := range l.g.k.Bindings {
		if bd.Access == kir.ReadWrite {
			return false
		}
	}
	return true
}

// vectorLoops emits the vector loops over as much of [lo, hi) of loop k
// as whole vectors cover, and returns where they stop. When the range is
// known at compile time (slo ≥ 0: [slo, shi)), its remainder after the
// full vectors is one vector of as many lanes.
func (l *genericLowering) vectorLoops(b *kir.Builder, ivs []kir.Value, k int, lo, hi kir.Value, slo, shi int64, err *error) (kir.Value, int64) {
	g := l.g
	main := lo
	if slo >= 0 {
		n := shi - slo
		w := int64(l.width)
		defer l.setRange(k, nil)
		if full := n / w * w; full > 0 {
			l.setRange(k, &interval{slo, slo + full - 1})
			main = g.idx(slo + full)
			b.For(lo, main, g.idx(w), nil, func(b *kir.Builder, iv kir.Value, _ []kir.Value) []kir.Value {
				ivs[k] = iv
				if e := l.point(b, ivs, l.width); e != nil {
					*err = e
				}
				return nil
			})
		}
		// The remainder as vectors of decreasing powers of two (LLVM
		// splits a vector of another length into such pieces anyway, and
		// scalarizes some operations on it).
		at := slo + n/w*w
		if r := shi - at; r > 0 && l.overlapSafe() {
			// One vector ending at the range's end, overlapping the last
			// ones: the points it computes again are stored again with the
			// same values (nothing the kernel writes is read).
			p := int64(2)
			for p < r {
				p *= 2
			}
			if p <= w && shi-p >= slo && r > p/2 && p > 2 {
				l.setRange(k, &interval{shi - p, shi - 1})
				ivs[k] = g.idx(shi - p)
				if e := l.point(b, ivs, int(p)); e != nil {
					*err = e
				}
				return g.idx(shi), shi
			}
		}
		for p := w / 2; p > 1; p /= 2 {
			if shi-at < p {
				continue
			}
			l.setRange(k, &interval{at, at + p - 1})
			ivs[k] = g.idx(at)
			if e := l.point(b, ivs, int(p)); e != nil {
				*err = e
			}
			at += p
		}
		return g.idx(at), at
	}
	// Full vectors, then (when the width is large) a quarter width, so
	// rows shorter than a vector, or their tails, do not fall to scalars.
	for _, w := range remainderWidths(l.width) {
		n := b.Bin(kir.Sub, hi, main)
		from := main
		main = b.Bin(kir.Add, from, b.Bin(kir.Mul, b.Bin(kir.DivS, n, g.idx(int64(w))), g.idx(int64(w))))
		b.For(from, main, g.idx(int64(w)), nil, func(b *kir.Builder, iv kir.Value, _ []kir.Value) []kir.Value {
			ivs[k] = iv
			if e := l.point(b, ivs, w); e != nil {
				*err = e
			}
			return nil
		})
	}
	return main, -1
}

// access is how one operand is addressed at a loop point.
type access struct {
	binding int
	off     kir.Value
	// vector stride along the vectorized loop: 0 broadcast, 1 contiguous,
	// else stride (a kernel value).
	kind   int // 0 broadcast, 1 contiguous, 2 strided
	stride kir.Value
}

// address computes operand tensor t's offset through map m at ivs.
func (l *genericLowering) address(b *kir.Builder, t *ir.Value, binding int, m *ir.AffineMap, ivs []kir.Value, w int) access {
	g := l.g
	strides := g.strides[t]
	var off kir.Value = -1
	for r, e := range m.Results {
		term := b.Bin(kir.Mul, l.emitIndex(b, e, ivs), strides[r])
		if off < 0 {
			off = term
		} else {
			off = b.Bin(kir.Add, off, term)
		}
	}
	if off < 0 {
		off = g.idx(0)
	}
	a := access{binding: binding, off: off}
	if w == 1 || l.vecDim < 0 {
		return a
	}
	coefs := make([]int64, len(m.Results))
	for r, e := range m.Results {
		coefs[r], _ = l.vecCoef(e)
	}
	return l.laneAccess(b, a, coefs, strides)
}

// laneAccess completes a, whose offset is lane 0's, with how the lanes
// along the vectorized loop step: coefs[r] is how far index r moves per
// lane (0 in every index: a broadcast; 1 in the last only: contiguous;
// else strided by Σ coefs[r]·strides[r]).
func (l *genericLowering) laneAccess(b *kir.Builder, a access, coefs []int64, strides []kir.Value) access {
	last := len(coefs) - 1
	var stride kir.Value = -1
	contiguous := true
	any := false
	for r, c := range coefs {
		if c == 0 {
			continue
		}
		any = true
		if r != last || c != 1 {
			contiguous = false
		}
		term := b.Bin(kir.Mul, l.g.idx(c), strides[r])
		if stride < 0 {
			stride = term
		} else {
			stride = b.Bin(kir.Add, stride, term)
		}
	}
	switch {
	case !any:
		a.kind = 0
	case contiguous:
		a.kind = 1
	default:
		a.kind, a.stride = 2, stride
	}
	return a
}

func (l *genericLowering) load(b *kir.Builder, a access, w int) kir.Value {
	v := l.loadRaw(b, a, w)
	if f, ok := f8Of(ir.ElementTypeOf(l.g.d.Bindings[a.binding].Type)); ok {
		v = f.decode(b, v, b.K.Type(v).Width())
	}
	return v
}

func (l *genericLowering) loadRaw(b *kir.Builder, a access, w int) kir.Value {
	elem := l.g.k.Bindings[a.binding].Elem
	if w == 1 || a.kind == 0 {
		v := b.Load(a.binding, kir.S(elem), a.off)
		if w > 1 {
			v = b.Emit(kir.Broadcast, kir.V(elem, w), v)
		}
		return v
	}
	if a.kind == 1 {
		return b.Load(a.binding, kir.V(elem, w), a.off)
	}
	v := b.NewValue(kir.V(elem, w))
	b.Append(&kir.Op{Kind: kir.LoadStrided, Results: []kir.Value{v}, Args: []kir.Value{a.off, a.stride}, Binding: a.binding})
	return v
}

func (l *genericLowering) store(b *kir.Builder, a access, v kir.Value, w int) {
	if f, ok := f8Of(ir.ElementTypeOf(l.g.d.Bindings[a.binding].Type)); ok {
		v = f.encode(b, v, b.K.Type(v).Width())
	}
	if w == 1 || a.kind == 1 {
		b.Store(a.binding, a.off, v)
		return
	}
	stride := a.stride
	if a.kind == 0 {
		// Every lane targets the same element: store the last lane.
		last := b.EmitImm(kir.Extract, kir.S(b.K.Type(v).Elem), int64(w-1), v)
		b.Store(a.binding, a.off, last)
		return
	}
	b.Append(&kir.Op{Kind: kir.StoreStrided, Args: []kir.Value{a.off, stride, v}, Binding: a.binding})
}

// remainderWidths returns the vector widths of the loops that cover the
// vectorized loop before its scalar remainder: w, then w/4 when that is
// still a vector of at least 8 lanes (an AVX2 register of f32).
func remainderWidths(w int) []int {
	if w <= 1 {
		return nil
	}
	if w%4 == 0 && w/4 >= 8 {
		return []int{w, w / 4}
	}
	return []int{w}
}
