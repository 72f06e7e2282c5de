package linalgext

import (
	"math"
	"sort"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// attention is an iree_linalg_ext.attention or online_attention being
// decomposed into generics. Its loops are those of its indexing maps;
// k1 (in Q and K, not in the output) is the QKᵀ reduction, k2 (in K and
// V, not in the output) the softmax and PV reduction. Everything is
// computed in f32.
type attention struct {
	r               *rewriter
	op              *ir.Operation
	b               *ir.Builder
	q, k, v, scale  *ir.Value
	mask            *ir.Value
	qm, km, vm, mm  *ir.AffineMap
	om              *ir.AffineMap
	k1, k2          map[int]bool
	sDims, rowDims  []int // score dims (all but k1 and n), row dims (score dims but k2)
	size            map[int]*ir.Value
	static          map[int]int64
	f32             ir.Type
	negInf, zero32  *ir.Value
	online          bool
	initO, initM, l *ir.Value
}

// extAttention lowers attention (softmax(scale·QKᵀ (+ mask))·V, written
// into the output) and online_attention (one step of the running form:
// outputs O, running max and running sum, updated from their initial
// values; O stays unnormalized) to generics.
func (r *rewriter) extAttention(b *ir.Builder, op *ir.Operation, nIn, nOut int) error {
	online := op.Name == "iree_linalg_ext.online_attention"
	maps, ok := op.Attr("indexing_maps").(*ir.ArrayAttr)
	wantOut := map[bool]int{false: 1, true: 3}[online]
	if !ok || (nIn != 4 && nIn != 5) || nOut != wantOut || len(maps.Elems) != nIn+nOut || len(op.Results) != nOut {
		return ir.OpErrorf(op, "needs Q, K, V, scale, an optional mask, %d outputs and their indexing_maps", wantOut)
	}
	var ms []*ir.AffineMap
	for _, e := range maps.Elems {
		m, ok := e.(*ir.AffineMapAttr)
		if !ok {
			return ir.OpErrorf(op, "needs affine maps in indexing_maps")
		}
		for _, x := range m.Map.Results {
			if _, ok := x.(*ir.AffineDimExpr); !ok {
				return ir.OpErrorf(op, "needs indexing maps that are projections")
			}
		}
		ms = append(ms, m.Map)
	}
	a := &attention{r: r, op: op, b: b, q: op.Operands[0], k: op.Operands[1], v: op.Operands[2], scale: op.Operands[3],
		qm: ms[0], km: ms[1], vm: ms[2], om: ms[nIn], online: online, f32: ir.F32,
		size: map[int]*ir.Value{}, static: map[int]int64{}}
	if nIn == 5 {
		a.mask, a.mm = op.Operands[4], ms[4]
	}
	if err := a.classify(); err != nil {
		return err
	}
	a.negInf = b.Constant(ir.FloatAttrOf(math.Inf(-1), ir.F32))
	a.zero32 = b.Constant(ir.FloatAttrOf(0, ir.F32))
	s, err := a.scores()
	if err != nil {
		return err
	}
	if online {
		for _, m := range ms[nIn+1:] {
			if attnOver(a.rowDims, a.rowDims).String() != attnRemap(m, a.rowDims).String() || len(m.Results) != len(a.rowDims) {
				return ir.OpErrorf(op, "needs max and sum maps over the row dimensions in order")
			}
		}
		a.initO, a.initM, a.l = op.Operands[nIn], op.Operands[nIn+1], op.Operands[nIn+2]
		return a.finishOnline(s)
	}
	return a.finish(s, op.Operands[nIn])
}

func attnDims(m *ir.AffineMap) map[int]bool {
	out := map[int]bool{}
	for _, e := range m.Results {
		out[e.(*ir.AffineDimExpr).Pos] = true
	}
	return out
}

func attnSorted(s map[int]bool) []int {
	var out []int
	for d := range s {
		out = append(out, d)
	}
	sort.Ints(out)
	return out
}

// classify finds k1, k2, the score and row dims, and every loop's size.
func (a *attention) classify() error {
	inQ, inK, inV, inO := attnDims(a.qm), attnDims(a.km), attnDims(a.vm), attnDims(a.om)
	a.k1, a.k2 = map[int]bool{}, map[int]bool{}
	s := map[int]bool{}
	for d := 0; d < a.qm.NumDims; d++ {
		switch {
		case inQ[d] && inK[d] && !inO[d]:
			a.k1[d] = true
		case inK[d] && inV[d] && !inO[d]:
			a.k2[d] = true
			s[d] = true
		case inQ[d] || inK[d]:
			s[d] = true
		}
	}
	if len(a.k1) == 0 || len(a.k2) == 0 {
		return ir.OpErrorf(a.op, "has indexing maps without a QKᵀ or a PV reduction dimension")
	}
	a.sDims = attnSorted(s)
	for _, d := range a.sDims {
		if !a.k2[d] {
			a.rowDims = append(a.rowDims, d)
		}
	}
	for _, p := range []struct {
		v *ir.Value
		m *ir.AffineMap
	}{{a.q, a.qm}, {a.k, a.km}, {a.v, a.vm}} {
		t, ok := p.v.Type.(*ir.RankedTensorType)
		if !ok || len(t.Dims) != len(p.m.Results) {
			return ir.OpErrorf(a.op, "has an operand whose rank does not match its indexing map")
		}
		for i, e := range p.m.Results {
			d := e.(*ir.AffineDimExpr).Pos
			if _, ok := a.size[d]; ok {
				continue
			}
			a.static[d] = t.Dims[i]
			if t.Dims[i] >= 0 {
				a.size[d] = nil
			} else {
				a.size[d] = linalg.Dim(a.b, p.v, i)
			}
		}
	}
	for d := 0; d < a.qm.NumDims; d++ {
		if _, ok := a.size[d]; !ok {
			return ir.OpErrorf(a.op, "has loop d%d that Q, K and V do not index", d)
		}
	}
	return nil
}

// attnRemap rewrites m (over the op's loops) over the loops ls.
func attnRemap(m *ir.AffineMap, ls []int) *ir.AffineMap {
	out := &ir.AffineMap{NumDims: len(ls)}
	for _, e := range m.Results {
		out.Results = append(out.Results, &ir.AffineDimExpr{Pos: attnIndex(ls, e.(*ir.AffineDimExpr).Pos)})
	}
	return out
}

func attnIndex(ls []int, d int) int {
	for i, x := range ls {
		if x == d {
			return i
		}
	}
	return -1
}

// attnOver is the map of a tensor laid out over dims (in order), as a map
// over the loops ls.
func attnOver(dims, ls []int) *ir.AffineMap {
	m := &ir.AffineMap{NumDims: len(ls)}
	for _, d := range dims {
		m.Results = append(m.Results, &ir.AffineDimExpr{Pos: attnIndex(ls, d)})
	}
	return m
}

// filled returns an f32 tensor over dims filled with v.
func (a *attention) filled(dims []int, v *ir.Value) *ir.Value {
	var shape []int64
	var dyn []*ir.Value
	for _, d := range dims {
		shape = append(shape, a.static[d])
		if a.static[d] < 0 {
			dyn = append(dyn, a.size[d])
		}
	}
	t := ir.Tensor(shape, a.f32)
	e := a.b.Create("tensor.empty", dyn, []ir.Type{t}).Result(0)
	n := len(dims)
	return linalg.BuildGeneric(a.b, []*ir.Value{v}, []*ir.Value{e}, []*ir.AffineMap{{NumDims: n}, linalg.Identity(n)}, core.Parallel(n), core.YieldArg(0, t)).Result(0)
}

func (a *attention) iterators(ls []int, red map[int]bool) []linalg.Iterator {
	its := make([]linalg.Iterator, len(ls))
	for i, d := range ls {
		if red[d] {
			its[i] = linalg.Reduction
		}
	}
	return its
}

func attnF32(bb *ir.Builder, v *ir.Value) *ir.Value {
	if ir.TypesEqual(v.Type, ir.F32) {
		return v
	}
	return core.ConvertScalar(bb, v, ir.F32)
}

// scores computes S = scale·log2(e)·QKᵀ over the score dims (base-2
// scores, as IREE's decomposition uses exp2), then applies the op's score
// region and the mask (false → -inf; a float mask adds, times log2(e)).
func (a *attention) scores() (*ir.Value, error) {
	b := a.b
	all := map[int]bool{}
	for _, d := range a.sDims {
		all[d] = true
	}
	for d := range a.k1 {
		all[d] = true
	}
	ls := attnSorted(all)
	acc := a.filled(a.sDims, a.zero32)
	qk := linalg.BuildGeneric(b, []*ir.Value{a.q, a.k}, []*ir.Value{acc},
		[]*ir.AffineMap{attnRemap(a.qm, ls), attnRemap(a.km, ls), attnOver(a.sDims, ls)}, a.iterators(ls, a.k1),
		func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
			p := bb.Create("arith.mulf", []*ir.Value{attnF32(bb, args[0]), attnF32(bb, args[1])}, []ir.Type{ir.F32}).Result(0)
			return []*ir.Value{bb.Create("arith.addf", []*ir.Value{args[2], p}, []ir.Type{ir.F32}).Result(0)}
		}).Result(0)
	ins := []*ir.Value{qk}
	n := len(a.sDims)
	maps := []*ir.AffineMap{linalg.Identity(n)}
	if a.mask != nil {
		ins = append(ins, a.mask)
		maps = append(maps, attnRemap(a.mm, a.sDims))
	}
	maps = append(maps, linalg.Identity(n))
	var err error
	out := linalg.BuildGeneric(b, ins, []*ir.Value{a.filled(a.sDims, a.zero32)}, maps, core.Parallel(n), func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		log2e := bb.Constant(ir.FloatAttrOf(math.Log2E, ir.F32))
		scale := bb.Create("arith.mulf", []*ir.Value{attnF32(bb, a.scale), log2e}, []ir.Type{ir.F32}).Result(0)
		s := bb.Create("arith.mulf", []*ir.Value{args[0], scale}, []ir.Type{ir.F32}).Result(0)
		if blk := linalg.ExtBody(a.op); blk != nil {
			if len(blk.Args) != 1 {
				err = ir.OpErrorf(a.op, "has a score region with %d arguments; gree supports one", len(blk.Args))
				return []*ir.Value{s}
			}
			arg := s
			if !ir.TypesEqual(blk.Args[0].Type, ir.F32) {
				arg = core.ConvertScalar(bb, s, blk.Args[0].Type)
			}
			ys, e := mapIndexRegion(bb, a.op, []*ir.Value{arg})
			if e != nil || len(ys) != 1 {
				if e == nil {
					e = ir.OpErrorf(a.op, "must yield one score")
				}
				err = e
				return []*ir.Value{s}
			}
			s = attnF32(bb, ys[0])
		}
		if a.mask != nil {
			if core.IsBool(args[1].Type) {
				s = bb.Create("arith.select", []*ir.Value{args[1], s, a.negInf}, []ir.Type{ir.F32}).Result(0)
			} else {
				m := bb.Create("arith.mulf", []*ir.Value{attnF32(bb, args[1]), log2e}, []ir.Type{ir.F32}).Result(0)
				s = bb.Create("arith.addf", []*ir.Value{s, m}, []ir.Type{ir.F32}).Result(0)
			}
		}
		return []*ir.Value{s}
	}).Result(0)
	return out, err
}

