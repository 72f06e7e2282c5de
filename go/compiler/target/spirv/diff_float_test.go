package spirv_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/targettest"
)

var specialX = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 2.5, -2.5, 1e-3, 100, -7.25, math.Inf(1), math.Inf(-1), math.NaN(), 3.14159, 1e30, 0.75}
var specialY = []float64{2, -3, 0.5, 0, math.Copysign(0, -1), math.Inf(1), 1, 1.5, math.NaN(), -1e-3, 7, 0.3, 2, math.Inf(-1), 1e-30, 4}

// floatInputs returns the special values and then random ones of varied
// magnitudes, n in all.
func floatInputs(n int, seed uint64, special []float64) []float64 {
	r := rand.New(rand.NewPCG(seed, 1))
	xs := append([]float64(nil), special...)
	for len(xs) < n {
		x := (r.Float64()*2 - 1) * math.Pow(10, float64(r.IntN(7)-3))
		xs = append(xs, x)
	}
	return xs[:n]
}

// mathTolerance is the accuracy, in ULPs of the compute type, allowed
// for each op (0: exact).
func mathTolerance(k kir.Kind, s kir.Scalar) float64 {
	switch k {
	case kir.Add, kir.Sub, kir.Mul, kir.DivF, kir.RemF, kir.MinF, kir.MaxF, kir.MinNumF, kir.MaxNumF,
		kir.CopySign, kir.NegF, kir.AbsF, kir.Floor, kir.Ceil, kir.Round, kir.RoundEven, kir.Trunc:
		return 0
	case kir.FMA: // GLSL's Fma need not be fused (lavapipe's is not)
		return 1
	case kir.PowF:
		if s == kir.F64 { // e^(y·log x) in f64: the error grows with |y·log x|
			return 256
		}
	case kir.Sqrt, kir.Rsqrt:
		if s == kir.F64 || s == kir.F32 {
			return 1
		}
		return 0
	}
	if s == kir.F16 || s == kir.BF16 {
		return 1
	}
	return 4
}

// mathKernel applies ops to element w of binding 0 (and 1 for binary
// ops) in workgroup w, storing op j's result at element j·count+w of
// binding 2.
func mathKernel(s kir.Scalar, count int, ops []kir.Kind) *kir.Kernel {
	k, b := kir.NewKernel(fmt.Sprintf("math_%s", s))
	k.Bindings = []kir.Binding{{Elem: s, Access: kir.Read}, {Elem: s, Access: kir.Read}, {Elem: s, Access: kir.Write}}
	t := kir.S(s)
	w := b.Query(kir.WorkgroupID, 0)
	x, y := b.Load(0, t, w), b.Load(1, t, w)
	for j, op := range ops {
		var r kir.Value
		switch {
		case op == kir.FMA:
			r = b.Emit(op, t, x, y, x)
		case kir.IsFloatBinary(op) || op == kir.Add || op == kir.Sub || op == kir.Mul:
			r = b.Bin(op, x, y)
		default:
			r = b.Emit(op, t, x)
		}
		b.Store(2, b.Bin(kir.Add, w, b.Idx(int64(j*count))), r)
	}
	return k
}

func TestRunFloatOps(t *testing.T) {
	ops := append(append([]kir.Kind{kir.Add, kir.Sub, kir.Mul}, floatBinary...), floatUnary()...)
	ops = append(ops, kir.FMA)
	const n = 64
	for _, s := range floatTypes {
		k := mathKernel(s, n, ops)
		xs, ys := floatInputs(n, 1, specialX), floatInputs(n, 2, specialY)
		in := [][]byte{targettest.EncFloats(s, xs), targettest.EncFloats(s, ys), make([]byte, len(ops)*n*s.ByteSize())}
		want, got := runBoth(t, k, [3]int64{n, 1, 1}, nil, in)
		worst := make([]float64, len(ops))
		compare(t, k, want, got, func(b, i int) float64 {
			if b != 2 {
				return 0
			}
			op := ops[i/n]
			x, _ := elem(in[0], s, i%n)
			if (op == kir.Sin || op == kir.Cos || op == kir.Tan) && math.Abs(x) > 6000 {
				return math.Inf(1) // beyond the exact argument reduction
			}
			wf, _ := elem(want.bufs[2], s, i)
			gf, _ := elem(got.bufs[2], s, i)
			worst[i/n] = max(worst[i/n], ulps(s, gf, wf))
			return mathTolerance(op, s)
		})
		for j, op := range ops {
			if worst[j] > 0 {
				t.Logf("%s %s: %.1f ulp", s, op, worst[j])
			}
		}
	}
}

// TestPowIntegerExponentsExact checks that pow with a small integral
// exponent is exact where the result is representable (3^6 = 729, not
// 728.99…, which an integer conversion would cut to 728: ONNX's integer
// Pow computes through f64 this way), in every float width.
func TestPowIntegerExponentsExact(t *testing.T) {
	var xs, ys []float64
	for _, x := range []float64{2, 3, -3, 5, 7, 10, -11, 0.5, 1.5} {
		for _, y := range []float64{2, 3, 4, 5, 6, 7, 9, -2, -3, 12, 15} {
			xs, ys = append(xs, x), append(ys, y)
		}
	}
	n := len(xs)
	for _, s := range floatTypes {
		k := mathKernel(s, n, []kir.Kind{kir.PowF})
		in := [][]byte{targettest.EncFloats(s, xs), targettest.EncFloats(s, ys), make([]byte, n*s.ByteSize())}
		_, got := runBoth(t, k, [3]int64{int64(n), 1, 1}, nil, in)
		for i := range n {
			g, _ := elem(got.bufs[2], s, i)
			w, _ := elem(targettest.EncFloats(s, []float64{math.Pow(xs[i], ys[i])}), s, 0)
			if g != w && !(math.IsInf(g, 0) && math.IsInf(w, 0)) {
				t.Errorf("%s: pow(%g, %g) = %v, want %v", s, xs[i], ys[i], g, w)
			}
		}
	}
}
