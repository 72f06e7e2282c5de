package stablehlo

import (
	"regexp"
	"strings"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
)

var (
	hloDirection   = regexp.MustCompile(`comparison_direction\s+([A-Z]+)`)
	hloCompareType = regexp.MustCompile(`comparison_type\s+([A-Z]+)`)
)

// hloScalarBody translates a StableHLO region body on rank-0 tensors
// (scatter's update computation, sort's comparator, select_and_scatter's
// select and scatter) to scalar arith/math ops at bb: block argument i
// becomes args[i]; it returns the values of the terminating
// stablehlo.return.
func hloScalarBody(bb *ir.Builder, blk *ir.Block, args []*ir.Value) ([]*ir.Value, error) {
	m := ir.Mapping{}
	for i, a := range blk.Args {
		m[a] = args[i]
	}
	for _, o := range blk.Ops {
		vals, err := hloBodyOperands(bb, blk, o, m)
		if err != nil {
			return nil, err
		}
		if o.Name == "stablehlo.return" || o.Name == "linalg.yield" || o.Name == "iree_linalg_ext.yield" {
			return vals, nil
		}
		if len(o.Results) != 1 {
			return nil, ir.OpErrorf(o, "in a scalar region is not supported by gree")
		}
		v, err := hloScalarOp(bb, o, vals)
		if err != nil {
			return nil, err
		}
		m[o.Results[0]] = v
	}
	return nil, ir.OpErrorf(blk.ParentOp(), "has a region without a terminator")
}

// hloScalarOp translates one op of a StableHLO region to scalar ops.
func hloScalarOp(bb *ir.Builder, o *ir.Operation, vals []*ir.Value) (*ir.Value, error) {
	elem := ir.ElementTypeOf(o.Results[0].Type)
	if o.Dialect() == "arith" || o.Dialect() == "math" {
		if o.Name == "arith.constant" {
			return hloScalarConst(bb, o)
		}
		if len(o.Regions) == 0 {
			return bb.Create(o.Name, vals, []ir.Type{elem}, o.Attrs...).Result(0), nil
		}
	}
	name := strings.TrimPrefix(o.Name, "stablehlo.")
	if !strings.HasPrefix(o.Name, "stablehlo.") {
		return nil, ir.OpErrorf(o, "in a scalar region is not supported by gree")
	}
	if ops, ok := hloElementwise[name]; ok {
		s := ops[core.ElemKind(ir.ElementTypeOf(o.Operands[0].Type))]
		if s == "" {
			return nil, ir.OpErrorf(o, "is not defined for elements of type %s", elem)
		}
		return bb.Create(s, vals, []ir.Type{elem}).Result(0), nil
	}
	switch name {
	case "constant":
		return hloScalarConst(bb, o)
	case "negate", "not", "sign", "logistic", "is_finite":
		return core.UnaryScalar(bb, name, vals[0], elem), nil
	case "select":
		return bb.Create("arith.select", vals, []ir.Type{elem}).Result(0), nil
	case "clamp":
		mx, mn := hloElementwise["maximum"][core.ElemKind(elem)], hloElementwise["minimum"][core.ElemKind(elem)]
		lo := bb.Create(mx, []*ir.Value{vals[1], vals[0]}, []ir.Type{elem}).Result(0)
		return bb.Create(mn, []*ir.Value{lo, vals[2]}, []ir.Type{elem}).Result(0), nil
	case "convert":
		return core.ConvertScalar(bb, vals[0], elem), nil
	case "bitcast_convert":
		return bb.Create("arith.bitcast", vals, []ir.Type{elem}).Result(0), nil
	case "compare":
		return hloCompareScalar(bb, o, vals[0], vals[1])
	}
	return nil, ir.OpErrorf(o, "in a scalar region is not supported by gree yet")
}