// rowMax returns max(init, max over k2 of s) over the row dims.
func (a *attention) rowMax(s, init *ir.Value) *ir.Value {
	return linalg.BuildGeneric(a.b, []*ir.Value{s}, []*ir.Value{init},
		[]*ir.AffineMap{linalg.Identity(len(a.sDims)), attnOver(a.rowDims, a.sDims)}, a.iterators(a.sDims, a.k2),
		func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
			return []*ir.Value{bb.Create("arith.maximumf", []*ir.Value{args[1], args[0]}, []ir.Type{ir.F32}).Result(0)}
		}).Result(0)
}

// expSum returns init + Σ_k2 exp2(s - m) over the row dims.
func (a *attention) expSum(s, m, init *ir.Value) *ir.Value {
	n := len(a.sDims)
	return linalg.BuildGeneric(a.b, []*ir.Value{s, m}, []*ir.Value{init},
		[]*ir.AffineMap{linalg.Identity(n), attnOver(a.rowDims, a.sDims), attnOver(a.rowDims, a.sDims)}, a.iterators(a.sDims, a.k2),
		func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
			return []*ir.Value{bb.Create("arith.addf", []*ir.Value{args[2], attnExpDiff(bb, args[0], args[1])}, []ir.Type{ir.F32}).Result(0)}
		}).Result(0)
}

