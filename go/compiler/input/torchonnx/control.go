package torchonnx

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// ONNX control flow and quantization.

func init() {
	onnxReg(onnxIf, "If")
	onnxReg(onnxLoop, "Loop")
	onnxReg(onnxQuantize, "QuantizeLinear")
	onnxReg(onnxDequantize, "DequantizeLinear")
}

// onnxIf becomes scf.if on the scalar condition; the branch regions move
// into it (their ops are converted after it, their terminators become
// scf.yield).
func onnxIf(o *onnxOp) ([]*ir.Value, error) {
	if len(o.op.Regions) != 2 {
		return nil, o.errorf("needs then and else branches")
	}
	cond := o.in(0)
	ct := tt(cond)
	if ct == nil || !core.IsBool(ct.Elem) {
		return nil, o.errorf("needs a boolean condition")
	}
	var ix []*ir.Value
	for range ct.Dims {
		ix = append(ix, o.b.Constant(ir.IntAttr(0, ir.Index)))
	}
	c := o.b.Create("tensor.extract", append([]*ir.Value{cond}, ix...), []ir.Type{ir.I1}).Result(0)
	var rts []ir.Type
	for i, t := range o.rts {
		if t == nil {
			return nil, o.errorf("result %d is not a tensor", i)
		}
		rts = append(rts, t)
	}
	ifOp := o.b.CreateWithRegions("scf.if", []*ir.Value{c}, rts, 2)
	// The importer orders regions by attribute name: else_branch first.
	for i, r := range o.op.Regions {
		for _, blk := range r.Blocks {
			ifOp.Regions[1-i].AddBlock(blk)
		}
		r.Blocks = nil
	}
	return ifOp.Results, nil
}

// quantAxisMap reads a per-axis (1-D) or per-tensor (0-D or one element)
// parameter inside loops over rank n.
func quantAxisMap(o *onnxOp, p *ir.Value, n int) (*ir.AffineMap, error) {
	m := &ir.AffineMap{NumDims: n}
	pt := tt(p)
	if len(pt.Dims) == 0 {
		return m, nil
	}
	if pt.Dims[0] == 1 && len(pt.Dims) == 1 {
		m.Results = []ir.AffineExpr{cstExpr(0)}
		return m, nil
	}
	ax, err := o.normAxis(o.attrInt("axis", 1), n)
	if err != nil {
		return nil, err
	}
	if len(pt.Dims) == 1 {
		m.Results = []ir.AffineExpr{dimExpr(ax)}
		return m, nil
	}
	// Blocked: the parameter has the input's rank; block_size consecutive
	// elements along the axis share one entry.
	bs := o.attrInt("block_size", 0)
	if len(pt.Dims) != n || bs <= 0 {
		return nil, o.errorf("has a %d-D scale or zero point without a block_size", len(pt.Dims))
	}
	for i := 0; i < n; i++ {
		if i == ax {
			m.Results = append(m.Results, ir.AffineBinary(ir.AffineFloorDiv, dimExpr(i), cstExpr(bs)))
		} else {
			m.Results = append(m.Results, dimExpr(i))
		}
	}
	return m, nil
}

// onnxQuantize: y = saturate(roundeven(x / scale) + zero_point).
func onnxQuantize(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, scale, zp, rt := o.in(0), o.in(1), o.in(2), o.rts[0]
	n := len(rt.Dims)
	toFloat := ir.IsFloat(rt.Elem)
	// f4E2M1FN has no infinity or NaN: it always saturates (at 6).
	limit := map[string]float64{"f8E4M3FN": 448, "f8E4M3FNUZ": 240, "f8E5M2": 57344, "f8E5M2FNUZ": 57344, "f4E2M1FN": 6}[rt.Elem.String()]
	if toFloat && limit == 0 {
		return nil, o.errorf("to %s is not supported by gree yet", rt.Elem)
	}
	saturate := o.attrInt("saturate", 1) != 0 || limit == 6
	sm, err := quantAxisMap(o, scale, n)
	if err != nil {
		return nil, err
	}
	ins, maps := []*ir.Value{x, scale}, []*ir.AffineMap{linalg.Identity(n), sm}
	if zp != nil {
		zm, err := quantAxisMap(o, zp, n)
		if err != nil {
			return nil, err
		}
		ins, maps = append(ins, zp), append(maps, zm)
	}
	uns := o.runs[0]
	w := core.Width(rt.Elem)
	var lo, hi float64
	if !toFloat {
		lo, hi = float64(minInt(rt.Elem)), float64(maxInt(rt.Elem))
		if uns {
			lo, hi = 0, math.Ldexp(1, w)-1
		}
	}
	y := mapGenericMaps(o.b, ins, maps, rt, func(s sc, a []*ir.Value) *ir.Value {
		f := sc{s.b, ir.F32}
		xv := castScalar(s.b, a[0], ir.F32, false, false)
		sv := castScalar(s.b, a[1], ir.F32, false, false)
		if toFloat {
			// 8-bit float results: x / scale + zero point, saturated
			// unless saturate = 0.
			q := f.op("arith.divf", xv, sv)
			if zp != nil {
				q = f.add(q, castScalar(s.b, a[2], ir.F32, false, false))
			}
			if saturate {
				q = f.op("arith.minimumf", f.op("arith.maximumf", q, f.c(-limit)), f.c(limit))
			}
			return castScalar(s.b, q, rt.Elem, false, false)
		}
		q := f.op("math.roundeven", f.op("arith.divf", xv, sv))
		if zp != nil {
			q = f.add(q, castScalar(s.b, a[2], ir.F32, uns, false))
		}
		q = f.min(f.max(q, f.c(lo), false), f.c(hi), false)
		return castScalar(s.b, q, rt.Elem, false, uns)
	})
	return []*ir.Value{y}, nil
}

