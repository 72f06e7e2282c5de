package stablehlo

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// ib builds signless integer arithmetic in a generic body.
type ib struct{ bb *ir.Builder }

func (g ib) c(v int64, t ir.Type) *ir.Value { return g.bb.Constant(ir.IntAttr(v, t)) }

func (g ib) op(name string, a, b *ir.Value) *ir.Value {
	return g.bb.Create(name, []*ir.Value{a, b}, []ir.Type{a.Type}).Result(0)
}

func (g ib) add(a, b *ir.Value) *ir.Value { return g.op("arith.addi", a, b) }

func (g ib) xor(a, b *ir.Value) *ir.Value { return g.op("arith.xori", a, b) }

func (g ib) cast(name string, a *ir.Value, t ir.Type) *ir.Value {
	return g.bb.Create(name, []*ir.Value{a}, []ir.Type{t}).Result(0)
}

func (g ib) lo(x *ir.Value) *ir.Value { return g.cast("arith.trunci", x, ir.I32) }

func (g ib) hi(x *ir.Value) *ir.Value {
	return g.lo(g.op("arith.shrui", x, g.c(32, ir.I64)))
}

// fuse is lo | hi << 32 as an i64.
func (g ib) fuse(lo, hi *ir.Value) *ir.Value {
	l := g.cast("arith.extui", lo, ir.I64)
	h := g.op("arith.shli", g.cast("arith.extui", hi, ir.I64), g.c(32, ir.I64))
	return g.op("arith.ori", l, h)
}

func (g ib) rotl(x *ir.Value, k int64) *ir.Value {
	return g.op("arith.ori", g.op("arith.shli", x, g.c(k, ir.I32)), g.op("arith.shrui", x, g.c(32-k, ir.I32)))
}

// signless reinterprets an unsigned or signed integer as signless.
func (g ib) signless(x *ir.Value) *ir.Value {
	if it, ok := x.Type.(*ir.IntegerType); ok && it.Signedness != ir.Signless {
		return g.cast("arith.bitcast", x, &ir.IntegerType{Width: it.Width})
	}
	return x
}

// threeFry is Threefry-2x32 with 20 rounds on the 64-bit counter ctr.
func (g ib) threeFry(k0, k1, ctr *ir.Value) (*ir.Value, *ir.Value) {
	rot := [8]int64{13, 15, 26, 6, 17, 29, 16, 24}
	ks := [3]*ir.Value{k0, k1, g.xor(g.xor(g.c(0x1bd11bda, ir.I32), k0), k1)}
	x0, x1 := g.add(g.lo(ctr), k0), g.add(g.hi(ctr), k1)
	for i := 0; i < 5; i++ {
		for j := 0; j < 4; j++ {
			x0 = g.add(x0, x1)
			x1 = g.xor(x0, g.rotl(x1, rot[(4*i)%8+j]))
		}
		x0 = g.add(x0, ks[(i+1)%3])
		x1 = g.add(g.add(x1, ks[(i+2)%3]), g.c(int64(i+1), ir.I32))
	}
	return x0, x1
}

// philox is Philox-4x32 with 10 rounds on the 64-bit counter ctr; the
// key fills the counter's upper words, as XLA does.
func (g ib) philox(k0, k1, ctr *ir.Value) [4]*ir.Value {
	mulhilo := func(a *ir.Value, m int64) (*ir.Value, *ir.Value) {
		p := g.op("arith.muli", g.cast("arith.extui", a, ir.I64), g.c(m, ir.I64))
		return g.hi(p), g.lo(p)
	}
	x := [4]*ir.Value{g.lo(ctr), g.hi(ctr), k0, k1}
	for round := 0; round < 10; round++ {
		hi0, lo0 := mulhilo(x[0], 0xD2511F53)
		hi1, lo1 := mulhilo(x[2], 0xCD9E8D57)
		x = [4]*ir.Value{g.xor(g.xor(hi1, x[1]), k0), lo1, g.xor(g.xor(hi0, x[3]), k1), lo0}
		k0 = g.add(k0, g.c(int64(int32(-1640531527)), ir.I32)) // 0x9E3779B9
		k1 = g.add(k1, g.c(int64(int32(-1150833019)), ir.I32)) // 0xBB67AE85
	}
	return x
}