// hloScalarConst rebuilds a rank-0 (or splat) constant as a scalar one.
func hloScalarConst(bb *ir.Builder, o *ir.Operation) (*ir.Value, error) {
	d, ok := o.Attr("value").(*ir.DenseElementsAttr)
	elem := ir.ElementTypeOf(o.Results[0].Type)
	if !ok {
		if t, ok := o.Attr("value").(ir.TypedAttr); ok && !idxIsTensor(o.Results[0].Type) {
			return bb.Constant(t), nil
		}
		return nil, ir.OpErrorf(o, "needs a dense constant value")
	}
	if ft, ok := elem.(*ir.FloatType); ok {
		return bb.Constant(ir.FloatAttrOf(d.FloatAt(0), ft)), nil
	}
	return bb.Constant(ir.IntAttr(d.IntAt(0), elem)), nil
}

func idxIsTensor(t ir.Type) bool { _, ok := t.(*ir.RankedTensorType); return ok }

// hloCompareScalar is stablehlo.compare on scalars, with the comparison
// types FLOAT, SIGNED, UNSIGNED and TOTALORDER (floats ordered as
// -NaN < -Inf < … < -0 < +0 < … < +Inf < +NaN).
func hloCompareScalar(bb *ir.Builder, o *ir.Operation, a, c *ir.Value) (*ir.Value, error) {
	dir := hloDirection.FindStringSubmatch(attrText(o, "comparison_direction"))
	if dir == nil {
		return nil, ir.OpErrorf(o, "has no comparison_direction")
	}
	preds, ok := hloDirections[dir[1]]
	if !ok {
		return nil, ir.OpErrorf(o, "has an unknown comparison_direction %s", dir[1])
	}
	ct := ""
	if m := hloCompareType.FindStringSubmatch(attrText(o, "compare_type")); m != nil {
		ct = m[1]
	}
	et := a.Type
	if ir.IsFloat(et) && ct == "TOTALORDER" {
		a, c = totalOrderKey(bb, a), totalOrderKey(bb, c)
		return core.Cmp(bb, "arith.cmpi", preds[1], a, c), nil
	}
	if ir.IsFloat(et) {
		return core.Cmp(bb, "arith.cmpf", preds[0], a, c), nil
	}
	p := preds[1]
	if u, ok := hloUnsignedCmp[dir[1]]; ok && (core.ElemKind(et) == 2 || core.IsBool(et) || ct == "UNSIGNED") {
		p = u
	}
	return core.Cmp(bb, "arith.cmpi", p, a, c), nil
}

// totalOrderKey maps a float to a signed integer whose order is the
// float total order: negative values have their magnitude bits flipped.
func totalOrderKey(bb *ir.Builder, x *ir.Value) *ir.Value {
	w := core.Width(x.Type)
	if w != 16 && w != 32 && w != 64 {
		// 8-bit floats: their f32 values have the same order.
		x = bb.Create("arith.extf", []*ir.Value{x}, []ir.Type{ir.F32}).Result(0)
		w = 32
	}
	it := ir.Int(w)
	i := bb.Create("arith.bitcast", []*ir.Value{x}, []ir.Type{it}).Result(0)
	sign := core.BinOp(bb, "arith.shrsi", i, bb.Constant(ir.IntAttr(int64(w-1), it)))
	mag := core.BinOp(bb, "arith.andi", sign, bb.Constant(ir.IntAttr(int64(^uint64(0)>>(65-w)), it)))
	return core.BinOp(bb, "arith.xori", i, mag)
}

