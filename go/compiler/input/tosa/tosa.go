package tosa

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// rewriter is core's Rewriter with the TOSA conversions as methods.
type rewriter struct{ *core.Rewriter }

// Lower converts one TOSA op in place (a core.Lowering for the "tosa"
// dialect).
func Lower(r *core.Rewriter, b *ir.Builder, op *ir.Operation) error {
	return (&rewriter{r}).tosa(b, op)
}

// tosa converts one TOSA op to core tensor ops. Both TOSA forms are
// accepted: the older one, whose shifts, zero points, paddings and
// shapes are attributes, and TOSA 1.0's, where they are operands
// (tosa.const / tosa.const_shape values).
func (r *rewriter) tosa(b *ir.Builder, op *ir.Operation) error {
	// Shapes, zero points, shifts and multipliers are constants read at
	// conversion time; once their last user is converted they go.
	operands := append([]*ir.Value{}, op.Operands...)
	if err := r.tosaOp(b, op, strings.TrimPrefix(op.Name, "tosa.")); err != nil {
		return err
	}
	r.dropUnusedConstants(operands...)
	return nil
}

// tosaOp converts op, whose name without "tosa." is name.
func (r *rewriter) tosaOp(b *ir.Builder, op *ir.Operation, name string) error {
	switch name {
	case "yield":
		return nil // rewritten with its parent cond_if / while_loop
	case "const", "const_shape":
		return r.tosaConst(b, op)
	case "identity":
		if len(op.Operands) != len(op.Results) {
			return ir.OpErrorf(op, "needs as many operands as results")
		}
		for i, v := range op.Operands {
			if !ir.TypesEqual(v.Type, op.Results[i].Type) {
				return ir.OpErrorf(op, "changes type %s to %s", v.Type, op.Results[i].Type)
			}
		}
		r.Replace(op, op.Operands)
		return nil
	case "cond_if":
		return r.tosaIf(b, op)
	case "while_loop":
		return r.tosaWhile(b, op)
	case "variable_read", "variable_write":
		return r.tosaVariableAccess(b, op)
	case "fft2d", "rfft2d":
		return r.tosaFFT(b, op, name == "rfft2d")
	}
	if len(op.Results) != 1 {
		return ir.OpErrorf(op, "is not supported by gree yet")
	}
	rt, ok := op.Results[0].Type.(*ir.RankedTensorType)
	if !ok {
		return ir.OpErrorf(op, "needs a ranked tensor result")
	}
	// i48 (the accumulator of 16-bit convolutions) is computed as i64, as
	// IREE does; consumers see the i64 values.
	rt = widen48(rt).(*ir.RankedTensorType)
	for i, v := range op.Operands {
		switch t := v.Type.(type) {
		case *ir.RankedTensorType:
		case *ir.UnrankedTensorType:
			return ir.OpErrorf(op, "with unranked tensor operands is not supported by gree")
		case *ir.OpaqueType:
			if !strings.HasPrefix(t.Text, "!tosa.shape") {
				return ir.OpErrorf(op, "has operand #%d of type %s (expected a tensor or !tosa.shape)", i, t)
			}
		default:
			return ir.OpErrorf(op, "has operand #%d of type %s (expected a tensor or !tosa.shape)", i, t)
		}
	}
	if n, ok := tosaMinOperands[name]; ok && len(op.Operands) < n {
		return ir.OpErrorf(op, "expects at least %d operands (found %d)", n, len(op.Operands))
	}
	if len(op.Operands) == 0 {
		return ir.OpErrorf(op, "expects operands")
	}
	if _, ok := op.Operands[0].Type.(*ir.RankedTensorType); !ok {
		return ir.OpErrorf(op, "needs a ranked tensor as its first operand")
	}
	if done, err := r.tosaElementwise(b, op, name, rt); done || err != nil {
		return err
	}
	if done, err := r.tosaQuant(b, op, name, rt); done || err != nil {
		return err
	}
	if done, err := r.tosaStructural(b, op, name, rt); done || err != nil {
		return err
	}
	if done, err := r.tosaReduce(b, op, name, rt); done || err != nil {
		return err
	}
	if done, err := r.tosaNN(b, op, name, rt); done || err != nil {
		return err
	}
	return ir.OpErrorf(op, "is not supported by gree yet")
}

