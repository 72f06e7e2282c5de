package tosa

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// tosaQuant converts rescale and table; done is false for other ops.
func (r *rewriter) tosaQuant(b *ir.Builder, op *ir.Operation, name string, rt *ir.RankedTensorType) (bool, error) {
	switch name {
	case "rescale":
		return true, r.tosaRescale(b, op, rt)
	case "table":
		return true, r.tosaTable(b, op, rt)
	}
	return false, nil
}

// paramTensor returns a multiplier or shift as a 1-D tensor: the operand
// at index i (TOSA 1.0) or a constant made from the array attribute.
func paramTensor(b *ir.Builder, op *ir.Operation, attr string, i int, elem ir.Type) (*ir.Value, error) {
	if vals, ok := core.IntList(op, attr); ok && op.Attr(attr) != nil {
		t := ir.Tensor([]int64{int64(len(vals))}, elem)
		return b.Constant(&ir.DenseElementsAttr{Type: t, Ints: vals}), nil
	}
	if i < len(op.Operands) {
		if _, ok := op.Operands[i].Type.(*ir.RankedTensorType); ok {
			return op.Operands[i], nil
		}
	}
	return nil, ir.OpErrorf(op, "needs a '%s' attribute or operand", attr)
}

// tosaRescale implements the spec's RESCALE exactly, in 64-bit integers:
//
//	v   = x - input_zp                    (x zero-extended when unsigned)
//	r   = 1 << (shift-1), ± 1<<30 for double rounding when shift > 31
//	out = clip(((v·multiplier + r) >> shift) + output_zp)
//
// with one multiplier/shift per last-dimension channel when per_channel.
func (r *rewriter) tosaRescale(b *ir.Builder, op *ir.Operation, rt *ir.RankedTensorType) error {
	in := op.Operands[0]
	it := in.Type.(*ir.RankedTensorType)
	inElem, outElem := it.Elem, rt.Elem
	if ir.IsFloat(inElem) || ir.IsFloat(outElem) {
		return ir.OpErrorf(op, "rescales integers only (found %s to %s)", inElem, outElem)
	}
	mulElem := ir.Type(ir.I32)
	if _, ok := op.Attr("scale32").(*ir.BoolAttr); ok && !tosaBool(op, "scale32") {
		mulElem = ir.Int(16)
	}
	mult, err := paramTensor(b, op, "multiplier", 1, mulElem)
	if err != nil {
		return err
	}
	shift, err := paramTensor(b, op, "shift", 2, ir.I8)
	if err != nil {
		return err
	}
	izp, err := tosaZP(op, 3, "input_zp")
	if err != nil {
		return err
	}
	ozp, err := tosaZP(op, 4, "output_zp")
	if err != nil {
		return err
	}
	inU := tosaBool(op, "input_unsigned") || isUnsignedType(inElem)
	outU := tosaBool(op, "output_unsigned") || isUnsignedType(outElem)
	if inU && core.Width(inElem) < 64 {
		izp &= int64(1)<<core.Width(inElem) - 1
	}
	if outU && core.Width(outElem) < 64 {
		ozp &= int64(1)<<core.Width(outElem) - 1
	}
	double := tosaBool(op, "double_round") || tosaString(op, "rounding_mode") == "DOUBLE_ROUND"
	perChannel := tosaBool(op, "per_channel")
	n := len(rt.Dims)
	pm := &ir.AffineMap{NumDims: n, Results: []ir.AffineExpr{&ir.AffineConstantExpr{Value: 0}}}
	if perChannel {
		if n == 0 {
			return ir.OpErrorf(op, "is per-channel on a rank-0 tensor")
		}
		pm = linalg.DimMap(n, n-1)
	}
	for _, v := range []*ir.Value{mult, shift} {
		want := int64(1)
		if perChannel {
			want = rt.Dims[n-1]
		}
		if vt, ok := v.Type.(*ir.RankedTensorType); !ok || len(vt.Dims) != 1 || (vt.Dims[0] != want && want >= 0) {
			return ir.OpErrorf(op, "needs %d multipliers and shifts (per_channel = %v), found %s", want, perChannel, v.Type)
		}
	}
	lo, hi := intRange(outElem, outU)
	out := tosaEmpty(b, rt, []*ir.Value{in})
	// Constant scales are folded into the body: the tensors made from
	// attributes then have no use.
	defer r.dropUnusedConstants(mult, shift)
	if m, s, ok := uniformScale(mult, shift); ok && !perChannel {
		// Constant scale: the rounding term is folded.
		round := int64(0)
		if s > 0 {
			round = int64(1) << (s - 1)
		}
		adj := double && s > 31
		return r.tosaMapGeneric(b, op, []*ir.Value{in}, rt, func(bb *ir.Builder, a []*ir.Value) *ir.Value {
			i64 := ir.I64
			v := core.ExtendInt(bb, a[0], i64, inU)
			if izp != 0 {
				v = core.BinOp(bb, "arith.subi", v, core.IntConst(bb, izp, i64))
			}
			p := core.BinOp(bb, "arith.muli", v, core.IntConst(bb, m, i64))
			rv := core.IntConst(bb, round, i64)
			if adj {
				neg := core.Cmp(bb, "arith.cmpi", 2, v, core.IntConst(bb, 0, i64))
				rv = sel(bb, neg, core.IntConst(bb, round-(1<<30), i64), core.IntConst(bb, round+(1<<30), i64))
			}
			p = core.BinOp(bb, "arith.shrsi", core.BinOp(bb, "arith.addi", p, rv), core.IntConst(bb, s, i64))
			p = core.BinOp(bb, "arith.addi", p, core.IntConst(bb, ozp, i64))
			return core.CastTo(bb, "arith.trunci", clip(bb, p, lo, hi), outElem)
		})
	}
	if ms, ok1 := constInts(mult); ok1 {
		if ss, ok2 := constInts(shift); ok2 && len(ms) == len(ss) {
			return r.rescaleConstPerChannel(b, op, rt, in, ms, ss, izp, ozp, inU, double, pm, lo, hi)
		}
	}
	maps := []*ir.AffineMap{linalg.Identity(n), pm, pm, linalg.Identity(n)}
	g := linalg.BuildGeneric(b, []*ir.Value{in, mult, shift}, []*ir.Value{out}, maps, core.Parallel(n), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		i64 := ir.I64
		v := core.ExtendInt(bb, a[0], i64, inU)
		v = core.BinOp(bb, "arith.subi", v, core.IntConst(bb, izp, i64))
		m := core.ExtendInt(bb, a[1], i64, false)
		s := core.ExtendInt(bb, a[2], i64, false)
		v = applyScale(bb, v, m, s, double)
		v = core.BinOp(bb, "arith.addi", v, core.IntConst(bb, ozp, i64))
		return []*ir.Value{core.CastTo(bb, "arith.trunci", clip(bb, v, lo, hi), outElem)}
	})
	r.Replace(op, g.Results)
	return nil
}

