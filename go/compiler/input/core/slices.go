package core

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// Mixed is a static value or an SSA index value.
type Mixed struct {
	Static int64     // the value when Dyn is nil
	Dyn    *ir.Value // the SSA index value, or nil
}

const dynamicIndex = math.MinInt64

// mixedList combines a static array attribute with its dynamic operands.
func mixedList(op *ir.Operation, attr string, dyn []*ir.Value) ([]Mixed, bool) {
	st, ok := IntList(op, attr)
	if !ok {
		return nil, false
	}
	out := make([]Mixed, len(st))
	k := 0
	for i, s := range st {
		if s == dynamicIndex {
			if k >= len(dyn) {
				return nil, false
			}
			out[i] = Mixed{Dyn: dyn[k]}
			k++
		} else {
			out[i] = Mixed{Static: s}
		}
	}
	return out, k == len(dyn)
}

// segments splits op's operands by operandSegmentSizes.
func segments(op *ir.Operation) [][]*ir.Value {
	a, ok := op.Attr("operandSegmentSizes").(*ir.DenseArrayAttr)
	if !ok {
		return [][]*ir.Value{op.Operands}
	}
	var out [][]*ir.Value
	k := 0
	for _, n := range a.Ints {
		out = append(out, op.Operands[k:k+int(n)])
		k += int(n)
	}
	return out
}

// idx materializes a mixed value as an index in bb.
func idx(bb *ir.Builder, m Mixed) *ir.Value {
	if m.Dyn != nil {
		return m.Dyn
	}
	return bb.Constant(ir.IntAttr(m.Static, ir.Index))
}

// BinOp creates the binary op name on a and b, typed as a.
func BinOp(bb *ir.Builder, name string, a, b *ir.Value) *ir.Value {
	return bb.Create(name, []*ir.Value{a, b}, []ir.Type{a.Type}).Result(0)
}

// CmpI creates arith.cmpi with predicate pred (PredEQ, PredSLT, ...).
func CmpI(bb *ir.Builder, pred int64, a, b *ir.Value) *ir.Value {
	return bb.Create("arith.cmpi", []*ir.Value{a, b}, []ir.Type{ir.I1}, ir.Named("predicate", ir.IntAttr(pred, ir.I64))).Result(0)
}

// Predicates of arith.cmpi.
const (
	PredEQ  = 0
	PredSLT = 2
	PredSGE = 5
)

// dropMap matches the dims of a (possibly rank-reduced) slice type to the
// full sizes: res[j] is the slice dimension of full dimension j, or -1
// for a dropped unit dimension.
func dropMap(sizes []Mixed, t *ir.RankedTensorType) []int {
	res := make([]int, len(sizes))
	r := 0
	drop := len(sizes) - len(t.Dims)
	for j, s := range sizes {
		if drop > 0 && s.Dyn == nil && s.Static == 1 && (r >= len(t.Dims) || t.Dims[r] != 1 || len(sizes)-j > len(t.Dims)-r) {
			res[j] = -1
			drop--
			continue
		}
		res[j] = r
		r++
	}
	return res
}

// emptyOf creates a tensor.empty of type t whose dynamic dimensions come
// from sizes (through the drop map).
func emptyOf(b *ir.Builder, t *ir.RankedTensorType, sizes []Mixed, dm []int) *ir.Value {
	var dyn []*ir.Value
	for r, d := range t.Dims {
		if d >= 0 {
			continue
		}
		for j, x := range dm {
			if x == r {
				dyn = append(dyn, idx(b, sizes[j]))
			}
		}
	}
	return b.Create("tensor.empty", dyn, []ir.Type{t}).Result(0)
}

