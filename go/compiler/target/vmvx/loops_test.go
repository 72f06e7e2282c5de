package vmvx_test

import (
	"math/rand/v2"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// rowReduce: workgroup r reduces row r of a rows×cols matrix (cols in pc0)
// with vector iter args and a scalar remainder, storing sum, max, min.
func rowReduce(elem kir.Scalar, width int, kinds [3]kir.ReduceKind) *kir.Kernel {
	k, b := kir.NewKernel("row_reduce")
	k.Bindings = []kir.Binding{{Elem: elem, Access: kir.Read}, {Elem: elem, Access: kir.Write}}
	k.NumPushConstants = 1
	cols := b.Query(kir.PushConstant, 0)
	row := b.Query(kir.WorkgroupID, 0)
	base := b.Bin(kir.Mul, row, cols)
	w := b.Idx(int64(width))
	vcols := b.Bin(kir.Mul, b.Bin(kir.DivS, cols, w), w)
	vt, st := kir.V(elem, width), kir.S(elem)
	first := b.Load(0, vt, base)
	combine := func(b *kir.Builder, kind kir.ReduceKind, acc, x kir.Value) kir.Value {
		switch kind {
		case kir.ReduceAdd:
			return b.Bin(kir.Add, acc, x)
		case kir.ReduceMul:
			return b.Bin(kir.Mul, acc, x)
		case kir.ReduceMaxF:
			return b.Bin(kir.MaxF, acc, x)
		case kir.ReduceMinF:
			return b.Bin(kir.MinF, acc, x)
		case kir.ReduceMaxS:
			return b.Bin(kir.MaxS, acc, x)
		case kir.ReduceMinU:
			return b.Bin(kir.MinU, acc, x)
		case kir.ReduceXor:
			return b.Bin(kir.Xor, acc, x)
		}
		return b.Bin(kir.Or, acc, x)
	}
	accs := b.For(w, vcols, w, []kir.Value{first, first, first}, func(b *kir.Builder, i kir.Value, it []kir.Value) []kir.Value {
		x := b.Load(0, vt, b.Bin(kir.Add, base, i))
		out := make([]kir.Value, 3)
		for j, kind := range kinds {
			out[j] = combine(b, kind, it[j], x)
		}
		return out
	})
	inits := make([]kir.Value, 3)
	for j, kind := range kinds {
		inits[j] = b.Reduce(kind, accs[j])
	}
	res := b.For(vcols, cols, b.Idx(1), inits, func(b *kir.Builder, i kir.Value, it []kir.Value) []kir.Value {
		x := b.Load(0, st, b.Bin(kir.Add, base, i))
		out := make([]kir.Value, 3)
		for j, kind := range kinds {
			out[j] = combine(b, kind, it[j], x)
		}
		return out
	})
	for j := range res {
		b.Store(1, b.Bin(kir.Add, b.Bin(kir.Mul, row, b.Idx(3)), b.Idx(int64(j))), res[j])
	}
	return k
}

func TestRowReduce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	rows, cols := 5, 37
	a := randF32(r, rows*cols, 3)
	k := rowReduce(kir.F32, 8, [3]kir.ReduceKind{kir.ReduceAdd, kir.ReduceMaxF, kir.ReduceMinF})
	diff(t, k, [3]int64{int64(rows), 1, 1}, []int64{int64(cols)}, [][]byte{f32s(a...), make([]byte, 4*3*rows)})
	a[40] = float32(nan())
	diff(t, k, [3]int64{int64(rows), 1, 1}, []int64{int64(cols)}, [][]byte{f32s(a...), make([]byte, 4*3*rows)})

	ki := rowReduce(kir.I32, 4, [3]kir.ReduceKind{kir.ReduceXor, kir.ReduceMaxS, kir.ReduceMinU})
	xs := make([]int32, rows*cols)
	for i := range xs {
		xs[i] = int32(r.Uint32())
	}
	diff(t, ki, [3]int64{int64(rows), 1, 1}, []int64{int64(cols)}, [][]byte{i32s(xs...), make([]byte, 4*3*rows)})

	kh := rowReduce(kir.F16, 16, [3]kir.ReduceKind{kir.ReduceAdd, kir.ReduceMul, kir.ReduceMaxF})
	hs := make([]uint16, rows*cols)
	for i := range hs {
		hs[i] = 0x3800 + uint16(r.IntN(0x800)) // 0.5 .. 1
	}
	diff(t, kh, [3]int64{int64(rows), 1, 1}, []int64{int64(cols)}, [][]byte{u16s(hs...), make([]byte, 2*3*rows)})
	kb := rowReduce(kir.BF16, 8, [3]kir.ReduceKind{kir.ReduceAdd, kir.ReduceMul, kir.ReduceMinF})
	diff(t, kb, [3]int64{int64(rows), 1, 1}, []int64{int64(cols)}, [][]byte{u16s(hs...), make([]byte, 2*3*rows)})
}

