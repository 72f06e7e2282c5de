package codegen

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
)

// scatterShape is the index arithmetic of one scatter, as IREE's scalar
// implementation defines it: updates are [batch…, slice…]; the slice
// covers the trailing dimensions of original; index i of a batch entry
// adds to (or sets) original dimension dimension_map[i].
type scatterShape struct {
	batchRank, sliceOffset int
	dimMap                 []int
	depthDim               bool // indices have a trailing index-depth dimension
}

func scatterShapeOf(op *ir.Operation) (scatterShape, error) {
	var s scatterShape
	n := len(op.Operands)
	if n != 3 && n != 4 {
		return s, ir.OpErrorf(op, "needs updates, indices, an optional mask and original")
	}
	ut, ok1 := op.Operands[0].Type.(*ir.RankedTensorType)
	it, ok2 := op.Operands[1].Type.(*ir.RankedTensorType)
	ot, ok3 := op.Operands[n-1].Type.(*ir.RankedTensorType)
	if !ok1 || !ok2 || !ok3 {
		return s, ir.OpErrorf(op, "needs ranked tensor operands")
	}
	dm, ok := op.Attr("dimension_map").(*ir.DenseArrayAttr)
	if !ok || len(dm.Ints) == 0 {
		return s, ir.OpErrorf(op, "needs a dimension_map")
	}
	ro, ru := len(ot.Dims), len(ut.Dims)
	for _, d := range dm.Ints {
		if d < 0 || int(d) >= ro {
			return s, ir.OpErrorf(op, "has dimension_map entry %d outside the original's rank %d", d, ro)
		}
		s.dimMap = append(s.dimMap, int(d))
	}
	if a, ok := op.Attr("batch_rank").(*ir.IntegerAttr); ok {
		s.batchRank = int(a.Value)
	} else {
		s.batchRank = ru - (ro - len(s.dimMap))
	}
	slice := ru - s.batchRank
	s.sliceOffset = ro - slice
	if s.batchRank < 0 || slice < 0 || s.sliceOffset < 0 {
		return s, ir.OpErrorf(op, "has updates of rank %d that do not fit original of rank %d", ru, ro)
	}
	switch len(it.Dims) {
	case s.batchRank + 1:
		s.depthDim = true
		if it.Dims[s.batchRank] >= 0 && it.Dims[s.batchRank] != int64(len(s.dimMap)) {
			return s, ir.OpErrorf(op, "has an index depth of %d but a dimension_map of %d entries", it.Dims[s.batchRank], len(s.dimMap))
		}
	case s.batchRank:
		if len(s.dimMap) != 1 {
			return s, ir.OpErrorf(op, "needs an index-depth dimension for a dimension_map of %d entries", len(s.dimMap))
		}
	default:
		return s, ir.OpErrorf(op, "has indices of rank %d for %d batch dimensions", len(it.Dims), s.batchRank)
	}
	if !ir.IsIntOrIndex(it.Elem) {
		return s, ir.OpErrorf(op, "needs integer indices")
	}
	return s, nil
}