// tosaConst turns tosa.const into arith.constant and tosa.const_shape
// into a constant tensor of index (read back by the ops that use it).
func (r *rewriter) tosaConst(b *ir.Builder, op *ir.Operation) error {
	d := denseAttr(op)
	if d == nil {
		return ir.OpErrorf(op, "needs a dense 'values' attribute")
	}
	var value ir.Attribute = d
	if res, ok := op.Attr("values").(*ir.DenseResourceAttr); ok {
		value = res // weights stay in their resource blob
	} else if res, ok := op.Attr("value").(*ir.DenseResourceAttr); ok {
		value = res
	}
	t := widen48(op.Results[0].Type)
	if !ir.TypesEqual(t, op.Results[0].Type) {
		value = &ir.DenseElementsAttr{Type: t.(*ir.RankedTensorType), Splat: d.Splat, Ints: d.Ints}
	}
	if op.Name == "tosa.const_shape" {
		t = ir.Tensor([]int64{d.NumElements()}, ir.Index)
		value = &ir.DenseElementsAttr{Type: t.(*ir.RankedTensorType), Splat: d.Splat, Ints: d.Ints}
	}
	c := b.Create("arith.constant", nil, []ir.Type{t}, ir.Named("value", value))
	r.Replace(op, c.Results)
	if core.IsSplatTensor(c) && !core.IsIndex(ir.ElementTypeOf(t)) {
		// A splat becomes a fill, fused into its consumers (no data).
		b.SetInsertionPointBefore(c)
		return r.SplatConstant(b, c)
	}
	return nil
}

// denseAttr returns the elements of a constant op's values (or value)
// attribute, decoding a dense_resource blob.
func denseAttr(op *ir.Operation) *ir.DenseElementsAttr {
	for _, n := range []string{"values", "value"} {
		switch a := op.Attr(n).(type) {
		case *ir.DenseElementsAttr:
			return a
		case *ir.DenseResourceAttr:
			if d, err := a.Elements(); err == nil {
				return d
			}
		}
	}
	return nil
}

// constOf returns the elements of v when it is a constant (tosa.const,
// tosa.const_shape or arith.constant), else nil.
func constOf(v *ir.Value) *ir.DenseElementsAttr {
	if v == nil || v.Owner() == nil {
		return nil
	}
	switch d := v.Owner(); d.Name {
	case "arith.constant", "tosa.const", "tosa.const_shape":
		return denseAttr(d)
	case linalg.GenericName:
		return splatFill(d, v)
	}
	return nil
}

// splatFill recognizes the fill a splat constant became (a generic
// broadcasting one scalar constant) and returns it as a splat.
func splatFill(d *ir.Operation, v *ir.Value) *ir.DenseElementsAttr {
	g, ok := linalg.AsGeneric(d)
	rt, ok2 := v.Type.(*ir.RankedTensorType)
	if !ok || !ok2 || g.NumInputs() != 1 || len(d.Results) != 1 {
		return nil
	}
	c := g.Inputs()[0].Owner()
	blk := g.Body()
	if c == nil || c.Name != "arith.constant" || len(blk.Ops) != 1 || len(blk.Ops[0].Operands) != 1 || blk.Ops[0].Operands[0] != blk.Args[0] {
		return nil
	}
	switch a := c.Attr("value").(type) {
	case *ir.IntegerAttr:
		return &ir.DenseElementsAttr{Type: rt, Splat: true, Ints: []int64{a.Value}}
	case *ir.FloatAttr:
		return &ir.DenseElementsAttr{Type: rt, Splat: true, Floats: []float64{a.Value}}
	}
	return nil
}

// maxConstInts bounds the integer constants constInts expands (shapes,
// multiples, per-channel scales): a splat of 2^32 elements would otherwise
// be expanded in full.
const maxConstInts = 1 << 20

func constInts(v *ir.Value) ([]int64, bool) {
	d := constOf(v)
	if d == nil || ir.IsFloat(d.ElementType()) || d.NumElements() > maxConstInts {
		return nil, false
	}
	out := make([]int64, d.NumElements())
	for i := range out {
		out[i] = d.IntAt(int64(i))
	}
	return out, true
}

var quantField = regexp.MustCompile(`(\w+)\s*=\s*(-?[0-9]+)`)

