package mathexp

// Expand's structural tests: vectors expand lane-wise (bit for bit
// the scalar expansion), kernels without math ops are left alone, the
// pass is idempotent, big trigonometric arguments stay in range, small
// integral powers are exact (where representable), and a math op on a non-float type is an
// INTERNAL error.

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/status"
)

func TestExpandMathVectors(t *testing.T) {
	kinds := append(append([]kir.Kind{}, mathUnaryKinds...), mathBinaryKinds...)
	for _, s := range mathFloatTypes {
		for _, kind := range kinds {
			r := rand.New(rand.NewPCG(uint64(kind), 99))
			var xs, ys []float64
			if kir.IsFloatBinary(kind) {
				xs, ys = binaryInputs(kind, s, 128, r)
				xs, ys = xs[len(xs)-128:], ys[len(ys)-128:]
			} else {
				xs = inputs(kind, s, 128, r)
				ys = make([]float64, len(xs))
			}
			n := len(xs) / 4 * 4
			xs, ys = xs[:n], ys[:n]
			_, scalar, _ := runMath(t, kind, s, 1, xs, ys)
			want, vec, _ := runMath(t, kind, s, 4, xs, ys)
			for i := range vec {
				if math.Float64bits(vec[i]) != math.Float64bits(scalar[i]) && !(math.IsNaN(vec[i]) && math.IsNaN(scalar[i])) {
					t.Errorf("%s %s lane %d of %v: vector %v, scalar %v", s, kind, i%4, xs[i], vec[i], scalar[i])
				}
			}
			checkResults(t, kind, s, xs, ys, want, vec)
		}
	}
}

// plainKernel has float and integer arithmetic but no math ops.
func plainKernel() *kir.Kernel {
	k, b := kir.NewKernel("plain")
	k.Bindings = []kir.Binding{{Elem: kir.F32, Access: kir.Read}, {Elem: kir.F32, Access: kir.Read}, {Elem: kir.F32, Access: kir.Write}}
	t := kir.V(kir.F32, 4)
	b.For(b.Idx(0), b.Idx(8), b.Idx(4), nil, func(b *kir.Builder, i kir.Value, _ []kir.Value) []kir.Value {
		x := b.Load(0, t, i)
		y := b.Emit(kir.Sqrt, t, b.Emit(kir.AbsF, t, x))
		z := b.Emit(kir.FMA, t, x, y, b.Emit(kir.Floor, t, x))
		b.Store(2, i, b.Bin(kir.Add, z, b.Bin(kir.DivF, y, x)))
		return nil
	})
	return k
}

func TestExpandMathLeavesPlainKernels(t *testing.T) {
	k := plainKernel()
	before, types := k.String(), len(k.Types)
	if err := Expand(k); err != nil {
		t.Fatal(err)
	}
	if k.String() != before || len(k.Types) != types {
		t.Errorf("kernel changed:\n%s\nwas:\n%s", k, before)
	}
}

func TestExpandMathIdempotent(t *testing.T) {
	k := mathKernel(kir.Erfc, kir.F32, 4, 2)
	if err := Expand(k); err != nil {
		t.Fatal(err)
	}
	once, types := k.String(), len(k.Types)
	if err := Expand(k); err != nil {
		t.Fatal(err)
	}
	if k.String() != once || len(k.Types) != types {
		t.Error("a second Expand changed the kernel")
	}
}

func TestExpandMathBigTrigArguments(t *testing.T) {
	for _, s := range []kir.Scalar{kir.F32, kir.F64} {
		xs := []float64{2e4, 1e5, 3e7, 1e20, 1e38, 3.4e38}
		if s == kir.F64 {
			xs = append(xs, 2e6, 1e100, 1e300, math.MaxFloat64)
		}
		for _, x := range append([]float64{}, xs...) {
			xs = append(xs, -x)
		}
		for _, kind := range []kir.Kind{kir.Sin, kir.Cos, kir.Tan} {
			_, got, _ := runMath(t, kind, s, 1, xs, make([]float64, len(xs)))
			for i, g := range got {
				if math.IsNaN(g) || math.IsInf(g, 0) || kind != kir.Tan && math.Abs(g) > 1 {
					t.Errorf("%s %s(%v) = %v, want a finite value (in [-1, 1])", s, kind, xs[i], g)
				}
			}
		}
	}
}

func TestExpandMathPowIntegralExact(t *testing.T) {
	var xs, ys []float64
	for _, x := range []float64{2, 3, -3, 5, 7, 10, -11, 0.5, 1.5, 1.25} {
		for _, y := range []float64{2, 3, 4, 5, 6, 7, 9, 12, 15, -1, -2, -3} {
			xs, ys = append(xs, x), append(ys, y)
		}
	}
	for _, s := range []kir.Scalar{kir.F32, kir.F64} {
		_, got, _ := runMath(t, kir.PowF, s, 1, xs, ys)
		for i := range xs {
			// x^|y| exactly, then inverted and rounded once
			p := new(big.Float).SetPrec(2000).SetFloat64(1)
			for j := 0; j < int(math.Abs(ys[i])); j++ {
				p.Mul(p, big.NewFloat(xs[i]))
			}
			if ys[i] < 0 {
				p.Quo(new(big.Float).SetPrec(2000).SetFloat64(1), p)
			}
			want, acc := p.Float64()
			if s == kir.F32 {
				w, a := p.Float32()
				want, acc = float64(w), a
			}
			// exact where the power is representable, else within 1 ULP
			if d := ulpDiff(s, got[i], want); d > 0 && acc == big.Exact || d > 1 {
				t.Errorf("%s pow(%v, %v) = %v, want %v", s, xs[i], ys[i], got[i], want)
			}
		}
	}
}

func TestExpandMathRejectsIntegerOps(t *testing.T) {
	k, b := kir.NewKernel("bad")
	x := b.Int(kir.S(kir.I32), 3)
	b.Emit(kir.Exp, kir.S(kir.I32), x)
	if err := Expand(k); status.CodeOf(err) != status.Internal {
		t.Errorf("Expand of an i32 exp: %v, want INTERNAL", err)
	}
}