// rngState reads the key and the 64-bit counter offset from the state
// tensor (4×i32: keys in words 0, 1 and the offset's high word in 2, low
// in 3; 2×i64 or 3×i64: key in word 0, offset in word 1).
func (g ib) rngState(state *ir.Value) (k0, k1, off *ir.Value) {
	st := state.Type.(*ir.RankedTensorType)
	at := func(i int64) *ir.Value {
		v := g.bb.Create("tensor.extract", []*ir.Value{state, g.c(i, ir.Index)}, []ir.Type{st.Elem}).Result(0)
		return g.signless(v)
	}
	if st.Dims[0] == 4 {
		return at(0), at(1), g.fuse(at(3), at(2))
	}
	k := at(0)
	return g.lo(k), g.hi(k), at(1)
}

// hloRngBitGenerator converts stablehlo.rng_bit_generator.
func (r *rewriter) hloRngBitGenerator(b *ir.Builder, op *ir.Operation) error {
	m := rngAlgRe.FindStringSubmatch(attrText(op, "rng_algorithm"))
	if m == nil || len(op.Operands) != 1 || len(op.Results) != 2 {
		return ir.OpErrorf(op, "needs an rng_algorithm, one state operand and two results")
	}
	state := op.Operands[0]
	st, ok := state.Type.(*ir.RankedTensorType)
	okState := ok && len(st.Dims) == 1 && ((st.Dims[0] == 4 && core.Width(st.Elem) == 32) || ((st.Dims[0] == 2 || st.Dims[0] == 3) && core.Width(st.Elem) == 64))
	if !okState || ir.IsFloat(st.Elem) {
		return ir.OpErrorf(op, "has a state of type %v (gree supports 4xi32, 2xi64 and 3xi64 states)", state.Type)
	}
	rt, ok := op.Results[1].Type.(*ir.RankedTensorType)
	if !ok || !ir.HasStaticShape(rt) {
		return ir.OpErrorf(op, "needs a statically shaped result")
	}
	bits := core.Width(rt.Elem)
	if bits != 8 && bits != 16 && bits != 32 && bits != 64 {
		return ir.OpErrorf(op, "with %v results is not supported by gree", rt.Elem)
	}
	total, _ := ir.NumElements(rt.Dims)
	philox := m[1] != "THREE_FRY"
	var count int64
	// layout maps a result position to its counter and output word.
	var layout func(g ib, pos []*ir.Value) (ctr, word *ir.Value)
	words := func(k int64) func(g ib, pos []*ir.Value) (*ir.Value, *ir.Value) {
		return func(g ib, pos []*ir.Value) (*ir.Value, *ir.Value) {
			lin := g.linear(pos, rt.Dims)
			return g.op("arith.divui", lin, g.c(k, ir.Index)), g.op("arith.remui", lin, g.c(k, ir.Index))
		}
	}
	switch {
	case !philox && bits == 64:
		count, layout = total, words(1)
	case !philox:
		count, layout = threeFryLayout(rt.Dims)
	case bits == 64:
		count, layout = (total+1)/2, words(2)
	default:
		count, layout = (total+3)/4, words(4)
	}
	n := len(rt.Dims)
	intT := &ir.IntegerType{Width: bits}
	out := b.Create("tensor.empty", nil, []ir.Type{rt}).Result(0)
	gen := linalg.BuildGeneric(b, nil, []*ir.Value{out}, []*ir.AffineMap{linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
		g := ib{bb}
		var pos []*ir.Value
		for d := 0; d < n; d++ {
			pos = append(pos, core.LoopIndex(bb, d))
		}
		k0, k1, off := g.rngState(state)
		ci, word := layout(g, pos)
		ctr := g.add(g.cast("arith.index_cast", ci, ir.I64), off)
		pick := func(vals []*ir.Value) *ir.Value { // vals[word]
			v := vals[len(vals)-1]
			for i := len(vals) - 2; i >= 0; i-- {
				is := core.CmpI(bb, core.PredEQ, word, g.c(int64(i), ir.Index))
				v = bb.Create("arith.select", []*ir.Value{is, vals[i], v}, []ir.Type{vals[i].Type}).Result(0)
			}
			return v
		}
		var v *ir.Value
		switch {
		case !philox:
			x0, x1 := g.threeFry(k0, k1, ctr)
			if bits == 64 {
				v = g.fuse(x0, x1)
			} else {
				v = pick([]*ir.Value{x0, x1})
			}
		case bits == 64:
			x := g.philox(k0, k1, ctr)
			v = pick([]*ir.Value{g.fuse(x[0], x[1]), g.fuse(x[2], x[3])})
		default:
			x := g.philox(k0, k1, ctr)
			v = pick(x[:])
		}
		if bits < 32 {
			v = g.cast("arith.trunci", v, intT)
		}
		if !ir.TypesEqual(v.Type, rt.Elem) {
			v = g.cast("arith.bitcast", v, rt.Elem)
		}
		return []*ir.Value{v}
	})
	// The new state: the offset advanced by the counters used.
	sout := b.Create("tensor.empty", nil, []ir.Type{st}).Result(0)
	ns := linalg.BuildGeneric(b, nil, []*ir.Value{sout}, []*ir.AffineMap{linalg.Identity(1)}, core.Parallel(1), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
		g := ib{bb}
		j := core.LoopIndex(bb, 0)
		_, _, off := g.rngState(state)
		next := g.add(off, g.c(count, ir.I64))
		old := g.signless(bb.Create("tensor.extract", []*ir.Value{state, j}, []ir.Type{st.Elem}).Result(0))
		is := func(i int64) *ir.Value { return core.CmpI(bb, core.PredEQ, j, g.c(i, ir.Index)) }
		sel := func(c, a, x *ir.Value) *ir.Value {
			return bb.Create("arith.select", []*ir.Value{c, a, x}, []ir.Type{a.Type}).Result(0)
		}
		var v *ir.Value
		if st.Dims[0] == 4 {
			v = sel(is(2), g.lo(next), sel(is(3), g.hi(next), old))
		} else {
			v = sel(is(1), next, old)
		}
		if !ir.TypesEqual(v.Type, st.Elem) {
			v = g.cast("arith.bitcast", v, st.Elem)
		}
		return []*ir.Value{v}
	})
	r.Replace(op, []*ir.Value{ns.Result(0), gen.Result(0)})
	return nil
}