// hloScalarResult translates only what return value k of a StableHLO
// region needs (args[i] is nil for arguments that are not available): a
// variadic region whose results are independent becomes one scalar body
// per result. It fails when result k needs an unavailable argument.
func hloScalarResult(bb *ir.Builder, blk *ir.Block, args []*ir.Value, k int) (*ir.Value, error) {
	ret := blk.Terminator()
	if ret == nil || ret.Name != "stablehlo.return" || k >= len(ret.Operands) {
		return nil, ir.OpErrorf(blk.ParentOp(), "needs a region returning %d values", k+1)
	}
	needed := map[*ir.Operation]bool{}
	var mark func(v *ir.Value) error
	mark = func(v *ir.Value) error {
		if v.IsBlockArgument() {
			if v.ArgBlock() == blk && args[v.Index()] == nil {
				return ir.OpErrorf(blk.ParentOp(), "computes result %d from another input's values, which gree does not support", k)
			}
			return nil
		}
		o := v.Owner()
		if o == nil || o.Block() != blk || needed[o] {
			return nil
		}
		needed[o] = true
		for _, x := range o.Operands {
			if err := mark(x); err != nil {
				return err
			}
		}
		return nil
	}
	if err := mark(ret.Operands[k]); err != nil {
		return nil, err
	}
	m := ir.Mapping{}
	for i, a := range blk.Args {
		if args[i] != nil {
			m[a] = args[i]
		}
	}
	for _, o := range blk.Ops {
		if !needed[o] {
			continue
		}
		vals, err := hloBodyOperands(bb, blk, o, m)
		if err != nil {
			return nil, err
		}
		if len(o.Results) != 1 {
			return nil, ir.OpErrorf(o, "in a scalar region is not supported by gree")
		}
		v, err := hloScalarOp(bb, o, vals)
		if err != nil {
			return nil, err
		}
		m[o.Results[0]] = v
	}
	if v, ok := m[ret.Operands[k]]; ok {
		return v, nil
	}
	return hloCaptured(bb, blk, ret, ret.Operands[k])
}

// hloBodyOperands maps the operands of o, an op of the scalar region blk,
// to their scalars at bb: values of the region through m, and values the
// region uses from above (hloCaptured), which are added to m.
func hloBodyOperands(bb *ir.Builder, blk *ir.Block, o *ir.Operation, m ir.Mapping) ([]*ir.Value, error) {
	vals := make([]*ir.Value, len(o.Operands))
	for i, v := range o.Operands {
		x, ok := m[v]
		if !ok {
			var err error
			if x, err = hloCaptured(bb, blk, o, v); err != nil {
				return nil, err
			}
			m[v] = x
		}
		vals[i] = x
	}
	return vals, nil
}

// hloCaptured is the scalar, at bb inside a body built from the scalar
// region blk, of a value v that the region's op o uses but that is defined
// above the region — StableHLO regions other than functions may use
// values of enclosing regions (JAX 0.10's sort comparators use the NaN
// and zero constants of the function around them). A constant becomes a
// scalar constant in the body; any other rank-0 tensor is read with
// tensor.extract; a value that is already a scalar is used as it is.
func hloCaptured(bb *ir.Builder, blk *ir.Block, o *ir.Operation, v *ir.Value) (*ir.Value, error) {
	if v.IsBlockArgument() && v.ArgBlock() == blk || !v.IsBlockArgument() && v.Owner() != nil && v.Owner().Block() == blk {
		// A value of the region itself that was not computed: it is
		// defined after its use.
		return nil, ir.OpErrorf(o, "uses a value of its region before the value is defined")
	}
	t, ok := v.Type.(*ir.RankedTensorType)
	if !ok {
		if _, isShaped := v.Type.(ir.ShapedType); isShaped {
			return nil, ir.OpErrorf(o, "uses a value of type %s defined outside its region; gree reads only ranked rank-0 tensors and scalars from outside a region body", v.Type)
		}
		return v, nil
	}
	if len(t.Dims) != 0 {
		return nil, ir.OpErrorf(o, "uses a value of type %s defined outside its region; an element-wise region body can only use rank-0 tensors from outside", t)
	}
	if def := v.Owner(); def != nil && (def.Name == "stablehlo.constant" || def.Name == "arith.constant") {
		if _, dense := def.Attr("value").(*ir.DenseElementsAttr); dense {
			return hloScalarConst(bb, def)
		}
	}
	return bb.Create("tensor.extract", []*ir.Value{v}, []ir.Type{t.Elem}).Result(0), nil
}
