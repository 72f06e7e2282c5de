package targettest

import (
	"fmt"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// IntBinaryKinds lists the integer binary ops that IntOps applies.
var IntBinaryKinds = []kir.Kind{kir.Add, kir.Sub, kir.Mul, kir.DivS, kir.DivU, kir.RemS, kir.RemU,
	kir.FloorDivS, kir.CeilDivS, kir.CeilDivU, kir.MinS, kir.MinU, kir.MaxS, kir.MaxU,
	kir.And, kir.Or, kir.Xor, kir.Shl, kir.ShrS, kir.ShrU}

// IntUnaryKinds lists the integer unary ops that IntOps applies.
var IntUnaryKinds = []kir.Kind{kir.AbsI, kir.CtLz, kir.CtTz, kir.CtPop}

// IntOps applies every integer op to the n lanes of bindings 0 and 1 (as a
// vector when vector is set, else lane by lane as scalars) and stores the
// results to binding 2, one block of n per op (IntBinaryKinds, then
// IntUnaryKinds); the comparisons go to the i1 binding 3, one block of n
// per predicate.
func IntOps(elem kir.Scalar, n int, vector bool) *kir.Kernel {
	k, b := kir.NewKernel("int_ops")
	k.Bindings = []kir.Binding{{Elem: elem, Access: kir.Read}, {Elem: elem, Access: kir.Read},
		{Elem: elem, Access: kir.Write}, {Elem: kir.I1, Access: kir.Write}}
	lanes := []int{n}
	if !vector {
		lanes = nil
		for i := 0; i < n; i++ {
			lanes = append(lanes, 1)
		}
	}
	off := 0
	for _, w := range lanes {
		t := kir.V(elem, w)
		if w == 1 {
			t = kir.S(elem)
		}
		at := b.Idx(int64(off))
		x, y := b.Load(0, t, at), b.Load(1, t, at)
		for j, kind := range IntBinaryKinds {
			b.Store(2, b.Idx(int64(j*n+off)), b.Bin(kind, x, y))
		}
		for j, kind := range IntUnaryKinds {
			b.Store(2, b.Idx(int64((len(IntBinaryKinds)+j)*n+off)), b.Emit(kind, t, x))
		}
		for p := kir.PredEQ; p <= kir.PredUGE; p++ {
			b.Store(3, b.Idx(int64(int(p)*n+off)), b.Cmp(kir.CmpI, p, x, y))
		}
		off += w
	}
	return k
}

// FloatChain applies a mix of float ops to x and y of type t: arithmetic,
// fma, the NaN-propagating and the NaN-ignoring min/max, sqrt, remf and
// copysign.
func FloatChain(b *kir.Builder, t kir.Type, x, y kir.Value) kir.Value {
	one := b.Float(t, 1)
	s := b.Bin(kir.Add, x, y)
	m := b.Bin(kir.Mul, s, x)
	d := b.Bin(kir.Sub, m, y)
	q := b.Bin(kir.DivF, d, b.Bin(kir.Add, b.Emit(kir.AbsF, t, y), one))
	f := b.Emit(kir.FMA, t, q, x, s)
	mx := b.Bin(kir.MaxF, f, b.Bin(kir.MinF, x, y))
	r := b.Emit(kir.Sqrt, t, b.Emit(kir.AbsF, t, mx))
	neg := b.Emit(kir.NegF, t, b.Bin(kir.RemF, mx, b.Float(t, 0.75)))
	mn := b.Bin(kir.MinNumF, neg, b.Bin(kir.MaxNumF, x, y))
	return b.Select(b.Cmp(kir.CmpF, kir.FPredOLT, x, y), r, b.Bin(kir.CopySign, mn, y))
}

// Elementwise builds c[i] = body(a[i], b[i]) for i < pc0, tile elements
// per workgroup, vectorized by width with a scalar remainder loop; the
// kernel is named name_in_width.
func Elementwise(name string, in, out kir.Scalar, width, tile int, body func(b *kir.Builder, t kir.Type, x, y kir.Value) kir.Value) *kir.Kernel {
	k, b := kir.NewKernel(fmt.Sprintf("%s_%s_%d", name, in, width))
	k.Bindings = []kir.Binding{{Elem: in, Access: kir.Read}, {Elem: in, Access: kir.Read}, {Elem: out, Access: kir.Write}}
	k.NumPushConstants = 1
	n := b.Query(kir.PushConstant, 0)
	tileV := b.Idx(int64(tile))
	base := b.Bin(kir.Mul, b.Query(kir.WorkgroupID, 0), tileV)
	end := b.Bin(kir.MinS, b.Bin(kir.Add, base, tileV), n)
	w := b.Idx(int64(width))
	vend := b.Bin(kir.Add, base, b.Bin(kir.Mul, b.Bin(kir.DivS, b.Bin(kir.Sub, end, base), w), w))
	for _, loop := range []struct {
		lo, hi, step kir.Value
		t            kir.Type
	}{{base, vend, w, kir.V(in, width)}, {vend, end, b.Idx(1), kir.S(in)}} {
		b.For(loop.lo, loop.hi, loop.step, nil, func(b *kir.Builder, i kir.Value, _ []kir.Value) []kir.Value {
			x, y := b.Load(0, loop.t, i), b.Load(1, loop.t, i)
			b.Store(2, i, body(b, loop.t, x, y))
			return nil
		})
	}
	return k
}

// AtomicBits has 64 threads of each workgroup set bit tid mod 32 of word
// tid/32 + 2·wg of binding 0 (i32) with an atomic or, and clear bit
// (tid+1) mod 32 of word 2·wgs + tid/32 + 2·wg with an atomic and: many
// threads of concurrent workgroups on shared words.
func AtomicBits() *kir.Kernel {
	k, b := kir.NewKernel("atomics")
	k.WorkgroupSize = [3]int{64, 1, 1}
	k.Bindings = []kir.Binding{{Elem: kir.I32, Access: kir.Write}}
	i32 := kir.S(kir.I32)
	tid := b.Query(kir.ThreadID, 0)
	word := b.Bin(kir.Add, b.Bin(kir.Mul, b.Query(kir.WorkgroupID, 0), b.Idx(2)), b.Bin(kir.ShrU, tid, b.Idx(5)))
	bit := b.Emit(kir.TruncI, i32, b.Bin(kir.And, tid, b.Idx(31)))
	one := b.Int(i32, 1)
	b.AtomicRMW(0, kir.AtomicOr, word, b.Bin(kir.Shl, one, bit))
	bit1 := b.Bin(kir.And, b.Bin(kir.Add, bit, one), b.Int(i32, 31))
	word2 := b.Bin(kir.Add, word, b.Bin(kir.Mul, b.Query(kir.WorkgroupCount, 0), b.Idx(2)))
	b.AtomicRMW(0, kir.AtomicAnd, word2, b.Bin(kir.Xor, b.Bin(kir.Shl, one, bit1), b.Int(i32, -1)))
	return k
}

// TicketRow is the i32 elements each ticket of Tickets writes.
const TicketRow = 1024

// Tickets has each workgroup take tickets from counter b0[0] until they
// run out (n of them, n the push constant), wait for the earlier tickets
// to be done (b0[16]), and count its ticket done (b0[16]) after running
// it: ticket t writes row t of b1 (TicketRow elements) from row t-1, each
// element one more (row 0: its index plus one), so element i of row t is
// i+t+1 only if row t-1 was complete when ticket t ran.
func Tickets() *kir.Kernel {
	k, b := kir.NewKernel("tickets")
	k.Bindings = []kir.Binding{{Elem: kir.I32, Access: kir.ReadWrite}, {Elem: kir.I32, Access: kir.ReadWrite}}
	k.NumPushConstants = 1
	n := b.Query(kir.PushConstant, 0)
	i32 := kir.S(kir.I32)
	one, row := b.Int(i32, 1), b.Idx(TicketRow)
	b.For(b.Idx(0), n, b.Idx(1), nil, func(b *kir.Builder, _ kir.Value, _ []kir.Value) []kir.Value {
		t := b.Emit(kir.ExtS, kir.S(kir.I64), b.FetchAdd(0, b.Idx(0), one))
		b.If(b.Cmp(kir.CmpI, kir.PredSLT, t, n), nil, func(b *kir.Builder) []kir.Value {
			b.SpinUntil(0, b.Idx(16), b.Emit(kir.TruncI, i32, t))
			first := b.Cmp(kir.CmpI, kir.PredEQ, t, b.Idx(0))
			prev := b.Bin(kir.Mul, b.Bin(kir.MaxS, b.Bin(kir.Sub, t, b.Idx(1)), b.Idx(0)), row)
			b.For(b.Idx(0), row, b.Idx(1), nil, func(b *kir.Builder, i kir.Value, _ []kir.Value) []kir.Value {
				v := b.Select(first, b.Emit(kir.TruncI, i32, i), b.Load(1, i32, b.Bin(kir.Add, prev, i)))
				b.Store(1, b.Bin(kir.Add, b.Bin(kir.Mul, t, row), i), b.Bin(kir.Add, v, one))
				return nil
			})
			b.FetchAdd(0, b.Idx(16), one)
			return nil
		}, nil)
		return nil
	})
	return k
}