func (r *Rewriter) extractSlice(b *ir.Builder, op *ir.Operation) error {
	seg := segments(op)
	if len(seg) != 4 {
		return ir.OpErrorf(op, "has malformed operands")
	}
	src := seg[0][0]
	offs, ok1 := mixedList(op, "static_offsets", seg[1])
	sizes, ok2 := mixedList(op, "static_sizes", seg[2])
	strides, ok3 := mixedList(op, "static_strides", seg[3])
	if !ok1 || !ok2 || !ok3 {
		return ir.OpErrorf(op, "has malformed offsets, sizes or strides")
	}
	rt := op.Results[0].Type.(*ir.RankedTensorType)
	dm := dropMap(sizes, rt)
	n := len(rt.Dims)
	out := emptyOf(b, rt, sizes, dm)
	static := true
	for j := range offs {
		if offs[j].Dyn != nil || strides[j].Dyn != nil {
			static = false
		}
	}
	var g *ir.Operation
	if static {
		m := &ir.AffineMap{NumDims: n}
		for j := range offs {
			var e ir.AffineExpr = &ir.AffineConstantExpr{Value: offs[j].Static}
			if dm[j] >= 0 {
				term := ir.AffineBinary(ir.AffineMul, &ir.AffineDimExpr{Pos: dm[j]}, &ir.AffineConstantExpr{Value: strides[j].Static})
				e = ir.AffineBinary(ir.AffineAdd, term, e)
			}
			m.Results = append(m.Results, e)
		}
		g = linalg.BuildGeneric(b, []*ir.Value{src}, []*ir.Value{out}, []*ir.AffineMap{m, linalg.Identity(n)}, Parallel(n), YieldArg(0, rt))
	} else {
		g = linalg.BuildGeneric(b, nil, []*ir.Value{out}, []*ir.AffineMap{linalg.Identity(n)}, Parallel(n), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
			var ix []*ir.Value
			for j := range offs {
				v := idx(bb, offs[j])
				if dm[j] >= 0 {
					i := LoopIndex(bb, dm[j])
					v = BinOp(bb, "arith.addi", v, BinOp(bb, "arith.muli", i, idx(bb, strides[j])))
				}
				ix = append(ix, v)
			}
			return []*ir.Value{bb.Create("tensor.extract", append([]*ir.Value{src}, ix...), []ir.Type{rt.Elem}).Result(0)}
		})
	}
	r.Replace(op, g.Results)
	return nil
}

// LoopIndex creates linalg.index d.
func LoopIndex(bb *ir.Builder, d int) *ir.Value {
	return bb.Create("linalg.index", nil, []ir.Type{ir.Index}, ir.Named("dim", ir.IntAttr(int64(d), ir.I64))).Result(0)
}