// applyScale is the spec's apply_scale_32/apply_scale_16 on 64-bit
// values: (v·m + round) >> s, round = 1 << (s-1) (0 when s = 0), and with
// double rounding ±(1 << 30) more when s > 31.
func applyScale(bb *ir.Builder, v, m, s *ir.Value, double bool) *ir.Value {
	i64 := v.Type
	one := core.IntConst(bb, 1, i64)
	zero := core.IntConst(bb, 0, i64)
	sm1 := core.BinOp(bb, "arith.maxsi", core.BinOp(bb, "arith.subi", s, one), zero)
	round := core.BinOp(bb, "arith.shli", one, sm1)
	round = sel(bb, core.Cmp(bb, "arith.cmpi", 4, s, zero), round, zero)
	if double {
		big := core.Cmp(bb, "arith.cmpi", 4, s, core.IntConst(bb, 31, i64))
		neg := core.Cmp(bb, "arith.cmpi", 2, v, zero)
		adj := sel(bb, neg, core.IntConst(bb, -(1<<30), i64), core.IntConst(bb, 1<<30, i64))
		round = core.BinOp(bb, "arith.addi", round, sel(bb, big, adj, zero))
	}
	p := core.BinOp(bb, "arith.addi", core.BinOp(bb, "arith.muli", v, m), round)
	return core.BinOp(bb, "arith.shrsi", p, s)
}

// tosaTable: i8 inputs index a 256-entry table at x+128; i16 inputs
// interpolate a 513-entry table: base = t[(x+32768)>>7], the slope to the
// next entry times the low 7 bits, result (base << 7) + slope·frac in i32.
func (r *rewriter) tosaTable(b *ir.Builder, op *ir.Operation, rt *ir.RankedTensorType) error {
	if len(op.Operands) != 2 {
		return ir.OpErrorf(op, "expects an input and a table")
	}
	in, table := op.Operands[0], op.Operands[1]
	inElem := ir.ElementTypeOf(in.Type)
	tt, ok := table.Type.(*ir.RankedTensorType)
	if !ok || len(tt.Dims) != 1 {
		return ir.OpErrorf(op, "needs a 1-D table")
	}
	switch core.Width(inElem) {
	case 8:
		if tt.Dims[0] != 256 {
			return ir.OpErrorf(op, "needs a 256-entry table for i8 input (found %d)", tt.Dims[0])
		}
	case 16:
		if tt.Dims[0] != 513 {
			return ir.OpErrorf(op, "needs a 513-entry table for i16 input (found %d)", tt.Dims[0])
		}
	default:
		return ir.OpErrorf(op, "is defined for i8 and i16 inputs only (found %s)", inElem)
	}
	elem := rt.Elem
	return r.tosaMapGeneric(b, op, []*ir.Value{in}, rt, func(bb *ir.Builder, a []*ir.Value) *ir.Value {
		x := core.ExtendInt(bb, a[0], ir.I32, false)
		at := func(i *ir.Value) *ir.Value {
			ix := bb.Create("arith.index_cast", []*ir.Value{i}, []ir.Type{ir.Index}).Result(0)
			return bb.Create("tensor.extract", []*ir.Value{table, ix}, []ir.Type{tt.Elem}).Result(0)
		}
		if core.Width(inElem) == 8 {
			return core.ExtendInt(bb, at(core.BinOp(bb, "arith.addi", x, core.IntConst(bb, 128, ir.I32))), elem, false)
		}
		i := core.BinOp(bb, "arith.shrsi", core.BinOp(bb, "arith.addi", x, core.IntConst(bb, 32768, ir.I32)), core.IntConst(bb, 7, ir.I32))
		frac := core.BinOp(bb, "arith.andi", x, core.IntConst(bb, 127, ir.I32))
		base := core.ExtendInt(bb, at(i), ir.I32, false)
		next := core.ExtendInt(bb, at(core.BinOp(bb, "arith.addi", i, core.IntConst(bb, 1, ir.I32))), ir.I32, false)
		slope := core.BinOp(bb, "arith.subi", next, base)
		v := core.BinOp(bb, "arith.addi", core.BinOp(bb, "arith.shli", base, core.IntConst(bb, 7, ir.I32)), core.BinOp(bb, "arith.muli", slope, frac))
		return core.ExtendInt(bb, v, elem, false)
	})
}

