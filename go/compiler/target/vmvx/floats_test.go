package vmvx_test

import (
	"math/rand/v2"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
)

var floatUnaryKinds = []kir.Kind{kir.NegF, kir.AbsF, kir.Sqrt, kir.Rsqrt, kir.Cbrt, kir.Exp, kir.Exp2,
	kir.Expm1, kir.Log, kir.Log2, kir.Log10, kir.Log1p, kir.Sin, kir.Cos, kir.Tan, kir.Sinh,
	kir.Cosh, kir.Tanh, kir.Asin, kir.Acos, kir.Atan, kir.Asinh, kir.Acosh, kir.Atanh, kir.Erf,
	kir.Erfc, kir.Floor, kir.Ceil, kir.Round, kir.RoundEven, kir.Trunc}

var floatBinaryKinds = []kir.Kind{kir.Add, kir.Sub, kir.Mul, kir.DivF, kir.RemF, kir.MinF, kir.MaxF,
	kir.MinNumF, kir.MaxNumF, kir.PowF, kir.Atan2, kir.CopySign}

// floatOps applies every float op to the n lanes of a and b; results go
// one block of n per op; classes and comparisons go to the i1 binding.
func floatOps(elem kir.Scalar, n int) *kir.Kernel {
	k, b := kir.NewKernel("float_ops")
	k.Bindings = []kir.Binding{{Elem: elem, Access: kir.Read}, {Elem: elem, Access: kir.Read},
		{Elem: elem, Access: kir.Write}, {Elem: kir.I1, Access: kir.Write}}
	t := kir.V(elem, n)
	zero := b.Idx(0)
	x, y := b.Load(0, t, zero), b.Load(1, t, zero)
	slot := 0
	out := func(v kir.Value) {
		b.Store(2, b.Idx(int64(slot*n)), v)
		slot++
	}
	for _, kind := range floatUnaryKinds {
		out(b.Emit(kind, t, x))
	}
	for _, kind := range floatBinaryKinds {
		out(b.Bin(kind, x, y))
	}
	out(b.Emit(kir.FMA, t, x, y, b.Bin(kir.Mul, y, y)))
	out(b.Float(t, 0.1))
	bits := 0
	flag := func(v kir.Value) {
		b.Store(3, b.Idx(int64(bits*n)), v)
		bits++
	}
	for _, kind := range []kir.Kind{kir.IsNaN, kir.IsInf, kir.IsFinite} {
		flag(b.Emit(kind, kir.V(kir.I1, n), x))
	}
	for p := kir.FPredFalse; p <= kir.FPredTrue; p++ {
		flag(b.Cmp(kir.CmpF, p, x, y))
	}
	return k
}

func TestFloatOps(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	nops := len(floatUnaryKinds) + len(floatBinaryKinds) + 2
	for _, e := range []kir.Scalar{kir.F32, kir.F64, kir.F16, kir.BF16} {
		n := 48
		a, bb := bufOf(e, r, n), bufOf(e, r, n)
		if e == kir.F32 {
			xs := randF32(r, n, 2)
			copy(xs[24:], specialF32)
			bb = f32s(xs...)
		}
		diff(t, floatOps(e, n), [3]int64{1, 1, 1}, nil, [][]byte{a, bb, make([]byte, nops*n*e.ByteSize()), make([]byte, 19*n)})
	}
}

// TestVectorOps covers broadcast, extract, insert, iota and select with a
// vector condition.
func TestVectorOps(t *testing.T) {
	for _, e := range []kir.Scalar{kir.I8, kir.I32, kir.I64, kir.F16, kir.F32, kir.F64, kir.I1} {
		k, b := kir.NewKernel("vector_ops")
		k.Bindings = []kir.Binding{{Elem: e, Access: kir.Read}, {Elem: e, Access: kir.Write}}
		const n = 16
		vt := kir.V(e, n)
		zero := b.Idx(0)
		x := b.Load(0, vt, zero)
		s := b.Load(0, kir.S(e), b.Idx(3))
		bc := b.Emit(kir.Broadcast, vt, s)
		ex := b.EmitImm(kir.Extract, kir.S(e), 5, x)
		ins := b.EmitImm(kir.Insert, vt, 2, x, ex)
		iota := b.Emit(kir.LaneIota, kir.V(kir.I64, n))
		odd := b.Cmp(kir.CmpI, kir.PredEQ, b.Bin(kir.And, iota, b.Int(kir.V(kir.I64, n), 1)), b.Int(kir.V(kir.I64, n), 1))
		sel := b.Select(odd, ins, bc)
		b.Store(1, zero, sel)
		b.Store(1, b.Idx(n), bc)
		if e.IsInt() {
			b.Store(1, b.Idx(2*n), b.Emit(kir.LaneIota, vt))
		} else {
			b.Store(1, b.Idx(2*n), x)
		}
		r := rand.New(rand.NewPCG(13, uint64(e)))
		diff(t, k, [3]int64{1, 1, 1}, nil, [][]byte{bufOf(e, r, n), make([]byte, 3*n*e.ByteSize())})
	}
}

// TestStrided transposes a rows×cols matrix: workgroup j gathers column j
// with a strided load and scatters it back transposed with a strided
// store, and also writes it contiguously.
func TestStrided(t *testing.T) {
	const rows, cols = 9, 5
	for _, e := range []kir.Scalar{kir.F32, kir.I8, kir.F16, kir.I1, kir.F64} {
		k, b := kir.NewKernel("transpose")
		k.Bindings = []kir.Binding{{Elem: e, Access: kir.Read}, {Elem: e, Access: kir.Write}, {Elem: e, Access: kir.Write}}
		j := b.Query(kir.WorkgroupID, 0)
		col := b.LoadStrided(0, kir.V(e, rows), j, b.Idx(cols))
		b.Store(1, b.Bin(kir.Mul, j, b.Idx(rows)), col)
		// Reverse the column into out2 with a negative stride.
		last := b.Bin(kir.Add, b.Bin(kir.Mul, j, b.Idx(rows)), b.Idx(rows-1))
		b.StoreStrided(2, last, b.Idx(-1), col)
		r := rand.New(rand.NewPCG(14, uint64(e)))
		sz := e.ByteSize()
		diff(t, k, [3]int64{cols, 1, 1}, nil, [][]byte{bufOf(e, r, rows*cols), make([]byte, rows*cols*sz), make([]byte, rows*cols*sz)})
	}
}
