package core

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// relayout reads linalg.pack / linalg.unpack: source, dest, padding value,
// tiles (mixed), inner_dims_pos and outer_dims_perm (identity when absent).
func relayout(op *ir.Operation) (src, dest, pad *ir.Value, tiles []Mixed, innerPos, outerPerm []int64, err error) {
	seg := segments(op)
	if len(seg) != 4 || len(seg[0]) != 1 || len(seg[1]) != 1 {
		return nil, nil, nil, nil, nil, nil, ir.OpErrorf(op, "has malformed operands")
	}
	src, dest = seg[0][0], seg[1][0]
	if len(seg[2]) == 1 {
		pad = seg[2][0]
	}
	var ok bool
	if tiles, ok = mixedList(op, "static_inner_tiles", seg[3]); !ok {
		return nil, nil, nil, nil, nil, nil, ir.OpErrorf(op, "has malformed inner tiles")
	}
	innerPos, _ = IntList(op, "inner_dims_pos")
	outerPerm, _ = IntList(op, "outer_dims_perm")
	if len(innerPos) != len(tiles) {
		return nil, nil, nil, nil, nil, nil, ir.OpErrorf(op, "has %d inner tiles for %d inner dims", len(tiles), len(innerPos))
	}
	return src, dest, pad, tiles, innerPos, outerPerm, nil
}

// outerPos returns, for each unpacked dimension d, its position among the
// packed outer dimensions.
func outerPos(rank int, perm []int64) []int {
	pos := make([]int, rank)
	for p := 0; p < rank; p++ {
		d := p
		if len(perm) == rank {
			d = int(perm[p])
		}
		pos[d] = p
	}
	return pos
}

// pack builds dest[outer…, inner…] = src[o*tile + i] (or the padding value
// out of bounds) as a gather over dest's shape.
func (r *Rewriter) pack(b *ir.Builder, op *ir.Operation) error {
	src, dest, pad, tiles, innerPos, perm, err := relayout(op)
	if err != nil {
		return err
	}
	st := src.Type.(*ir.RankedTensorType)
	n := len(st.Dims)
	dt := dest.Type.(*ir.RankedTensorType)
	pos := outerPos(n, perm)
	sizes := dimsOf(b, src)
	g := linalg.BuildGeneric(b, nil, []*ir.Value{dest}, []*ir.AffineMap{linalg.Identity(len(dt.Dims))}, Parallel(len(dt.Dims)), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
		zero := bb.Constant(ir.IntAttr(0, ir.Index))
		one := bb.Constant(ir.IntAttr(1, ir.Index))
		var ix []*ir.Value
		var inside *ir.Value
		for d := 0; d < n; d++ {
			i := LoopIndex(bb, pos[d])
			for t, p := range innerPos {
				if int(p) == d {
					i = BinOp(bb, "arith.addi", BinOp(bb, "arith.muli", i, idx(bb, tiles[t])), LoopIndex(bb, n+t))
				}
			}
			size := idx(bb, sizes[d])
			in := CmpI(bb, PredSLT, i, size)
			if inside == nil {
				inside = in
			} else {
				inside = BinOp(bb, "arith.andi", inside, in)
			}
			c := bb.Create("arith.minsi", []*ir.Value{i, BinOp(bb, "arith.subi", size, one)}, []ir.Type{ir.Index}).Result(0)
			ix = append(ix, bb.Create("arith.maxsi", []*ir.Value{c, zero}, []ir.Type{ir.Index}).Result(0))
		}
		v := bb.Create("tensor.extract", append([]*ir.Value{src}, ix...), []ir.Type{st.Elem}).Result(0)
		if pad == nil || inside == nil {
			return []*ir.Value{v}
		}
		return []*ir.Value{bb.Create("arith.select", []*ir.Value{inside, v, pad}, []ir.Type{st.Elem}).Result(0)}
	})
	r.Replace(op, g.Results)
	return nil
}

// unpack builds dest[d] = src[outer(d/tile)…, inner(d%tile)…] over dest's
// shape.
func (r *Rewriter) unpack(b *ir.Builder, op *ir.Operation) error {
	src, dest, _, tiles, innerPos, perm, err := relayout(op)
	if err != nil {
		return err
	}
	dt := dest.Type.(*ir.RankedTensorType)
	n := len(dt.Dims)
	st := src.Type.(*ir.RankedTensorType)
	pos := outerPos(n, perm)
	g := linalg.BuildGeneric(b, nil, []*ir.Value{dest}, []*ir.AffineMap{linalg.Identity(n)}, Parallel(n), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
		ix := make([]*ir.Value, len(st.Dims))
		for d := 0; d < n; d++ {
			i := LoopIndex(bb, d)
			outer := i
			for t, p := range innerPos {
				if int(p) == d {
					tile := idx(bb, tiles[t])
					outer = BinOp(bb, "arith.divsi", i, tile)
					ix[n+t] = BinOp(bb, "arith.remsi", i, tile)
				}
			}
			ix[pos[d]] = outer
		}
		return []*ir.Value{bb.Create("tensor.extract", append([]*ir.Value{src}, ix...), []ir.Type{st.Elem}).Result(0)}
	})
	r.Replace(op, g.Results)
	return nil
}
