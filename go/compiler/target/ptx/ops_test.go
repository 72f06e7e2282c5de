package ptx_test

import (
	"fmt"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/targettest"
)

var intTypes = []kir.Scalar{kir.I1, kir.I8, kir.I16, kir.I32, kir.I64}
var floatTypes = []kir.Scalar{kir.F16, kir.BF16, kir.F32, kir.F64}

// typ returns the type of n lanes of s.
func typ(s kir.Scalar, n int) kir.Type {
	if n == 1 {
		return kir.S(s)
	}
	return kir.V(s, n)
}

func intOpsKernel(s kir.Scalar, n int) *kir.Kernel {
	k := targettest.IntOps(s, n, n > 1)
	k.Name = fmt.Sprintf("int_ops_%s_%d", s, n)
	return k
}

func TestIntOps(t *testing.T) {
	for _, s := range intTypes {
		for _, n := range []int{1, 3, 16} {
			emit(t, intOpsKernel(s, n))
		}
	}
}

var floatBinary = []kir.Kind{kir.Add, kir.Sub, kir.Mul, kir.DivF, kir.MinF, kir.MaxF,
	kir.MinNumF, kir.MaxNumF, kir.CopySign}

// floatUnary lists the float unary ops the emitter implements (the
// transcendental ones are mathexp.Expand's).
var floatUnary = []kir.Kind{kir.NegF, kir.AbsF, kir.Sqrt, kir.Rsqrt, kir.Floor, kir.Ceil,
	kir.Round, kir.RoundEven, kir.Trunc}

// floatKernel applies every float op to the n lanes of bindings 0 and 1
// of type s, storing results to binding 2 and predicates to binding 3.
func floatKernel(s kir.Scalar, n int) *kir.Kernel {
	k, b := kir.NewKernel(fmt.Sprintf("float_ops_%s_%d", s, n))
	k.Bindings = []kir.Binding{{Elem: s, Access: kir.Read}, {Elem: s, Access: kir.Read},
		{Elem: s, Access: kir.Write}, {Elem: kir.I1, Access: kir.Write}}
	t := typ(s, n)
	x, y := b.Load(0, t, b.Idx(0)), b.Load(1, t, b.Idx(0))
	out := int64(0)
	put := func(v kir.Value) {
		b.Store(2, b.Idx(out), v)
		out += int64(n)
	}
	for _, kind := range floatBinary {
		put(b.Bin(kind, x, y))
	}
	for _, kind := range floatUnary {
		put(b.Emit(kind, t, x))
	}
	put(b.Emit(kir.FMA, t, x, y, x))
	put(b.Float(t, 0.1))
	pred := int64(0)
	for p := kir.FPredFalse; p <= kir.FPredTrue; p++ {
		c := b.Cmp(kir.CmpF, p, x, y)
		b.Store(3, b.Idx(pred), c)
		pred += int64(n)
		put(b.Select(c, x, y))
	}
	for _, kind := range []kir.Kind{kir.IsNaN, kir.IsInf, kir.IsFinite} {
		b.Store(3, b.Idx(pred), b.Emit(kind, typ(kir.I1, n), x))
		pred += int64(n)
	}
	put(b.Select(b.Cmp(kir.CmpF, kir.FPredOLT, b.EmitImm(kir.Extract, kir.S(s), 0, x), b.EmitImm(kir.Extract, kir.S(s), 0, y)), x, y))
	return k
}

func TestFloatOps(t *testing.T) {
	for _, s := range floatTypes {
		for _, n := range []int{1, 2} {
			emit(t, floatKernel(s, n))
		}
	}
}

// convKernel converts two lanes of binding 0 (from) into binding 1 (to).
func convKernel(kind kir.Kind, from, to kir.Scalar) *kir.Kernel {
	k, b := kir.NewKernel(fmt.Sprintf("%s_%s_%s", kind, from, to))
	k.Bindings = []kir.Binding{{Elem: from, Access: kir.Read}, {Elem: to, Access: kir.Write}}
	x := b.Load(0, kir.V(from, 2), b.Idx(0))
	b.Store(1, b.Idx(0), b.Emit(kind, kir.V(to, 2), x))
	return k
}

// conversions lists every valid (kind, from, to).
func conversions() [][3]int {
	all := append(append([]kir.Scalar{}, intTypes...), floatTypes...)
	var cs [][3]int
	for kind := kir.ExtS; kind <= kir.Bitcast; kind++ {
		for _, from := range all {
			for _, to := range all {
				if kir.CastFits(kind, from, to) {
					cs = append(cs, [3]int{int(kind), int(from), int(to)})
				}
			}
		}
	}
	return cs
}

func TestConversions(t *testing.T) {
	var ks []*kir.Kernel
	for _, c := range conversions() {
		ks = append(ks, convKernel(kir.Kind(c[0]), kir.Scalar(c[1]), kir.Scalar(c[2])))
	}
	// One module holding every conversion, as a real executable holds
	// many entries.
	emit(t, ks...)
}

// vectorKernel exercises Broadcast, Extract, Insert, LaneIota and every
// Reduce kind on n lanes of s.
func vectorKernel(s kir.Scalar, n int) *kir.Kernel {
	k, b := kir.NewKernel(fmt.Sprintf("vector_%s_%d", s, n))
	k.Bindings = []kir.Binding{{Elem: s, Access: kir.Read}, {Elem: s, Access: kir.Write}, {Elem: kir.I64, Access: kir.Write}}
	t := typ(s, n)
	x := b.Load(0, t, b.Idx(0))
	first := b.EmitImm(kir.Extract, kir.S(s), 0, x)
	v := b.Emit(kir.Broadcast, t, first)
	if n > 1 {
		v = b.EmitImm(kir.Insert, t, int64(n-1), v, b.EmitImm(kir.Extract, kir.S(s), int64(n/2), x))
	}
	b.Store(1, b.Idx(0), v)
	b.Store(2, b.Idx(0), b.Emit(kir.LaneIota, kir.V(kir.I64, max(n, 2))))
	out := int64(n)
	kinds := []kir.ReduceKind{kir.ReduceAdd, kir.ReduceMul, kir.ReduceMinF, kir.ReduceMaxF}
	if s.IsInt() {
		kinds = []kir.ReduceKind{kir.ReduceAdd, kir.ReduceMul, kir.ReduceMinS, kir.ReduceMaxS, kir.ReduceMinU,
			kir.ReduceMaxU, kir.ReduceAnd, kir.ReduceOr, kir.ReduceXor}
	}
	for _, r := range kinds {
		b.Store(1, b.Idx(out), b.Reduce(r, x))
		out++
	}
	return k
}

func TestVectors(t *testing.T) {
	for _, s := range append(append([]kir.Scalar{}, intTypes...), floatTypes...) {
		for _, n := range []int{1, 2, 3, 4, 8, 16} {
			emit(t, vectorKernel(s, n))
		}
	}
}

// atomicKernel is targettest's AtomicBits.
func atomicKernel() *kir.Kernel { return targettest.AtomicBits() }