// attnExpDiff is exp2(x - m), 0 where x is -inf (a fully masked row keeps
// m = -inf and must not produce NaN).
func attnExpDiff(bb *ir.Builder, x, m *ir.Value) *ir.Value {
	d := bb.Create("arith.subf", []*ir.Value{x, m}, []ir.Type{ir.F32}).Result(0)
	e := bb.Create("math.exp2", []*ir.Value{d}, []ir.Type{ir.F32}).Result(0)
	ninf := bb.Constant(ir.FloatAttrOf(math.Inf(-1), ir.F32))
	isNinf := core.Cmp(bb, "arith.cmpf", 1, x, ninf)
	return bb.Create("arith.select", []*ir.Value{isNinf, bb.Constant(ir.FloatAttrOf(0, ir.F32)), e}, []ir.Type{ir.F32}).Result(0)
}

// pv returns init + Σ_k2 exp2(s - m)·v laid out as the output (map om).
func (a *attention) pv(s, m, init *ir.Value) *ir.Value {
	all := map[int]bool{}
	for _, d := range a.sDims {
		all[d] = true
	}
	for d := range attnDims(a.vm) {
		all[d] = true
	}
	ls := attnSorted(all)
	return linalg.BuildGeneric(a.b, []*ir.Value{s, m, a.v}, []*ir.Value{init},
		[]*ir.AffineMap{attnOver(a.sDims, ls), attnOver(a.rowDims, ls), attnRemap(a.vm, ls), attnRemap(a.om, ls)}, a.iterators(ls, a.k2),
		func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
			p := bb.Create("arith.mulf", []*ir.Value{attnExpDiff(bb, args[0], args[1]), attnF32(bb, args[2])}, []ir.Type{ir.F32}).Result(0)
			return []*ir.Value{bb.Create("arith.addf", []*ir.Value{args[3], p}, []ir.Type{ir.F32}).Result(0)}
		}).Result(0)
}