// onnxDequantize: y = (x - zero_point) * scale.
func onnxDequantize(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, scale, zp, rt := o.in(0), o.in(1), o.in(2), o.rts[0]
	n := len(rt.Dims)
	sm, err := quantAxisMap(o, scale, n)
	if err != nil {
		return nil, err
	}
	ins, maps := []*ir.Value{x, scale}, []*ir.AffineMap{linalg.Identity(n), sm}
	if zp != nil {
		zm, err := quantAxisMap(o, zp, n)
		if err != nil {
			return nil, err
		}
		ins, maps = append(ins, zp), append(maps, zm)
	}
	uns := o.isUnsigned(x)
	y := mapGenericMaps(o.b, ins, maps, rt, func(s sc, a []*ir.Value) *ir.Value {
		f := sc{s.b, ir.F32}
		v := castScalar(s.b, a[0], ir.F32, uns, false)
		if zp != nil {
			v = f.sub(v, castScalar(s.b, a[2], ir.F32, uns, false))
		}
		v = f.mul(v, castScalar(s.b, a[1], ir.F32, false, false))
		return castScalar(s.b, v, rt.Elem, false, false)
	})
	return []*ir.Value{y}, nil
}

// onnxLoop becomes scf.while over (iteration i64, condition i1, loop
// values…, scan accumulators…). The body block moves into the loop; its
// iteration and condition arguments become 0-d tensors built from the
// scalars, and its terminator (converted last, see loopYield) inserts the
// scan outputs at the iteration and yields the next state. Scan outputs
// need a static shape (a known trip count).
func onnxLoop(o *onnxOp) ([]*ir.Value, error) {
	if len(o.op.Regions) != 1 || len(o.op.Regions[0].Blocks) != 1 {
		return nil, o.errorf("needs one single-block body")
	}
	body := o.op.Regions[0].Blocks[0]
	nv := len(o.ins) - 2
	if nv < 0 || len(body.Args) != nv+2 {
		return nil, o.errorf("has a body whose arguments do not match its inputs")
	}
	nscan := len(o.rts) - nv
	b := o.b
	i0 := b.Constant(ir.IntAttr(0, ir.I64))
	cond := b.Constant(ir.IntAttr(1, ir.I1))
	if c := o.in(1); c != nil {
		cond = scalarOf(b, c)
	}
	var maxIter *ir.Value
	if m := o.in(0); m != nil {
		maxIter = scalarOf(b, m)
	}
	inits := []*ir.Value{i0, cond}
	types := []ir.Type{ir.I64, ir.I1}
	for k := 0; k < nv; k++ {
		// The loop carries the initial value's type; a result type that
		// says otherwise (other than unknown dimensions or an unused
		// !torch.none result) means the shape changes across iterations.
		v := o.ins[2+k]
		if v == nil || tt(v) == nil || !ir.HasStaticShape(tt(v)) {
			return nil, o.errorf("loop value %d needs a static initial shape", k)
		}
		if r := o.rts[k]; r != nil && !compatibleShape(r, tt(v)) {
			return nil, o.errorf("loop value %d changes type or shape across iterations, which gree does not support", k)
		}
		inits = append(inits, v)
		types = append(types, v.Type)
	}
	for k := 0; k < nscan; k++ {
		t := o.rts[nv+k]
		if t == nil || !ir.HasStaticShape(t) {
			return nil, o.errorf("scan output %d needs a static shape (a known trip count)", k)
		}
		inits = append(inits, empty(b, t))
		types = append(types, t)
	}
	w := b.CreateWithRegions("scf.while", inits, types, 2)
	// Before: continue while cond (and i < M).
	before := ir.NewBlock(types...)
	w.Regions[0].AddBlock(before)
	bb := ir.AtEnd(before, o.op.Loc)
	go1 := before.Args[1]
	if maxIter != nil {
		go1 = core.BinOp(bb, "arith.andi", go1, core.Cmp(bb, "arith.cmpi", 2, before.Args[0], maxIter))
	}
	bb.Create("scf.condition", append([]*ir.Value{go1}, before.Args...), nil)
	// After: the ONNX body.
	after := ir.NewBlock(types...)
	w.Regions[1].AddBlock(after)
	ab := ir.AtEnd(after, o.op.Loc)
	iterT := ab.Create("tensor.from_elements", []*ir.Value{after.Args[0]}, []ir.Type{ir.Tensor(nil, ir.I64)}).Result(0)
	condT := ab.Create("tensor.from_elements", []*ir.Value{after.Args[1]}, []ir.Type{ir.Tensor(nil, ir.I1)}).Result(0)
	ir.ReplaceAllUsesWith(o.c.r.Fn, body.Args[0], iterT)
	ir.ReplaceAllUsesWith(o.c.r.Fn, body.Args[1], condT)
	for k := 0; k < nv; k++ {
		ir.ReplaceAllUsesWith(o.c.r.Fn, body.Args[2+k], after.Args[2+k])
	}
	moved := append([]*ir.Operation{}, body.Ops...)
	for _, op := range moved {
		body.Remove(op)
		after.Append(op)
	}
	o.op.Regions[0].Blocks = nil
	o.c.loops[after] = loopInfo{values: nv, cond: true}
	return w.Results[2:], nil
}