// lowerScatter copies original to the result, then visits the updates
// in order (later updates see earlier ones, so repeated indices combine
// in order): each update element whose target lies inside the result is
// combined with the region and stored. Targets outside the result are
// skipped. When a result dimension is covered whole by the update window
// and no index moves it (rows of an embedding table, say), workgroups
// split that dimension: each copies and updates its own range of it, so
// no two touch the same element; otherwise one workgroup does it all.
func (g *gen) lowerScatter(op *ir.Operation, result *ir.Value) error {
	sh, err := scatterShapeOf(op)
	if err != nil {
		return err
	}
	n := len(op.Operands)
	upd, idx, orig := op.Operands[0], op.Operands[1], op.Operands[n-1]
	bu, err := g.bind(upd, kir.Read)
	if err != nil {
		return ir.OpErrorf(op, "%v", err)
	}
	bi, err := g.bind(idx, kir.Read)
	if err != nil {
		return ir.OpErrorf(op, "%v", err)
	}
	bo, err := g.bind(orig, kir.Read)
	if err != nil {
		return ir.OpErrorf(op, "%v", err)
	}
	br, err := g.bind(result, kir.ReadWrite)
	if err != nil {
		return ir.OpErrorf(op, "%v", err)
	}
	bm := -1
	if n == 4 {
		if bm, err = g.bind(op.Operands[2], kir.Read); err != nil {
			return ir.OpErrorf(op, "%v", err)
		}
	}
	idxElem := g.k.Bindings[bi].Elem
	rdims, rstrides := g.dims[result], g.strides[result]
	ulo := make([]kir.Value, len(g.dims[upd]))
	for i := range ulo {
		ulo[i] = g.idx(0)
	}
	uhi := append([]kir.Value{}, g.dims[upd]...)
	if part, ud, size := scatterSplit(op, sh, result); part >= 0 {
		chunk := (size + scatterWorkgroups - 1) / scatterWorkgroups
		g.k.Grid[0] = kir.GridDim{Static: size, Tile: chunk}
		lo := g.b.Bin(kir.Mul, g.b.Query(kir.WorkgroupID, 0), g.idx(chunk))
		hi := g.b.Bin(kir.MinS, g.b.Bin(kir.Add, lo, g.idx(chunk)), g.idx(size))
		rlo := make([]kir.Value, len(rdims))
		for i := range rlo {
			rlo[i] = g.idx(0)
		}
		rhi := append([]kir.Value{}, rdims...)
		rlo[part], rhi[part] = lo, hi
		ulo[ud], uhi[ud] = lo, hi
		g.nestRange(g.b, rlo, rhi, func(b *kir.Builder, ivs []kir.Value) error {
			off := g.offset(b, ivs, rstrides)
			b.Store(br, off, b.Load(bo, kir.S(g.k.Bindings[bo].Elem), off))
			return nil
		})
	} else {
		g.copyAll(bo, br, rdims)
	}
	return g.nestRange(g.b, ulo, uhi, func(b *kir.Builder, ivs []kir.Value) error {
		starts := make([]kir.Value, len(rdims))
		for i := range starts {
			starts[i] = -1
		}
		for j, iv := range ivs[sh.batchRank:] {
			starts[sh.sliceOffset+j] = iv
		}
		batch := ivs[:sh.batchRank]
		ibase := g.offset(b, batch, g.strides[idx][:sh.batchRank])
		for i, d := range sh.dimMap {
			off := ibase
			if sh.depthDim {
				off = b.Bin(kir.Add, ibase, b.Bin(kir.Mul, g.idx(int64(i)), g.strides[idx][sh.batchRank]))
			}
			v := b.Load(bi, kir.S(idxElem), off)
			if idxElem != kir.I64 {
				v = b.Emit(kir.ExtS, kir.S(kir.I64), v)
			}
			if starts[d] >= 0 {
				v = b.Bin(kir.Add, v, starts[d])
			}
			starts[d] = v
		}
		var inside kir.Value = -1
		for d, s := range starts {
			if s < 0 {
				starts[d] = g.idx(0)
				continue
			}
			// Unsigned s < dim also rejects negative indices.
			ok := b.Cmp(kir.CmpI, kir.PredULT, s, rdims[d])
			if inside < 0 {
				inside = ok
			} else {
				inside = b.Bin(kir.And, inside, ok)
			}
		}
		if bm >= 0 {
			mv := b.Load(bm, kir.S(g.k.Bindings[bm].Elem), g.offset(b, batch, g.strides[op.Operands[2]][:sh.batchRank]))
			on := b.Cmp(kir.CmpI, kir.PredNE, mv, b.Int(kir.S(g.k.Bindings[bm].Elem), 0))
			if inside < 0 {
				inside = on
			} else {
				inside = b.Bin(kir.And, inside, on)
			}
		}
		update := func(b *kir.Builder) error {
			off := g.offset(b, starts, rstrides)
			_, u := g.loadElem(b, upd, bu, g.offset(b, ivs, g.strides[upd]))
			_, o := g.loadElem(b, result, br, off)
			ys, err := g.regionBody(b, op, []kir.Value{u, o})
			if err != nil {
				return err
			}
			if len(ys) != 1 {
				return ir.OpErrorf(op, "must yield one value")
			}
			g.storeElem(b, result, br, off, ys[0])
			return nil
		}
		if inside < 0 {
			return update(b)
		}
		var err error
		b.If(inside, nil, func(b *kir.Builder) []kir.Value {
			err = update(b)
			return nil
		}, nil)
		return err
	})
}

// scatterWorkgroups is the most workgroups a split scatter uses.
const scatterWorkgroups = 8

// scatterSplit finds a result dimension that the scatter's workgroups can
// split: static, longer than 1, covered whole by the update window and
// moved by no index. It returns that dimension, the matching update
// dimension and its size, or -1.
func scatterSplit(op *ir.Operation, sh scatterShape, result *ir.Value) (int, int, int64) {
	rt := result.Type.(*ir.RankedTensorType)
	ut := op.Operands[0].Type.(*ir.RankedTensorType)
	for d := sh.sliceOffset; d < len(rt.Dims); d++ {
		moved := false
		for _, m := range sh.dimMap {
			moved = moved || m == d
		}
		ud := sh.batchRank + d - sh.sliceOffset
		if !moved && rt.Dims[d] > 1 && ut.Dims[ud] == rt.Dims[d] {
			return d, ud, rt.Dims[d]
		}
	}
	return -1, -1, 0
}