// tosaIntParam reads an integer parameter given either as an operand
// (constant tensor, TOSA 1.0) at index i, as an attribute named one of
// names, or as a field of an older quantization_info attribute. It
// reports whether one was found; a non-constant operand is an error.
func tosaIntParam(op *ir.Operation, i int, names ...string) (int64, bool, error) {
	for _, n := range names {
		switch a := op.Attr(n).(type) {
		case *ir.IntegerAttr:
			return a.Value, true, nil
		case *ir.DenseArrayAttr:
			if len(a.Ints) > 0 {
				return a.Ints[0], true, nil
			}
		}
	}
	if q := op.Attr("quantization_info"); q != nil {
		for _, m := range quantField.FindAllStringSubmatch(q.String(), -1) {
			for _, n := range names {
				if m[1] == n {
					v, _ := strconv.ParseInt(m[2], 10, 64)
					return v, true, nil
				}
			}
		}
	}
	if i >= 0 && i < len(op.Operands) {
		if d := constOf(op.Operands[i]); d != nil {
			if ir.IsFloat(d.ElementType()) {
				return 0, true, nil // float zero points are 0 by the spec
			}
			return d.IntAt(0), true, nil
		}
		return 0, false, ir.OpErrorf(op, "needs a constant operand #%d (gree does not support run-time values there)", i)
	}
	return 0, false, nil
}

// tosaZP reads a zero point (0 when absent).
func tosaZP(op *ir.Operation, i int, names ...string) (int64, error) {
	v, _, err := tosaIntParam(op, i, names...)
	return v, err
}

// tosaList reads an integer list given as an attribute named name or as
// a constant operand (const_shape or const tensor) at index i.
func tosaList(op *ir.Operation, name string, i int) ([]int64, error) {
	if v, ok := core.IntList(op, name); ok {
		return v, nil
	}
	if i >= 0 && i < len(op.Operands) {
		if v, ok := constInts(op.Operands[i]); ok {
			return v, nil
		}
		return nil, ir.OpErrorf(op, "needs a constant '%s' operand (gree does not support run-time shapes there)", name)
	}
	return nil, ir.OpErrorf(op, "needs a '%s' attribute", name)
}

// tosaAxis reads the axis attribute and checks it against rank.
func tosaAxis(op *ir.Operation, rank int) (int, error) {
	a, ok := op.Attr("axis").(*ir.IntegerAttr)
	if !ok || a.Value < 0 || int(a.Value) >= rank {
		return 0, ir.OpErrorf(op, "needs an 'axis' within the input rank %d", rank)
	}
	return int(a.Value), nil
}

// tosaString reads an enum/string attribute (rounding_mode = DOUBLE_ROUND,
// mode = "BILINEAR", #tosa<resize_mode BILINEAR>) as its keyword.
func tosaString(op *ir.Operation, name string) string {
	switch a := op.Attr(name).(type) {
	case nil:
		return ""
	case *ir.StringAttr:
		return a.Value
	default:
		f := strings.FieldsFunc(a.String(), func(r rune) bool { return r == ' ' || r == '<' || r == '>' || r == '"' })
		if len(f) > 0 {
			return f[len(f)-1]
		}
	}
	return ""
}

func tosaBool(op *ir.Operation, name string) bool {
	switch a := op.Attr(name).(type) {
	case *ir.BoolAttr:
		return a.Value
	case *ir.IntegerAttr:
		return a.Value != 0
	case ir.UnitAttr:
		return true
	}
	return false
}

// bcastMap reads operand type t (same rank as the result, size-1
// dimensions broadcast) inside an n-loop generic.
func bcastMap(t *ir.RankedTensorType, rt *ir.RankedTensorType) *ir.AffineMap {
	n := len(rt.Dims)
	m := &ir.AffineMap{NumDims: n}
	if len(t.Dims) != n {
		return m // rank 0 (or a mismatch the caller rejected)
	}
	for i, d := range t.Dims {
		if d == 1 && rt.Dims[i] != 1 {
			m.Results = append(m.Results, &ir.AffineConstantExpr{Value: 0})
		} else {
			m.Results = append(m.Results, &ir.AffineDimExpr{Pos: i})
		}
	}
	return m
}

// tosaEmpty creates the tensor.empty for result type rt, taking dynamic
// sizes from the first of ins that is not broadcast along that dimension.
func tosaEmpty(b *ir.Builder, rt *ir.RankedTensorType, ins []*ir.Value) *ir.Value {
	return core.EmptyFor(b, rt, func(i int) *ir.Value {
		for _, v := range ins {
			if t, ok := v.Type.(*ir.RankedTensorType); ok && len(t.Dims) == len(rt.Dims) && t.Dims[i] != 1 {
				return linalg.Dim(b, v, i)
			}
		}
		return b.Constant(ir.IntAttr(1, ir.Index))
	})
}