// loopInfo describes a Loop or Scan body moved into scf.while: its block
// arguments are (iteration, [condition,] values…, accumulators…).
type loopInfo struct {
	values int    // loop-carried values
	cond   bool   // Loop: a condition is carried and yielded first
	trip   int64  // Scan: the iteration count (rows of the outputs)
	revOut []bool // Scan: outputs filled from the last row
}

// loopYield converts the terminator of a Loop or Scan body (now in
// scf.while): ([cond,] values…, scan outputs…) → scf.yield(i+1, [cond,]
// values…, accumulators with the scan outputs inserted at their row).
func (c *onnxConv) loopYield(b *ir.Builder, op *ir.Operation, info loopInfo) error {
	blk := op.Block()
	nv := info.values
	lead := 1 // block arguments before the values
	if info.cond {
		lead = 2
	}
	opLead := lead - 1 // operands before the values
	ns := len(blk.Args) - lead - nv
	if len(op.Operands) != opLead+nv+ns || ns < 0 {
		return ir.OpErrorf(op, "does not match its loop's values and scan outputs")
	}
	i := blk.Args[0]
	next := core.BinOp(b, "arith.addi", i, b.Constant(ir.IntAttr(1, ir.I64)))
	out := []*ir.Value{next}
	if info.cond {
		out = append(out, scalarOf(b, op.Operands[0]))
	}
	for k := 0; k < nv; k++ {
		v := op.Operands[opLead+k]
		if !ir.TypesEqual(v.Type, blk.Args[lead+k].Type) {
			return ir.OpErrorf(op, "loop value %d changes type or shape (%s to %s), which gree does not support", k, blk.Args[lead+k].Type, v.Type)
		}
		out = append(out, v)
	}
	ii := b.Create("arith.index_cast", []*ir.Value{i}, []ir.Type{ir.Index}).Result(0)
	for k := 0; k < ns; k++ {
		acc := blk.Args[lead+nv+k]
		at := tt(acc)
		src := op.Operands[opLead+nv+k]
		st := tt(src)
		if st == nil || len(st.Dims) != len(at.Dims)-1 {
			return ir.OpErrorf(op, "scan output %d does not match its accumulator %s", k, at)
		}
		row := ii
		if k < len(info.revOut) && info.revOut[k] {
			row = core.BinOp(b, "arith.subi", b.Constant(ir.IntAttr(info.trip-1, ir.Index)), ii)
		}
		offs := []core.Mixed{{Dyn: row}}
		sizes := []core.Mixed{{Static: 1}}
		for _, d := range st.Dims {
			offs = append(offs, core.Mixed{Static: 0})
			sizes = append(sizes, core.Mixed{Static: d})
		}
		g := core.PlaceInto(b, empty(b, at), src, []*ir.Value{acc}, offs, core.Ones(len(offs)), sizes,
			func(bb *ir.Builder, args []*ir.Value, _ []*ir.Value) *ir.Value { return args[0] })
		out = append(out, g.Result(0))
	}
	b.Create("scf.yield", out, nil)
	op.Erase()
	return nil
}