// outDims are the loops of the output, in its layout order.
func (a *attention) outDims() []int {
	var ds []int
	for _, e := range a.om.Results {
		ds = append(ds, e.(*ir.AffineDimExpr).Pos)
	}
	return ds
}

// finish computes softmax(S)·V into out.
func (a *attention) finish(s, out *ir.Value) error {
	b := a.b
	m := a.rowMax(s, a.filled(a.rowDims, a.negInf))
	l := a.expSum(s, m, a.filled(a.rowDims, a.zero32))
	acc := a.pv(s, m, a.filled(a.outDims(), a.zero32))
	od := a.outDims()
	ls := attnSorted(attnDims(a.om))
	elem := ir.ElementTypeOf(out.Type)
	g := linalg.BuildGeneric(b, []*ir.Value{acc, l}, []*ir.Value{out},
		[]*ir.AffineMap{attnOver(od, ls), attnOver(a.rowDims, ls), attnOver(od, ls)}, core.Parallel(len(ls)),
		func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
			y := bb.Create("arith.divf", []*ir.Value{args[0], args[1]}, []ir.Type{ir.F32}).Result(0)
			return []*ir.Value{core.ConvertScalar(bb, y, elem)}
		})
	a.r.Replace(a.op, g.Results)
	return nil
}

// finishOnline updates (O, max, sum) from their initial values (the max
// in base-2 score units, as IREE keeps it): the new max m' = max(m,
// rowmax S), the correction c = exp2(m - m'), sum' = c·sum + Σ exp2(S -
// m'), O' = c·O + Σ exp2(S - m')·V.
func (a *attention) finishOnline(s *ir.Value) error {
	b := a.b
	for _, v := range []*ir.Value{a.initO, a.initM, a.l} {
		if !ir.TypesEqual(ir.ElementTypeOf(v.Type), ir.F32) {
			return ir.OpErrorf(a.op, "with outputs that are not f32 is not supported by gree")
		}
	}
	nr := len(a.rowDims)
	m2 := a.rowMax(s, a.initM)
	corr := linalg.BuildGeneric(b, []*ir.Value{a.initM, m2}, []*ir.Value{a.filled(a.rowDims, a.zero32)},
		[]*ir.AffineMap{linalg.Identity(nr), linalg.Identity(nr), linalg.Identity(nr)}, core.Parallel(nr),
		func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
			return []*ir.Value{attnExpDiff(bb, args[0], args[1])}
		}).Result(0)
	scaled := func(x *ir.Value, dims []int) *ir.Value {
		ls := attnSorted(func() map[int]bool {
			s := map[int]bool{}
			for _, d := range dims {
				s[d] = true
			}
			return s
		}())
		return linalg.BuildGeneric(b, []*ir.Value{x, corr}, []*ir.Value{a.filled(dims, a.zero32)},
			[]*ir.AffineMap{attnOver(dims, ls), attnOver(a.rowDims, ls), attnOver(dims, ls)}, core.Parallel(len(ls)),
			func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
				return []*ir.Value{bb.Create("arith.mulf", []*ir.Value{args[0], args[1]}, []ir.Type{ir.F32}).Result(0)}
			}).Result(0)
	}
	l2 := a.expSum(s, m2, scaled(a.l, a.rowDims))
	o2 := a.pv(s, m2, scaled(a.initO, a.outDims()))
	a.r.Replace(a.op, []*ir.Value{o2, m2, l2})
	return nil
}
