package codegen

import (
	"fmt"

	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
)

// gen is the state of lowering one dispatch.
type gen struct {
	d  *Dispatch
	k  *kir.Kernel
	b  *kir.Builder // the kernel's top-level block
	st Strategy

	bindingOf map[*ir.Value]int
	pushOf    map[Push]int
	// dims and strides of each bound tensor, as top-level kernel values.
	dims    map[*ir.Value][]kir.Value
	strides map[*ir.Value][]kir.Value
	consts  map[int64]kir.Value
	// contract is set once a Contract tile op is emitted.
	contract *contractTile
	// dw is set once a DWConv tile op is emitted.
	dw *dwTile
	// hoisted caches top-level constants and broadcasts by source and width.
	hoisted map[hoistKey]kir.Value
	// locals are scalars defined inside the kernel's loops (a recurrence's
	// step index and what it computes from it), never hoisted to the top.
	locals map[*ir.Value]kir.Value
}

type hoistKey struct {
	v     any // *ir.Value (a body constant) or kir.Value (a broadcast scalar)
	width int
}

func newGen(region *ir.Operation, name string, st Strategy) *gen {
	k, b := kir.NewKernel(name)
	return &gen{
		d: &Dispatch{Region: region, Kernel: k}, k: k, b: b, st: st,
		bindingOf: map[*ir.Value]int{}, pushOf: map[Push]int{},
		dims: map[*ir.Value][]kir.Value{}, strides: map[*ir.Value][]kir.Value{},
		consts: map[int64]kir.Value{}, hoisted: map[hoistKey]kir.Value{},
	}
}

// idx returns an i64 constant defined at the top of the kernel.
func (g *gen) idx(x int64) kir.Value {
	if v, ok := g.consts[x]; ok {
		return v
	}
	v := g.b.Idx(x)
	g.consts[x] = v
	return v
}

// push returns the push-constant value for p, defined at the top.
func (g *gen) push(p Push) kir.Value {
	i, ok := g.pushOf[p]
	if !ok {
		i = len(g.d.Push)
		g.d.Push = append(g.d.Push, p)
		g.pushOf[p] = i
		g.k.NumPushConstants = len(g.d.Push)
	}
	return g.b.EmitImm(kir.PushConstant, kir.S(kir.I64), int64(i))
}

// bind returns the binding ordinal of tensor v, adding it with the given
// access, and computes its dimensions and row-major strides at the top.
func (g *gen) bind(v *ir.Value, access kir.Access) (int, error) {
	if i, ok := g.bindingOf[v]; ok {
		g.k.Bindings[i].Access |= access
		return i, nil
	}
	t, ok := v.Type.(*ir.RankedTensorType)
	if !ok {
		return 0, fmt.Errorf("binding of non-tensor type %s", v.Type)
	}
	s, ok := storageOf(t.Elem)
	if !ok {
		return 0, fmt.Errorf("tensors of %s are not supported by gree kernels", t.Elem)
	}
	i := len(g.k.Bindings)
	g.k.Bindings = append(g.k.Bindings, kir.Binding{Elem: s, Access: access})
	g.d.Bindings = append(g.d.Bindings, v)
	g.bindingOf[v] = i
	dims := make([]kir.Value, len(t.Dims))
	for j, d := range t.Dims {
		if d >= 0 {
			dims[j] = g.idx(d)
		} else {
			dims[j] = g.push(Push{Value: v, Dim: j})
		}
	}
	strides := make([]kir.Value, len(dims))
	static, known := int64(1), true // the running product while static
	var acc kir.Value
	for j := len(dims) - 1; j >= 0; j-- {
		if known {
			strides[j] = g.idx(static)
		} else {
			strides[j] = acc
		}
		switch {
		case known && t.Dims[j] >= 0:
			static *= t.Dims[j]
		case known:
			known = false
			acc = g.b.Bin(kir.Mul, g.idx(static), dims[j])
		default:
			acc = g.b.Bin(kir.Mul, acc, dims[j])
		}
	}
	g.dims[v], g.strides[v] = dims, strides
	return i, nil
}

// scalarCapture returns a kernel value for a scalar defined outside the
// dispatch: constants are rebuilt; anything else is a push constant.
func (g *gen) scalarCapture(v *ir.Value) (kir.Value, error) {
	s, ok := ScalarOf(v.Type)
	if !ok {
		return 0, fmt.Errorf("captured value of type %s is not supported", v.Type)
	}
	if def := v.Owner(); def != nil && def.Name == "arith.constant" {
		vals, err := scalarOp(g.b, def, 1, nil)
		if err != nil {
			return 0, err
		}
		return vals[0], nil
	}
	raw := g.push(Push{Value: v, Dim: -1})
	switch {
	case s == kir.I64:
		return raw, nil
	case s == kir.F64:
		return g.b.Emit(kir.Bitcast, kir.S(kir.F64), raw), nil
	case s.IsFloat():
		bits := map[int]kir.Scalar{16: kir.I16, 32: kir.I32}[s.Bits()]
		t := g.b.Emit(kir.TruncI, kir.S(bits), raw)
		return g.b.Emit(kir.Bitcast, kir.S(s), t), nil
	}
	return g.b.Emit(kir.TruncI, kir.S(s), raw), nil
}

// topConstant emits a body constant at width w at the top of the kernel
// (once), so loops do not rebuild it every iteration.
func (g *gen) topConstant(op *ir.Operation, w int) (kir.Value, error) {
	key := hoistKey{op.Results[0], w}
	if v, ok := g.hoisted[key]; ok {
		return v, nil
	}
	vals, err := scalarOp(g.b, op, w, nil)
	if err != nil {
		return 0, err
	}
	g.hoisted[key] = vals[0]
	return vals[0], nil
}

// topBroadcast broadcasts a top-level scalar to w lanes at the top of the
// kernel (once).
func (g *gen) topBroadcast(v kir.Value, w int) kir.Value {
	if w <= 1 || g.k.Type(v).IsVector() {
		return v
	}
	key := hoistKey{v, w}
	if r, ok := g.hoisted[key]; ok {
		return r
	}
	r := g.b.Emit(kir.Broadcast, kir.V(g.k.Type(v).Elem, w), v)
	g.hoisted[key] = r
	return r
}