// linear is the row-major position of pos in a tensor of shape dims.
func (g ib) linear(pos []*ir.Value, dims []int64) *ir.Value {
	lin := g.c(0, ir.Index)
	for d, p := range pos {
		lin = g.add(g.op("arith.muli", lin, g.c(dims[d], ir.Index)), p)
	}
	return lin
}

// threeFryLayout is XLA's arrangement of 32-bit ThreeFry outputs: one
// dimension h (the first even one, else the largest) is halved, a unit
// dimension is appended when h is last, the two output words are
// concatenated along h+1, that is reshaped to the result's shape with h
// rounded up to even, and sliced to the result. It returns the number of
// counters and the map from a result position to its counter and word.
func threeFryLayout(dims []int64) (int64, func(g ib, pos []*ir.Value) (*ir.Value, *ir.Value)) {
	total, _ := ir.NumElements(dims)
	if len(dims) == 0 || total == 1 {
		return 1, func(g ib, pos []*ir.Value) (*ir.Value, *ir.Value) { return g.c(0, ir.Index), g.c(0, ir.Index) }
	}
	h := 0
	for i, d := range dims {
		if d > dims[h] {
			h = i
		}
	}
	for i, d := range dims {
		if d%2 == 0 {
			h = i
			break
		}
	}
	half := append([]int64{}, dims...)
	half[h] = (half[h] + 1) / 2
	if h == len(half)-1 {
		half = append(half, 1)
	}
	count, _ := ir.NumElements(half)
	cat := append([]int64{}, half...)
	cat[h+1] *= 2
	padded := append([]int64{}, dims...)
	padded[h] += padded[h] & 1
	return count, func(g ib, pos []*ir.Value) (*ir.Value, *ir.Value) {
		lin := g.linear(pos, padded)
		c := make([]*ir.Value, len(cat))
		for k := len(cat) - 1; k >= 0; k-- {
			c[k] = g.op("arith.remui", lin, g.c(cat[k], ir.Index))
			lin = g.op("arith.divui", lin, g.c(cat[k], ir.Index))
		}
		second := core.CmpI(g.bb, core.PredSGE, c[h+1], g.c(half[h+1], ir.Index))
		shifted := g.op("arith.subi", c[h+1], g.c(half[h+1], ir.Index))
		c[h+1] = g.bb.Create("arith.select", []*ir.Value{second, shifted, c[h+1]}, []ir.Type{ir.Index}).Result(0)
		word := g.bb.Create("arith.select", []*ir.Value{second, g.c(1, ir.Index), g.c(0, ir.Index)}, []ir.Type{ir.Index}).Result(0)
		return g.linear(c, half), word
	}
}