// TestLoopCarriedPermutation: iter args that swap and rotate need the
// emitter's parallel moves to break cycles.
func TestLoopCarriedPermutation(t *testing.T) {
	k, b := kir.NewKernel("perm")
	k.Bindings = []kir.Binding{{Elem: kir.I64, Access: kir.Write}}
	k.NumPushConstants = 1
	n := b.Query(kir.PushConstant, 0)
	one := b.Idx(1)
	inits := []kir.Value{b.Idx(1), b.Idx(2), b.Idx(3), b.Idx(0), b.Idx(1)}
	res := b.For(b.Idx(0), n, one, inits, func(b *kir.Builder, i kir.Value, it []kir.Value) []kir.Value {
		// (a, b, c) rotate, (f0, f1) → (f1, f0+f1)
		return []kir.Value{it[1], it[2], it[0], it[4], b.Bin(kir.Add, it[3], it[4])}
	})
	// A nested loop whose inner iter is the outer's.
	nested := b.For(b.Idx(0), b.Idx(3), one, []kir.Value{res[0]}, func(b *kir.Builder, i kir.Value, it []kir.Value) []kir.Value {
		in := b.For(i, b.Idx(4), one, []kir.Value{it[0]}, func(b *kir.Builder, j kir.Value, jt []kir.Value) []kir.Value {
			return []kir.Value{b.Bin(kir.Add, b.Bin(kir.Mul, jt[0], b.Idx(3)), j)}
		})
		return in
	})
	for j, v := range append(res, nested...) {
		b.Store(0, b.Idx(int64(j)), v)
	}
	for _, trips := range []int64{0, 1, 2, 7, 50} {
		diff(t, k, [3]int64{1, 1, 1}, []int64{trips}, [][]byte{make([]byte, 8*6)})
	}
}

// TestIf: nested If with results inside a loop, and If without results.
func TestIf(t *testing.T) {
	k, b := kir.NewKernel("if")
	k.Bindings = []kir.Binding{{Elem: kir.F32, Access: kir.Read}, {Elem: kir.F32, Access: kir.Write}, {Elem: kir.I32, Access: kir.ReadWrite}}
	k.NumPushConstants = 1
	f := kir.S(kir.F32)
	b.For(b.Idx(0), b.Query(kir.PushConstant, 0), b.Idx(1), nil, func(b *kir.Builder, i kir.Value, _ []kir.Value) []kir.Value {
		x := b.Load(0, f, i)
		pos := b.Cmp(kir.CmpF, kir.FPredOGT, x, b.Float(f, 0))
		y := b.If(pos, []kir.Type{f, kir.S(kir.I32)}, func(b *kir.Builder) []kir.Value {
			big := b.Cmp(kir.CmpF, kir.FPredOGE, x, b.Float(f, 2))
			return append(b.If(big, []kir.Type{f}, func(b *kir.Builder) []kir.Value {
				return []kir.Value{b.Emit(kir.Sqrt, f, x)}
			}, func(b *kir.Builder) []kir.Value {
				return []kir.Value{b.Bin(kir.Mul, x, x)}
			}), b.Int(kir.S(kir.I32), 1))
		}, func(b *kir.Builder) []kir.Value {
			return []kir.Value{b.Bin(kir.Mul, x, b.Float(f, -2)), b.Int(kir.S(kir.I32), -1)}
		})
		b.Store(1, i, y[0])
		odd := b.Cmp(kir.CmpI, kir.PredEQ, b.Bin(kir.And, i, b.Idx(1)), b.Idx(1))
		b.If(odd, nil, func(b *kir.Builder) []kir.Value {
			old := b.Load(2, kir.S(kir.I32), i)
			b.Store(2, i, b.Bin(kir.Add, old, y[1]))
			return nil
		}, nil)
		return nil
	})
	xs := []float32{-3, 0.5, 2, 9, -0.25, 1.5, 4, float32(nan()), 0, 3}
	diff(t, k, [3]int64{1, 1, 1}, []int64{int64(len(xs))}, [][]byte{f32s(xs...), make([]byte, 4*len(xs)), i32s(5, 6, 7, 8, 9, 10, 11, 12, 13, 14)})
}
