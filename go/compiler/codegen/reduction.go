package codegen

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
)

// combiner describes an associative, commutative reduction op.
type combiner struct {
	kind   kir.Kind
	reduce kir.ReduceKind
}

var combiners = map[string]combiner{
	"arith.addf": {kir.Add, kir.ReduceAdd}, "arith.addi": {kir.Add, kir.ReduceAdd},
	"arith.mulf": {kir.Mul, kir.ReduceMul}, "arith.muli": {kir.Mul, kir.ReduceMul},
	"arith.maximumf": {kir.MaxF, kir.ReduceMaxF}, "arith.minimumf": {kir.MinF, kir.ReduceMinF},
	"arith.maxsi": {kir.MaxS, kir.ReduceMaxS}, "arith.minsi": {kir.MinS, kir.ReduceMinS},
	"arith.maxui": {kir.MaxU, kir.ReduceMaxU}, "arith.minui": {kir.MinU, kir.ReduceMinU},
	"arith.andi": {kir.And, kir.ReduceAnd}, "arith.ori": {kir.Or, kir.ReduceOr}, "arith.xori": {kir.Xor, kir.ReduceXor},
}

// matchCombiners checks that every output j is updated as
// yield_j = C_j(out_j, e) with out_j used nowhere else, and returns the
// combiners.
func (l *genericLowering) matchCombiners() ([]combiner, bool) {
	body := l.op.Body()
	y := body.Terminator()
	if y == nil || len(y.Operands) != len(l.results) {
		return nil, false
	}
	var out []combiner
	for j, v := range y.Operands {
		c := v.Owner()
		if c == nil || c.Block() != body || len(c.Operands) != 2 {
			return nil, false
		}
		cb, ok := combiners[c.Name]
		if !ok {
			return nil, false
		}
		arg := body.Args[l.nIn+j]
		if (c.Operands[0] == arg) == (c.Operands[1] == arg) {
			return nil, false
		}
		uses := 0
		for _, op := range body.Ops {
			for _, x := range op.Operands {
				if x == arg {
					uses++
				}
			}
		}
		if uses != 1 {
			return nil, false
		}
		out = append(out, cb)
	}
	return out, true
}

// identity returns the neutral element of a combiner for type t.
func identity(b *kir.Builder, c combiner, t kir.Type) kir.Value {
	s := t.Elem
	if s.IsFloat() {
		switch c.kind {
		case kir.Mul:
			return b.Float(t, 1)
		case kir.MaxF:
			return b.Float(t, math.Inf(-1))
		case kir.MinF:
			return b.Float(t, math.Inf(1))
		}
		return b.Float(t, 0)
	}
	bits := uint(s.Bits())
	switch c.kind {
	case kir.Mul:
		return b.Int(t, 1)
	case kir.MaxS:
		return b.Int(t, -1<<(bits-1))
	case kir.MinS:
		return b.Int(t, 1<<(bits-1)-1)
	case kir.MinU, kir.And:
		return b.Int(t, -1)
	}
	return b.Int(t, 0)
}

// reduceVector emits the innermost reduction loop k vectorized: lanes
// accumulate w-wide strips from the identity, are combined into the
// carried scalars, and the remainder runs scalar.
func (l *genericLowering) reduceVector(b *kir.Builder, ivs []kir.Value, k int, accs []kir.Value) ([]kir.Value, error) {
	g := l.g
	w := l.redWidth
	size := l.sizes[k].value
	n := b.Bin(kir.Mul, b.Bin(kir.DivS, size, g.idx(int64(w))), g.idx(int64(w)))
	// Chunks of w*chunkSteps elements: each chunk sums into fresh vector
	// lanes that are then folded into the carried scalars, a two-level
	// (pairwise-like) order that keeps long float sums accurate.
	const chunkSteps = 16
	chunk := g.idx(int64(w * chunkSteps))
	var err error
	folded := b.For(g.idx(0), n, chunk, accs, func(b *kir.Builder, c0 kir.Value, accs []kir.Value) []kir.Value {
		vinit := make([]kir.Value, len(accs))
		for j, a := range accs {
			vinit[j] = identity(b, l.combs[j], kir.V(b.K.Type(a).Elem, w))
		}
		c1 := b.Bin(kir.MinS, b.Bin(kir.Add, c0, chunk), n)
		saved := l.vecDim
		l.vecDim = k
		vres := b.For(c0, c1, g.idx(int64(w)), vinit, func(b *kir.Builder, iv kir.Value, iters []kir.Value) []kir.Value {
			ivs[k] = iv
			out, e := l.body(b, ivs, w, iters)
			if e != nil {
				err = e
				return iters
			}
			return out
		})
		l.vecDim = saved
		out := make([]kir.Value, len(accs))
		for j, a := range accs {
			t := b.K.Type(a)
			var r kir.Value
			if t.Elem == kir.F16 || t.Elem == kir.BF16 {
				// Fold 16-bit lanes in f32: a long in-order fold in f16
				// loses most of the sum's low bits.
				wide := b.Emit(kir.FPExt, kir.V(kir.F32, w), vres[j])
				r = b.EmitImm(kir.Reduce, kir.S(kir.F32), int64(l.combs[j].reduce), wide)
				r = b.Emit(kir.FPTrunc, t, r)
			} else {
				r = b.EmitImm(kir.Reduce, t, int64(l.combs[j].reduce), vres[j])
			}
			out[j] = b.Emit(l.combs[j].kind, t, a, r)
		}
		return out
	})
	if err != nil {
		return nil, err
	}
	res := b.For(n, size, g.idx(1), folded, func(b *kir.Builder, iv kir.Value, iters []kir.Value) []kir.Value {
		ivs[k] = iv
		out, e := l.body(b, ivs, 1, iters)
		if e != nil {
			err = e
			return iters
		}
		return out
	})
	return res, err
}

