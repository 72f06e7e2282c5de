package spirv_test

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

func TestIntOps(t *testing.T) {
	for _, s := range intTypes {
		for _, n := range []int{1, 3, 16} {
			k := targettest.IntOps(s, n, n > 1)
			k.Name = fmt.Sprintf("int_ops_%s_%d", s, n)
			emit(t, k)
		}
	}
}

var floatBinary = []kir.Kind{kir.Add, kir.Sub, kir.Mul, kir.DivF, kir.RemF, kir.MinF, kir.MaxF,
	kir.MinNumF, kir.MaxNumF, kir.PowF, kir.Atan2, kir.CopySign}

// floatUnary lists every float unary op.
func floatUnary() []kir.Kind {
	var ks []kir.Kind
	for k := kir.NegF; k <= kir.Trunc; k++ {
		if k != kir.AbsI {
			ks = append(ks, k)
		}
	}
	return ks
}

// floatKernel applies every float op to the n lanes of bindings 0 and 1
// of type s, storing results to binding 2 and predicates to binding 3.
func floatKernel(s kir.Scalar, n int, unary []kir.Kind) *kir.Kernel {
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
	for _, kind := range unary {
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
			emit(t, floatKernel(s, n, floatUnary()))
		}
	}
}

func TestFloatOpsOneByOne(t *testing.T) {
	for _, kind := range floatUnary() {
		emit(t, floatKernel(kir.F32, 1, []kir.Kind{kind}))
	}
}

func TestConversions(t *testing.T) {
	all := append(append([]kir.Scalar{}, intTypes...), floatTypes...)
	for kind := kir.ExtS; kind <= kir.Bitcast; kind++ {
		for _, from := range all {
			for _, to := range all {
				if !kir.CastFits(kind, from, to) {
					continue
				}
				k, b := kir.NewKernel(fmt.Sprintf("%s_%s_%s", kind, from, to))
				k.Bindings = []kir.Binding{{Elem: from, Access: kir.Read}, {Elem: to, Access: kir.Write}}
				x := b.Load(0, kir.V(from, 2), b.Idx(0))
				b.Store(1, b.Idx(0), b.Emit(kind, kir.V(to, 2), x))
				emit(t, k)
			}
		}
	}
}