// tosaMapGeneric builds an element-wise generic over rt reading ins with
// TOSA's broadcasting; body computes one element.
func (r *rewriter) tosaMapGeneric(b *ir.Builder, op *ir.Operation, ins []*ir.Value, rt *ir.RankedTensorType, body func(bb *ir.Builder, args []*ir.Value) *ir.Value) error {
	n := len(rt.Dims)
	var maps []*ir.AffineMap
	for _, v := range ins {
		t, ok := v.Type.(*ir.RankedTensorType)
		if !ok || (len(t.Dims) != n && len(t.Dims) != 0) {
			return ir.OpErrorf(op, "needs operands of the result's rank %d", n)
		}
		maps = append(maps, bcastMap(t, rt))
	}
	out := tosaEmpty(b, rt, ins)
	maps = append(maps, linalg.Identity(n))
	g := linalg.BuildGeneric(b, ins, []*ir.Value{out}, maps, core.Parallel(n), func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		return []*ir.Value{body(bb, args[:len(ins)])}
	})
	r.Replace(op, g.Results)
	return nil
}

func cFloat(bb *ir.Builder, v float64, t ir.Type) *ir.Value {
	return bb.Constant(ir.FloatAttrOf(v, t.(*ir.FloatType)))
}

func un(bb *ir.Builder, name string, x *ir.Value) *ir.Value {
	return bb.Create(name, []*ir.Value{x}, []ir.Type{x.Type}).Result(0)
}

func sel(bb *ir.Builder, c, a, d *ir.Value) *ir.Value {
	return bb.Create("arith.select", []*ir.Value{c, a, d}, []ir.Type{a.Type}).Result(0)
}

// intRange returns the smallest and largest values of an integer type.
func intRange(t ir.Type, unsigned bool) (int64, int64) {
	w := core.Width(t)
	if unsigned {
		if w >= 64 {
			return 0, math.MaxInt64
		}
		return 0, int64(1)<<w - 1
	}
	if w >= 64 {
		return math.MinInt64, math.MaxInt64
	}
	return -(int64(1) << (w - 1)), int64(1)<<(w-1) - 1
}

// clip clamps x between lo and hi (signed comparison).
func clip(bb *ir.Builder, x *ir.Value, lo, hi int64) *ir.Value {
	x = core.BinOp(bb, "arith.maxsi", x, core.IntConst(bb, lo, x.Type))
	return core.BinOp(bb, "arith.minsi", x, core.IntConst(bb, hi, x.Type))
}

func isUnsignedType(t ir.Type) bool {
	it, ok := t.(*ir.IntegerType)
	return ok && it.Signedness == ir.Unsigned
}

// widen48 maps tensors of i48 to tensors of i64.
func widen48(t ir.Type) ir.Type {
	if rt, ok := t.(*ir.RankedTensorType); ok {
		if it, ok := rt.Elem.(*ir.IntegerType); ok && it.Width == 48 {
			return ir.Tensor(rt.Dims, ir.I64)
		}
	}
	return t
}

// tosaMinOperands is the number of operands each op needs at least (the
// older form's; TOSA 1.0 adds zero points and shapes after them).
var tosaMinOperands = map[string]int{
	"select": 3, "mul": 2, "maximum": 2, "minimum": 2, "arithmetic_right_shift": 2, "gather": 2,
	"scatter": 3, "matmul": 2, "fully_connected": 3, "conv2d": 3, "conv3d": 3, "depthwise_conv2d": 3,
	"transpose_conv2d": 3, "table": 2, "pad": 2, "add": 2, "sub": 2, "intdiv": 2, "div": 2, "pow": 2,
	"equal": 2, "greater": 2, "greater_equal": 2, "logical_and": 2, "logical_or": 2, "logical_xor": 2,
	"bitwise_and": 2, "bitwise_or": 2, "bitwise_xor": 2, "logical_left_shift": 2, "logical_right_shift": 2,
	"concat": 1, "reshape": 1, "transpose": 1, "slice": 1, "tile": 1, "reverse": 1, "cast": 1, "clamp": 1,
	"rescale": 1, "negate": 1, "avg_pool2d": 1, "max_pool2d": 1, "resize": 1, "argmax": 1,
}