// uniformScale returns the multiplier and shift when both are constants
// with one value each.
func uniformScale(mult, shift *ir.Value) (int64, int64, bool) {
	m, ok1 := constInts(mult)
	s, ok2 := constInts(shift)
	if !ok1 || !ok2 || len(m) != 1 || len(s) != 1 {
		return 0, 0, false
	}
	return m[0], s[0], true
}

// rescaleConstPerChannel is RESCALE with constant per-channel multipliers
// and shifts: the multiplier, the rounding term and the double-rounding
// adjustment are i64 constants indexed by channel.
func (r *rewriter) rescaleConstPerChannel(b *ir.Builder, op *ir.Operation, rt *ir.RankedTensorType, in *ir.Value, ms, ss []int64, izp, ozp int64, inU, double bool, pm *ir.AffineMap, lo, hi int64) error {
	nc := int64(len(ms))
	rounds, adjs := make([]int64, nc), make([]int64, nc)
	for c, s := range ss {
		if s > 0 {
			rounds[c] = int64(1) << (s - 1)
		}
		if double && s > 31 {
			adjs[c] = 1 << 30
		}
	}
	t := ir.Tensor([]int64{nc}, ir.I64)
	k := func(v []int64) *ir.Value { return b.Constant(&ir.DenseElementsAttr{Type: t, Ints: v}) }
	ins := []*ir.Value{in, k(ms), k(ss), k(rounds), k(adjs)}
	n := len(rt.Dims)
	maps := []*ir.AffineMap{linalg.Identity(n), pm, pm, pm, pm, linalg.Identity(n)}
	out := tosaEmpty(b, rt, []*ir.Value{in})
	g := linalg.BuildGeneric(b, ins, []*ir.Value{out}, maps, core.Parallel(n), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		i64 := ir.I64
		v := core.ExtendInt(bb, a[0], i64, inU)
		if izp != 0 {
			v = core.BinOp(bb, "arith.subi", v, core.IntConst(bb, izp, i64))
		}
		rv := a[3]
		if double {
			neg := core.Cmp(bb, "arith.cmpi", 2, v, core.IntConst(bb, 0, i64))
			rv = core.BinOp(bb, "arith.addi", rv, sel(bb, neg, core.BinOp(bb, "arith.subi", core.IntConst(bb, 0, i64), a[4]), a[4]))
		}
		p := core.BinOp(bb, "arith.addi", core.BinOp(bb, "arith.muli", v, a[1]), rv)
		p = core.BinOp(bb, "arith.addi", core.BinOp(bb, "arith.shrsi", p, a[2]), core.IntConst(bb, ozp, i64))
		return []*ir.Value{core.CastTo(bb, "arith.trunci", clip(bb, p, lo, hi), rt.Elem)}
	})
	r.Replace(op, g.Results)
	return nil
}

// dropUnusedConstants erases the constants defining vals (arith.constant
// ops, and the fills splat constants became) that nothing reads.
func (r *rewriter) dropUnusedConstants(vals ...*ir.Value) {
	for _, v := range vals {
		d := v.Owner()
		if d == nil || d.Block() == nil || r.Used(v) {
			continue
		}
		switch {
		case d.Name == "arith.constant":
			d.Erase()
		case d.Name == linalg.GenericName && splatFill(d, v) != nil:
			ins := append([]*ir.Value{}, d.Operands...)
			d.Erase()
			for _, in := range ins {
				if o := in.Owner(); o != nil && o.Block() != nil && (o.Name == "arith.constant" || o.Name == "tensor.empty") && !r.Used(in) {
					o.Erase()
				}
			}
		}
	}
}
