package stablehlo

import (
	"math"
	"regexp"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// stablehlo.rng and stablehlo.rng_bit_generator, with the bits IREE
// produces (its e2e tests pin them):
//
//   - rng UNIFORM: a linear congruential hash of the element's indices
//     (seed 0, ×1103515245 + 12345 per dimension, in i32) scaled into
//     [a, b) by (b - a)·2.3283064e-10;
//   - rng NORMAL: Box–Muller on uniform pairs drawn at compile time from
//     a Mersenne Twister (mt19937, seed 0, 53-bit canonical doubles), the
//     first half of the elements the cosine branch, the second the sine;
//   - rng_bit_generator: counter-based ThreeFry-2x32 (20 rounds) and
//     Philox-4x32 (10 rounds) keyed and offset by the state, laid out as
//     XLA lays them out, and the state advanced by the counters used.

var (
	rngDistRe = regexp.MustCompile(`rng_distribution\s+(UNIFORM|NORMAL)`)
	rngAlgRe  = regexp.MustCompile(`rng_algorithm\s+(DEFAULT|THREE_FRY|PHILOX)`)
)

// hloRng converts stablehlo.rng.
func (r *rewriter) hloRng(b *ir.Builder, op *ir.Operation, rt *ir.RankedTensorType) error {
	m := rngDistRe.FindStringSubmatch(attrText(op, "rng_distribution"))
	ft, ok := rt.Elem.(*ir.FloatType)
	if m == nil || len(op.Operands) != 3 {
		return ir.OpErrorf(op, "needs an rng_distribution (UNIFORM or NORMAL) and three operands")
	}
	if !ok {
		return ir.OpErrorf(op, "with %v results is not supported by gree yet (float results only)", rt.Elem)
	}
	for _, v := range op.Operands[:2] {
		if t, ok := v.Type.(*ir.RankedTensorType); !ok || len(t.Dims) != 0 {
			return ir.OpErrorf(op, "needs rank-0 distribution parameters")
		}
	}
	n := len(rt.Dims)
	if m[1] == "NORMAL" {
		return r.rngNormal(b, op, rt, ft)
	}
	out := b.Create("tensor.empty", nil, []ir.Type{rt}).Result(0)
	scalar := &ir.AffineMap{NumDims: n}
	g := linalg.BuildGeneric(b, op.Operands[:2], []*ir.Value{out}, []*ir.AffineMap{scalar, scalar, linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		i32 := func(v int64) *ir.Value { return bb.Constant(ir.IntAttr(v, ir.I32)) }
		h := i32(0)
		for d := 0; d < n; d++ {
			i := bb.Create("arith.index_cast", []*ir.Value{core.LoopIndex(bb, d)}, []ir.Type{ir.I32}).Result(0)
			h = core.BinOp(bb, "arith.addi", core.BinOp(bb, "arith.muli", core.BinOp(bb, "arith.addi", i, h), i32(1103515245)), i32(12345))
		}
		f := fb{bb, ft}
		scale := f.mul(f.sub(args[1], args[0]), f.c(2.3283064e-10))
		u := bb.Create("arith.uitofp", []*ir.Value{h}, []ir.Type{ft}).Result(0)
		return []*ir.Value{f.add(f.mul(u, scale), args[0])}
	})
	r.Replace(op, g.Results)
	return nil
}

// rngNormal is Box–Muller over compile-time uniforms: with k = ⌈N/2⌉
// pairs (u1, u2), element i < k is σ·√(-2 ln u1_i)·cos(2π u2_i) + μ and
// element k + i the same with sin.
func (r *rewriter) rngNormal(b *ir.Builder, op *ir.Operation, rt *ir.RankedTensorType, ft *ir.FloatType) error {
	total, ok := ir.NumElements(rt.Dims)
	if !ok {
		return ir.OpErrorf(op, "needs a static result shape")
	}
	half := (total + 1) / 2
	mag, cs, sn := make([]float64, half), make([]float64, half), make([]float64, half)
	mt := newMT19937(0)
	const eps = float64(float32(1.1920929e-07))
	const twoPi = float32(2 * math.Pi)
	for i := int64(0); i < half; i++ {
		var u1, u2 float32
		for {
			u1, u2 = float32(mt.canonical()), float32(mt.canonical())
			if float64(u1) > eps {
				break
			}
		}
		mag[i] = float64(float32(-2.0 * math.Log(float64(u1))))
		a := float64(twoPi * u2)
		cs[i], sn[i] = float64(float32(math.Cos(a))), float64(float32(math.Sin(a)))
	}
	table := func(v []float64) *ir.Value {
		return b.Constant(&ir.DenseElementsAttr{Type: ir.Tensor([]int64{half}, ft), Floats: v})
	}
	magT, cosT, sinT := table(mag), table(cs), table(sn)
	n := len(rt.Dims)
	out := b.Create("tensor.empty", nil, []ir.Type{rt}).Result(0)
	scalar := &ir.AffineMap{NumDims: n}
	g := linalg.BuildGeneric(b, op.Operands[:2], []*ir.Value{out}, []*ir.AffineMap{scalar, scalar, linalg.Identity(n)}, core.Parallel(n), func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		c := func(v int64) *ir.Value { return bb.Constant(ir.IntAttr(v, ir.Index)) }
		lin := c(0)
		for d := 0; d < n; d++ {
			lin = core.BinOp(bb, "arith.addi", core.BinOp(bb, "arith.muli", lin, c(rt.Dims[d])), core.LoopIndex(bb, d))
		}
		second := core.CmpI(bb, core.PredSGE, lin, c(half))
		k := bb.Create("arith.select", []*ir.Value{second, core.BinOp(bb, "arith.subi", lin, c(half)), lin}, []ir.Type{ir.Index}).Result(0)
		ext := func(t *ir.Value) *ir.Value {
			return bb.Create("tensor.extract", []*ir.Value{t, k}, []ir.Type{ft}).Result(0)
		}
		f := fb{bb, ft}
		m := f.mul(args[1], f.math("sqrt", ext(magT)))
		return []*ir.Value{f.add(f.mul(m, f.sel(second, ext(sinT), ext(cosT))), args[0])}
	})
	r.Replace(op, g.Results)
	return nil
}

// mt19937 is the 32-bit Mersenne Twister (Matsumoto and Nishimura 1998).
type mt19937 struct {
	s [624]uint32
	i int
}

func newMT19937(seed uint32) *mt19937 {
	m := &mt19937{i: 624}
	m.s[0] = seed
	for i := 1; i < 624; i++ {
		m.s[i] = 1812433253*(m.s[i-1]^(m.s[i-1]>>30)) + uint32(i)
	}
	return m
}

func (m *mt19937) next() uint32 {
	if m.i >= 624 {
		for k := 0; k < 624; k++ {
			y := m.s[k]&0x80000000 | m.s[(k+1)%624]&0x7fffffff
			v := m.s[(k+397)%624] ^ y>>1
			if y&1 != 0 {
				v ^= 0x9908b0df
			}
			m.s[k] = v
		}
		m.i = 0
	}
	y := m.s[m.i]
	m.i++
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	return y ^ y>>18
}

// canonical is a double in [0, 1) from two draws (low word first), as
// C++'s generate_canonical<double, 53> makes it.
func (m *mt19937) canonical() float64 {
	lo := float64(m.next())
	hi := float64(m.next())
	v := (lo + hi*4294967296) / 18446744073709551616
	if v >= 1 {
		v = math.Nextafter(1, 0)
	}
	return v
}