// PlaceInto builds a generic over dest's shape that takes the element of
// src at (i - off) / stride where that lands inside src, and fill(i)
// elsewhere (fill reads dest or computes a padding value).
func PlaceInto(b *ir.Builder, dest, src *ir.Value, destIns []*ir.Value, offs, strides []Mixed, sizes []Mixed, fill func(bb *ir.Builder, args []*ir.Value, ix []*ir.Value) *ir.Value) *ir.Operation {
	dt := dest.Type.(*ir.RankedTensorType)
	st := src.Type.(*ir.RankedTensorType)
	n := len(dt.Dims)
	dm := dropMap(sizes, st)
	maps := []*ir.AffineMap{}
	for range destIns {
		maps = append(maps, linalg.Identity(n))
	}
	maps = append(maps, linalg.Identity(n))
	return linalg.BuildGeneric(b, destIns, []*ir.Value{dest}, maps, Parallel(n), func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		var inside *ir.Value
		var six []*ir.Value
		var ix []*ir.Value
		zero := bb.Constant(ir.IntAttr(0, ir.Index))
		one := bb.Constant(ir.IntAttr(1, ir.Index))
		for j := 0; j < n; j++ {
			i := LoopIndex(bb, j)
			ix = append(ix, i)
			rel := BinOp(bb, "arith.subi", i, idx(bb, offs[j]))
			cond := CmpI(bb, PredSGE, rel, zero)
			q := rel
			if !(strides[j].Dyn == nil && strides[j].Static == 1) {
				s := idx(bb, strides[j])
				q = BinOp(bb, "arith.divsi", rel, s)
				rem := BinOp(bb, "arith.remsi", rel, s)
				cond = BinOp(bb, "arith.andi", cond, CmpI(bb, PredEQ, rem, zero))
			}
			size := idx(bb, sizes[j])
			cond = BinOp(bb, "arith.andi", cond, CmpI(bb, PredSLT, q, size))
			if inside == nil {
				inside = cond
			} else {
				inside = BinOp(bb, "arith.andi", inside, cond)
			}
			if dm[j] >= 0 {
				// Clamp so the load stays in bounds where it is not used.
				c := bb.Create("arith.maxsi", []*ir.Value{q, zero}, []ir.Type{ir.Index}).Result(0)
				c = bb.Create("arith.minsi", []*ir.Value{c, BinOp(bb, "arith.subi", size, one)}, []ir.Type{ir.Index}).Result(0)
				c = bb.Create("arith.maxsi", []*ir.Value{c, zero}, []ir.Type{ir.Index}).Result(0)
				six = append(six, c)
			}
		}
		v := bb.Create("tensor.extract", append([]*ir.Value{src}, six...), []ir.Type{st.Elem}).Result(0)
		other := fill(bb, args, ix)
		if inside == nil {
			return []*ir.Value{v}
		}
		return []*ir.Value{bb.Create("arith.select", []*ir.Value{inside, v, other}, []ir.Type{st.Elem}).Result(0)}
	})
}

func (r *Rewriter) insertSlice(b *ir.Builder, op *ir.Operation) error {
	if _, ok := linalg.ContiguousInsert(op); ok {
		return nil // the host program writes the block in place of a copy
	}
	seg := segments(op)
	if len(seg) != 5 {
		return ir.OpErrorf(op, "has malformed operands")
	}
	src, dest := seg[0][0], seg[1][0]
	offs, ok1 := mixedList(op, "static_offsets", seg[2])
	sizes, ok2 := mixedList(op, "static_sizes", seg[3])
	strides, ok3 := mixedList(op, "static_strides", seg[4])
	if !ok1 || !ok2 || !ok3 {
		return ir.OpErrorf(op, "has malformed offsets, sizes or strides")
	}
	g := PlaceInto(b, linalg.EmptyLike(b, dest, ir.ElementTypeOf(dest.Type)), src, []*ir.Value{dest}, offs, strides, sizes,
		func(bb *ir.Builder, args []*ir.Value, _ []*ir.Value) *ir.Value { return args[0] })
	r.Replace(op, g.Results)
	return nil
}

// InsertSlice builds tensor.insert_slice of src (whole) into dest at offs
// with unit strides.
func InsertSlice(b *ir.Builder, src, dest *ir.Value, offs []Mixed) *ir.Value {
	st := src.Type.(*ir.RankedTensorType)
	var static []int64
	ops := []*ir.Value{src, dest}
	for _, m := range offs {
		if m.Dyn != nil {
			static = append(static, linalg.DynamicIndex)
			ops = append(ops, m.Dyn)
		} else {
			static = append(static, m.Static)
		}
	}
	ones := make([]int64, len(offs))
	for i := range ones {
		ones[i] = 1
	}
	seg := &ir.DenseArrayAttr{Elem: ir.I32, Ints: []int64{1, 1, int64(len(ops) - 2), 0, 0}}
	return b.Create(linalg.InsertSliceName, ops, []ir.Type{dest.Type},
		ir.Named("static_offsets", ir.I64Array(static...)), ir.Named("static_sizes", ir.I64Array(st.Dims...)),
		ir.Named("static_strides", ir.I64Array(ones...)), ir.Named("operandSegmentSizes", seg)).Result(0)
}