// useReductionVectors decides whether to vectorize the innermost loop as
// a reduction: it must be the last loop, a reduction, linear in every map,
// with a recognized combiner, and some input must be contiguous along it.
func (l *genericLowering) useReductionVectors(gather bool) bool {
	n := len(l.its)
	if n == 0 || len(l.reds) == 0 || l.reds[len(l.reds)-1] != n-1 || gather || l.g.st.VectorWidth <= 1 {
		return false
	}
	if !l.linearIn(n - 1) {
		return false
	}
	combs, ok := l.matchCombiners()
	if !ok || l.isContraction() {
		// Contractions keep a sequential sum per output element (the
		// parallel loop is vectorized instead), as IREE's matmuls do.
		return false
	}
	contiguous := false
	for i := 0; i < l.nIn; i++ {
		m := l.maps[i]
		if len(m.Results) == 0 {
			continue
		}
		if d, ok := m.Results[len(m.Results)-1].(*ir.AffineDimExpr); ok && d.Pos == n-1 {
			contiguous = true
		}
	}
	if !contiguous {
		return false
	}
	if l.smallWindow(combs) {
		return false
	}
	w := l.g.st.VectorWidth
	if l.g.st.ReductionWidth > 0 {
		w = l.g.st.ReductionWidth
	}
	if s := l.sizes[n-1].static; s >= 0 && s < int64(w) {
		if s < 2 {
			return false
		}
		w = shortReductionWidth(s)
	}
	l.combs, l.redWidth = combs, w
	return true
}

// smallWindow reports whether the reduction is better vectorized along its
// last parallel loop, each lane one output element reducing its window in
// order: the reduction loops are a small static window (at most
// smallWindowSize elements, the innermost under 8: a max pool's 3×3),
// every combiner gives the same result in any order (max, min, and, or),
// and the last parallel loop is linear in every map, at least 8 long, and
// steps along the inputs' innermost dimension (the pool's output columns).
// Vectorized along its 3-element rows instead, squeezenet's first 3×3/2
// max pool ran two lanes and a scalar per window row.
func (l *genericLowering) smallWindow(combs []combiner) bool {
	for _, c := range combs {
		switch c.kind {
		case kir.MaxF, kir.MinF, kir.MaxS, kir.MinS, kir.MaxU, kir.MinU, kir.And, kir.Or:
		default:
			return false
		}
	}
	elems := int64(1)
	for _, k := range l.reds {
		s := l.sizes[k].static
		if s < 0 {
			return false
		}
		elems *= s
	}
	if last := l.sizes[l.reds[len(l.reds)-1]].static; elems > smallWindowSize || last >= 8 {
		return false
	}
	if len(l.pars) == 0 {
		return false
	}
	p := l.pars[len(l.pars)-1]
	if l.sizes[p].static < 8 || !l.linearIn(p) {
		return false
	}
	// The lanes' elements lie close together: the loop steps through
	// the innermost dimension of the inputs that read it, by at most
	// maxWindowStride (a global pool's channels, a plane apart, stay a
	// reduction).
	for i := 0; i < l.nIn; i++ {
		m := l.maps[i]
		for r, e := range m.Results {
			c, _ := linearCoef(e, p)
			if c != 0 && (r != len(m.Results)-1 || c < 0 || c > maxWindowStride) {
				return false
			}
		}
	}
	return true
}

// maxWindowStride is the largest step, in elements, between the inputs
// of neighbouring lanes of a window reduction vectorized across outputs.
const maxWindowStride = 4

// smallWindowSize is the largest window smallWindow vectorizes across
// outputs.
const smallWindowSize = 64

// shortReductionWidth is the lane count for a reduction of s < the
// strategy's width elements (which would otherwise all go to the scalar
// remainder, one add after another): the smallest power of two w with
// w·w ≥ s, so that the s/w vector steps and the w lanes' in-order fold
// are both about √s long (7×7 = 49 elements: 6 + 8 + 1 dependent adds
// instead of 49). The order depends on the static size: the same
// reduction over a dynamic dimension sums in the strategy's width, so
// the two may differ in the last bits (every target that shares the
// strategy's width agrees with the others on both).
func shortReductionWidth(s int64) int {
	w := 1
	for int64(w*w) < s {
		w *= 2
	}
	return w
}

// isContraction reports a body that yields out + a*b (or a*b + out) of two
// inputs: a matmul-like reduction.
func (l *genericLowering) isContraction() bool {
	body := l.op.Body()
	y := body.Terminator()
	if l.nIn != 2 || y == nil || len(y.Operands) != 1 {
		return false
	}
	add := y.Operands[0].Owner()
	if add == nil || (add.Name != "arith.addf" && add.Name != "arith.addi") {
		return false
	}
	for _, v := range add.Operands {
		m := v.Owner()
		if m == nil || (m.Name != "arith.mulf" && m.Name != "arith.muli") {
			continue
		}
		// The product of two different inputs (x*x is not a contraction).
		a, b := m.Operands[0], m.Operands[1]
		if a != b && a.IsBlockArgument() && b.IsBlockArgument() {
			return true
		}
	}
	return false
}
