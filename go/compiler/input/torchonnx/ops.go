package torchonnx

import (
	"fmt"
	"math"
	"strings"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// onnxOp is one torch.operator "onnx.X" being converted.
type onnxOp struct {
	c    *onnxConv
	op   *ir.Operation
	b    *ir.Builder
	kind string                 // "Conv"
	ins  []*ir.Value            // operands; nil where a !torch.none stands for an absent input
	rts  []*ir.RankedTensorType // result types (nil for non-tensor results)
	runs []bool                 // results with unsigned element types
}

// onnxHandler converts one ONNX op kind; it returns the result values.
type onnxHandler func(o *onnxOp) ([]*ir.Value, error)

// onnxHandlers maps ONNX op types to their conversions (filled by init
// functions of the other files of this package).
var onnxHandlers = map[string]onnxHandler{}

// convert converts one torch-dialect op.
func (c *onnxConv) convert(op *ir.Operation) (err error) {
	b := ir.NewBuilder(op.Loc)
	b.SetInsertionPointBefore(op)
	switch op.Name {
	case "torch.constant.none", "torch.constant.int", "torch.constant.float", "torch.constant.bool", "torch.constant.str":
		return nil // read by their users; erased at the end
	case "torch.vtensor.literal":
		t, u, err := builtinType(op.Results[0].Type)
		if err != nil {
			return ir.OpErrorf(op, "%v", err)
		}
		ta, ok := op.Attr("value").(ir.TypedAttr)
		if !ok {
			return ir.OpErrorf(op, "needs a tensor value")
		}
		v, err := c.constant(b, op, ta, t)
		if err != nil {
			return err
		}
		c.unsigned[v] = u
		c.r.Replace(op, []*ir.Value{v})
		return nil
	case "torch_c.to_builtin_tensor", "torch_c.from_builtin_tensor":
		c.r.Replace(op, op.Operands[:1])
		return nil
	case "torch.operator_terminator":
		if info, ok := c.loops[op.Block()]; ok {
			return c.loopYield(b, op, info)
		}
		b.Create("scf.yield", op.Operands, nil)
		op.Erase()
		return nil
	case "torch.operator":
	default:
		return ir.OpErrorf(op, "is not supported by gree")
	}
	name, _ := op.Attr("name").(*ir.StringAttr)
	if name == nil || !strings.HasPrefix(name.Value, "onnx.") {
		return ir.OpErrorf(op, "has no onnx.* name")
	}
	o := &onnxOp{c: c, op: op, b: b, kind: strings.TrimPrefix(name.Value, "onnx.")}
	for _, v := range op.Operands {
		if ot, ok := v.Type.(*ir.OpaqueType); ok && ot.Text == "!torch.none" {
			o.ins = append(o.ins, nil)
			continue
		}
		o.ins = append(o.ins, v)
	}
	for _, r := range op.Results {
		t, u, err := builtinType(r.Type)
		if err != nil {
			return o.errorf("%v", err)
		}
		rt, _ := t.(*ir.RankedTensorType)
		o.rts = append(o.rts, rt)
		o.runs = append(o.runs, u)
	}
	h := onnxHandlers[o.kind]
	if h == nil {
		return o.errorf("is not supported by gree")
	}
	defer func() {
		// A converter bug on unusual input still names the op.
		if p := recover(); p != nil {
			err = o.errorf("could not be converted (internal error, please report it with the input): %v", p)
		}
	}()
	vals, folded := o.fold()
	if !folded {
		o.refine()
		if vals, err = h(o); err != nil {
			return err
		}
	}
	if len(vals) < len(op.Results) {
		return o.errorf("has %d results; gree computes only %d of them", len(op.Results), len(vals))
	}
	for i, v := range vals[:len(op.Results)] {
		if v == nil {
			continue
		}
		c.unsigned[v] = o.runs[i]
	}
	for i, res := range op.Results {
		if vals[i] != nil {
			ir.ReplaceAllUsesWith(c.r.Fn, res, vals[i])
		}
	}
	op.Erase()
	return nil
}

// errorf reports an error naming the ONNX op and opset.
func (o *onnxOp) errorf(format string, args ...any) error {
	prefix := fmt.Sprintf("onnx.%s (opset %d) ", o.kind, o.c.opset)
	if n, ok := NodeName(o.op.Loc); ok {
		prefix = fmt.Sprintf("onnx.%s (opset %d, node '%s') ", o.kind, o.c.opset, n)
	}
	return ir.Errorf(o.op.Loc, prefix+format, args...)
}

// NodeName returns the ONNX node a location names: the importer's node
// locations (iree-compile model.onnx) are named after nodes ("#..." for
// unnamed ones, which name nothing useful).
func NodeName(loc ir.Location) (string, bool) {
	n, ok := loc.(*ir.NameLoc)
	if !ok || strings.HasPrefix(n.Name, "#") {
		return "", false
	}
	return n.Name, true
}

// in returns input i, or nil when absent.
func (o *onnxOp) in(i int) *ir.Value {
	if i < len(o.ins) {
		return o.ins[i]
	}
	return nil
}

// tt returns the ranked tensor type of v.
func tt(v *ir.Value) *ir.RankedTensorType {
	t, _ := v.Type.(*ir.RankedTensorType)
	return t
}

// isUnsigned reports a value with an unsigned ONNX element type.
func (o *onnxOp) isUnsigned(v *ir.Value) bool { return v != nil && o.c.unsigned[v] }

// attr returns the ONNX attribute name (stored as torch.onnx.<name>).
func (o *onnxOp) attr(name string) ir.Attribute { return o.op.Attr("torch.onnx." + name) }

func (o *onnxOp) attrInt(name string, def int64) int64 {
	switch a := o.attr(name).(type) {
	case *ir.IntegerAttr:
		return a.Value
	case *ir.FloatAttr:
		return int64(a.Value)
	}
	return def
}

func (o *onnxOp) attrFloat(name string, def float64) float64 {
	switch a := o.attr(name).(type) {
	case *ir.FloatAttr:
		return a.Value
	case *ir.IntegerAttr:
		return float64(a.Value)
	}
	return def
}

func (o *onnxOp) attrStr(name, def string) string {
	if a, ok := o.attr(name).(*ir.StringAttr); ok {
		return a.Value
	}
	return def
}

// attrInts returns an integer list attribute (nil, false when absent).
func (o *onnxOp) attrInts(name string) ([]int64, bool) {
	switch a := o.attr(name).(type) {
	case *ir.ArrayAttr:
		out := make([]int64, 0, len(a.Elems))
		for _, e := range a.Elems {
			switch e := e.(type) {
			case *ir.IntegerAttr:
				out = append(out, e.Value)
			case *ir.FloatAttr:
				out = append(out, int64(e.Value))
			default:
				return nil, false
			}
		}
		return out, true
	case *ir.IntegerAttr:
		return []int64{a.Value}, true
	case *ir.DenseElementsAttr:
		return a.Ints, true
	}
	return nil, false
}

// attrFloats returns a float list attribute.
func (o *onnxOp) attrFloats(name string) ([]float64, bool) {
	a, ok := o.attr(name).(*ir.ArrayAttr)
	if !ok {
		return nil, false
	}
	var out []float64
	for _, e := range a.Elems {
		switch e := e.(type) {
		case *ir.FloatAttr:
			out = append(out, e.Value)
		case *ir.IntegerAttr:
			out = append(out, float64(e.Value))
		}
	}
	return out, true
}

// constElements returns the elements of v when it is a constant.
func constElements(v *ir.Value) *ir.DenseElementsAttr {
	if v == nil || v.Owner() == nil || v.Owner().Name != "arith.constant" {
		return nil
	}
	switch a := v.Owner().Attr("value").(type) {
	case *ir.DenseElementsAttr:
		return a
	case *ir.DenseResourceAttr:
		d, err := a.Elements()
		if err == nil {
			return d
		}
	}
	return nil
}

// constInts returns the values of an integer constant input.
func (o *onnxOp) constInts(i int) ([]int64, bool) {
	d := constElements(o.in(i))
	if d == nil {
		return nil, false
	}
	n := d.NumElements()
	out := make([]int64, n)
	for k := int64(0); k < n; k++ {
		if ir.IsFloat(d.ElementType()) {
			out[k] = int64(d.FloatAt(k))
		} else {
			out[k] = d.IntAt(k)
		}
	}
	return out, true
}

// constFloats returns the values of a constant input as floats.
func (o *onnxOp) constFloats(i int) ([]float64, bool) {
	d := constElements(o.in(i))
	if d == nil {
		return nil, false
	}
	n := d.NumElements()
	out := make([]float64, n)
	for k := int64(0); k < n; k++ {
		if ir.IsFloat(d.ElementType()) {
			out[k] = d.FloatAt(k)
		} else {
			out[k] = float64(d.IntAt(k))
		}
	}
	return out, true
}

// constant materializes a tensor constant of type t (signless) from a
// dense or dense_resource attribute.
func (c *onnxConv) constant(b *ir.Builder, op *ir.Operation, a ir.TypedAttr, t ir.Type) (*ir.Value, error) {
	rt, ok := t.(*ir.RankedTensorType)
	if !ok || !ir.HasStaticShape(rt) {
		return nil, ir.OpErrorf(op, "needs a static tensor type")
	}
	var val ir.Attribute
	switch a := a.(type) {
	case *ir.DenseElementsAttr:
		d := *a
		d.Type = rt
		val = &d
	case *ir.DenseResourceAttr:
		val = &ir.DenseResourceAttr{Type: rt, Resource: a.Resource}
	default:
		return nil, ir.OpErrorf(op, "has an unsupported constant value %s", a)
	}
	if d, ok := val.(*ir.DenseElementsAttr); ok && d.Splat {
		if n, _ := ir.NumElements(rt.Dims); n > 1 {
			if ir.IsFloat(rt.Elem) {
				return filled(b, rt, d.FloatAt(0)), nil
			}
			return filledInt(b, rt, d.IntAt(0)), nil
		}
	}
	return b.Create("arith.constant", nil, []ir.Type{rt}, ir.Named("value", val)).Result(0), nil
}

// filledInt creates an integer tensor of type t filled with v.
func filledInt(b *ir.Builder, t *ir.RankedTensorType, v int64) *ir.Value {
	c := b.Constant(ir.IntAttr(v, t.Elem))
	n := len(t.Dims)
	return linalg.BuildGeneric(b, []*ir.Value{c}, []*ir.Value{empty(b, t)}, []*ir.AffineMap{{NumDims: n}, linalg.Identity(n)}, core.Parallel(n), core.YieldArg(0, t)).Result(0)
}

// denseOf builds a constant tensor of type t from float or int values.
func denseOf(b *ir.Builder, t *ir.RankedTensorType, floats []float64, ints []int64) *ir.Value {
	d := &ir.DenseElementsAttr{Type: t}
	if ir.IsFloat(t.Elem) {
		d.Floats = floats
	} else {
		d.Ints = ints
	}
	return b.Create("arith.constant", nil, []ir.Type{t}, ir.Named("value", d)).Result(0)
}

// scalarConst returns a scalar constant v of type t (float or integer).
func scalarConst(b *ir.Builder, v float64, t ir.Type) *ir.Value {
	if ft, ok := t.(*ir.FloatType); ok {
		return b.Constant(ir.FloatAttrOf(v, ft))
	}
	if core.IsIndex(t) {
		return b.Constant(ir.IntAttr(int64(v), ir.Index))
	}
	if math.IsInf(v, 1) {
		return b.Constant(ir.IntAttr(maxInt(t), t))
	}
	if math.IsInf(v, -1) {
		return b.Constant(ir.IntAttr(minInt(t), t))
	}
	return b.Constant(ir.IntAttr(int64(v), t))
}

func maxInt(t ir.Type) int64 {
	w := core.Width(t)
	if w <= 0 {
		return 0
	}
	if w >= 64 {
		return math.MaxInt64
	}
	return 1<<(w-1) - 1
}

func minInt(t ir.Type) int64 {
	w := core.Width(t)
	if w <= 0 {
		return 0
	}
	if w >= 64 {
		return math.MinInt64
	}
	return -(1 << (w - 1))
}

// normAxis turns a possibly negative axis into 0..rank-1.
func (o *onnxOp) normAxis(a int64, rank int) (int, error) {
	if a < 0 {
		a += int64(rank)
	}
	if a < 0 || a >= int64(rank) && !(rank == 0 && a == 0) {
		return 0, o.errorf("has axis %d out of range for rank %d", a, rank)
	}
	return int(a), nil
}

// static checks that every input and result tensor has a static shape.
func (o *onnxOp) static() error {
	if len(o.rts) == 0 || o.rts[0] == nil {
		return o.errorf("has a first result that is not a tensor (%s)", o.op.Results[0].Type)
	}
	for _, v := range o.ins {
		if v != nil {
			if t := tt(v); t != nil && !ir.HasStaticShape(t) {
				return o.errorf("with dynamic input shapes is not supported by gree yet")
			}
		}
	}
	for _, t := range o.rts {
		if t != nil && !ir.HasStaticShape(t) {
			return o.errorf("with dynamic result shapes is not supported by gree yet")
		}
	}
	if elementwiseKinds[o.kind] && o.rts[0] != nil {
		var shapes [][]int64
		for _, v := range o.ins {
			if v != nil && tt(v) != nil {
				shapes = append(shapes, tt(v).Dims)
			}
		}
		if b := bcastDims(shapes...); b == nil || !ir.TypesEqual(ir.Tensor(b, ir.I1), ir.Tensor(o.rts[0].Dims, ir.I1)) {
			return o.errorf("has inputs whose shapes do not broadcast to the result shape %v", o.rts[0].Dims)
		}
	}
	return nil
}

// empty creates a tensor.empty of static type t.
func empty(b *ir.Builder, t *ir.RankedTensorType) *ir.Value {
	return b.Create("tensor.empty", nil, []ir.Type{t}).Result(0)
}

// filled creates a tensor of type t filled with v.
func filled(b *ir.Builder, t *ir.RankedTensorType, v float64) *ir.Value {
	c := scalarConst(b, v, t.Elem)
	n := len(t.Dims)
	return linalg.BuildGeneric(b, []*ir.Value{c}, []*ir.Value{empty(b, t)}, []*ir.AffineMap{{NumDims: n}, linalg.Identity(n)}, core.Parallel(n), core.YieldArg(0, t)).Result(0)
}

// dimExpr and cstExpr build affine expressions.
func dimExpr(i int) ir.AffineExpr { return &ir.AffineDimExpr{Pos: i} }

func cstExpr(v int64) ir.AffineExpr { return &ir.AffineConstantExpr{Value: v} }

func addExpr(a, c ir.AffineExpr) ir.AffineExpr { return ir.AffineBinary(ir.AffineAdd, a, c) }

func mulExpr(a ir.AffineExpr, v int64) ir.AffineExpr {
	return ir.AffineBinary(ir.AffineMul, a, cstExpr(v))
}

// broadcastMap is the indexing map that reads a tensor of shape in inside
// loops over out (numpy broadcasting: dimensions aligned on the right,
// size-1 dimensions repeated).
func broadcastMap(in, out []int64) *ir.AffineMap {
	n, k := len(out), len(in)
	m := &ir.AffineMap{NumDims: n}
	for i := 0; i < k; i++ {
		j := n - k + i
		if in[i] == 1 && out[j] != 1 {
			m.Results = append(m.Results, cstExpr(0))
		} else {
			m.Results = append(m.Results, dimExpr(j))
		}
	}
	return m
}

// mapGeneric builds a parallel generic over the result type rt reading
// ins with numpy broadcasting; body computes one element.
func mapGeneric(b *ir.Builder, ins []*ir.Value, rt *ir.RankedTensorType, body func(bb *ir.Builder, args []*ir.Value) *ir.Value) *ir.Value {
	n := len(rt.Dims)
	var maps []*ir.AffineMap
	for _, v := range ins {
		maps = append(maps, broadcastMap(tt(v).Dims, rt.Dims))
	}
	maps = append(maps, linalg.Identity(n))
	g := linalg.BuildGeneric(b, ins, []*ir.Value{empty(b, rt)}, maps, core.Parallel(n), func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		return []*ir.Value{body(bb, args[:len(ins)])}
	})
	return g.Result(0)
}

// copyGeneric builds out[i…] = in[m(i…)] for a static result type.
func copyGeneric(b *ir.Builder, in *ir.Value, m *ir.AffineMap, rt *ir.RankedTensorType) *ir.Value {
	n := len(rt.Dims)
	g := linalg.BuildGeneric(b, []*ir.Value{in}, []*ir.Value{empty(b, rt)}, []*ir.AffineMap{m, linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		return args[:1]
	})
	return g.Result(0)
}

// reshape reinterprets v (static shape) with the dims of rt.
func reshape(b *ir.Builder, v *ir.Value, rt *ir.RankedTensorType) *ir.Value {
	if ir.TypesEqual(v.Type, rt) {
		return v
	}
	shape := b.Constant(&ir.DenseElementsAttr{Type: ir.Tensor([]int64{int64(len(rt.Dims))}, ir.I64), Ints: append([]int64{}, rt.Dims...)})
	return b.Create("tensor.reshape", []*ir.Value{v, shape}, []ir.Type{rt}).Result(0)
}

// onnxReg registers handlers for several ONNX op types.
func onnxReg(h onnxHandler, kinds ...string) {
	for _, k := range kinds {
		onnxHandlers[k] = h
	}
}