// scalarOf extracts the element of a 0-d or one-element tensor.
func scalarOf(b *ir.Builder, v *ir.Value) *ir.Value {
	t := tt(v)
	var ix []*ir.Value
	for range t.Dims {
		ix = append(ix, b.Constant(ir.IntAttr(0, ir.Index)))
	}
	return b.Create("tensor.extract", append([]*ir.Value{v}, ix...), []ir.Type{t.Elem}).Result(0)
}

func init() {
	onnxReg(onnxQLinear, "QLinearMatMul", "QLinearConv")
}

// onnxQLinear computes QLinearMatMul / QLinearConv as the integer
// MatMulInteger / ConvInteger accumulation (i32, zero points subtracted),
// plus the i32 bias for convolutions, requantized:
// y = saturate(roundeven(acc * a_scale * b_scale / y_scale) + y_zp).
// Per-row (A) / per-output-channel (weights) scales are supported.
func onnxQLinear(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	a, as, azp, b, bs, bzp, ys, yzp := o.in(0), o.in(1), o.in(2), o.in(3), o.in(4), o.in(5), o.in(6), o.in(7)
	rt := o.rts[0]
	n := len(rt.Dims)
	accT := ir.Tensor(rt.Dims, ir.I32)
	inner := *o
	inner.ins = []*ir.Value{a, b, azp, bzp}
	inner.rts = []*ir.RankedTensorType{accT}
	var acc []*ir.Value
	var err error
	// Scale maps: per tensor, or per row of A / column of B (matmul), per
	// output channel (conv weights).
	scalarOr := func(p *ir.Value, dim int) *ir.AffineMap {
		m := &ir.AffineMap{NumDims: n}
		pt := tt(p)
		if len(pt.Dims) == 1 && pt.Dims[0] > 1 {
			m.Results = []ir.AffineExpr{dimExpr(dim)}
		} else if len(pt.Dims) == 1 {
			m.Results = []ir.AffineExpr{cstExpr(0)}
		}
		return m
	}
	var am, bm *ir.AffineMap
	if o.kind == "QLinearMatMul" {
		inner.kind = "MatMulInteger"
		acc, err = onnxMatMul(&inner)
		am, bm = scalarOr(as, n-2), scalarOr(bs, n-1)
	} else {
		inner.kind = "ConvInteger"
		acc, err = onnxConvolution(&inner)
		am, bm = scalarOr(as, 1), scalarOr(bs, 1)
		if bias := o.in(8); bias != nil && err == nil {
			acc[0] = mapGenericMaps(o.b, []*ir.Value{acc[0], bias}, []*ir.AffineMap{linalg.Identity(n), {NumDims: n, Results: []ir.AffineExpr{dimExpr(1)}}}, accT, func(s sc, v []*ir.Value) *ir.Value {
				return s.add(v[0], v[1])
			})
		}
	}
	if err != nil {
		return nil, err
	}
	uns := o.runs[0]
	lo, hi := float64(minInt(rt.Elem)), float64(maxInt(rt.Elem))
	if uns {
		lo, hi = 0, math.Ldexp(1, core.Width(rt.Elem))-1
	}
	ins := []*ir.Value{acc[0], as, bs, ys}
	maps := []*ir.AffineMap{linalg.Identity(n), am, bm, scalarOr(ys, n-1)}
	if yzp != nil {
		ins, maps = append(ins, yzp), append(maps, scalarOr(yzp, n-1))
	}
	y := mapGenericMaps(o.b, ins, maps, rt, func(s sc, v []*ir.Value) *ir.Value {
		f := sc{s.b, ir.F32}
		x := castScalar(s.b, v[0], ir.F32, false, false)
		scale := f.op("arith.divf", f.mul(castScalar(s.b, v[1], ir.F32, false, false), castScalar(s.b, v[2], ir.F32, false, false)), castScalar(s.b, v[3], ir.F32, false, false))
		q := f.op("math.roundeven", f.mul(x, scale))
		if yzp != nil {
			q = f.add(q, castScalar(s.b, v[4], ir.F32, uns, false))
		}
		q = f.min(f.max(q, f.c(lo), false), f.c(hi), false)
		return castScalar(s.b, q, rt.Elem, false, uns)
	})
	return []*ir.Value{y}, nil
}

// compatibleShape reports whether t (possibly with dynamic dimensions)
// can be the static type s.
func compatibleShape(t, s *ir.RankedTensorType) bool {
	if len(t.Dims) != len(s.Dims) || !ir.TypesEqual(t.Elem, s.Elem) {
		return false
	}
	for i, d := range t.Dims {
		if d >= 0 && d != s.Dims[i] {
			return false
		}
	}
	return true
}
