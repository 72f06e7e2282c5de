package codegen

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
)

// minCooperativeSize is the shortest static reduction a cooperative
// workgroup shares (Strategy.ReductionThreads): shorter ones run whole in
// one thread, the workgroup's threads taking different output points.
const minCooperativeSize = 128

// cooperative decides whether the vectorized reduction is shared by a
// workgroup's threads: the strategy asks for it, the innermost loop is the
// only reduction and long (or dynamic), and every output is an f32, f16,
// bf16 or i32 (combined across threads in f32 or i32).
func (l *genericLowering) cooperative() bool {
	st := l.g.st
	if st.ReductionThreads <= 1 || st.ReductionThreads&(st.ReductionThreads-1) != 0 || len(l.reds) != 1 {
		return false
	}
	if s := l.sizes[l.reds[0]].static; s >= 0 && s < minCooperativeSize {
		return false
	}
	for _, r := range l.results {
		switch elemScalar(r) {
		case kir.F32, kir.F16, kir.BF16, kir.I32:
		default:
			return false
		}
	}
	return true
}

// elemScalar is the kernel element type of a tensor value, Invalid for
// types the kernel IR has no scalar for or stores in another (f8).
func elemScalar(v *ir.Value) kir.Scalar {
	e := ir.ElementTypeOf(v.Type)
	s, ok := ScalarOf(e)
	if st, sok := storageOf(e); !ok || !sok || st != s {
		return kir.Invalid
	}
	return s
}

// combineType is the type partial results of an output of type t are
// combined in across lanes and threads: f32 for 16-bit floats.
func combineType(t kir.Type) kir.Type {
	if t.Elem == kir.F16 || t.Elem == kir.BF16 {
		return kir.S(kir.F32)
	}
	return kir.S(t.Elem)
}

// startCooperative makes the kernel thread level and allocates, per
// output, the workgroup memory its partial results meet in: one element
// per subgroup, or per thread without subgroup operations.
func (l *genericLowering) startCooperative(top *kir.Builder) {
	g := l.g
	n := g.st.ReductionThreads
	g.k.WorkgroupSize = [3]int{n, 1, 1}
	l.tid = top.Query(kir.ThreadID, 0)
	if sg := g.st.ReductionSubgroup; sg > 0 && n%sg == 0 {
		// The partial results' layout assumes this subgroup size.
		g.k.SubgroupSize = sg
		n /= sg
	}
	for _, r := range l.results {
		ct := combineType(kir.S(elemScalar(r)))
		g.k.Shared = append(g.k.Shared, kir.SharedAlloc{Elem: ct.Elem, Count: int64(n), Scratch: true})
		l.shared = append(l.shared, len(g.k.Shared)-1)
	}
}

// reduceCooperative emits the innermost reduction loop k shared by the
// workgroup's threads: thread t accumulates the w-wide strips t, t+T, …
// in vector lanes (then the scalar remainder's elements t, t+T, …), folds
// its lanes, and the threads' partial results are combined
// (workgroupCombine) and folded into the carried values, which every
// thread then holds.
func (l *genericLowering) reduceCooperative(b *kir.Builder, ivs []kir.Value, k int, accs []kir.Value) ([]kir.Value, error) {
	g := l.g
	w := int64(l.redWidth)
	threads := int64(g.st.ReductionThreads)
	size := l.sizes[k].value
	n := b.Bin(kir.Mul, b.Bin(kir.DivS, size, g.idx(w)), g.idx(w))
	var err error
	vinit := make([]kir.Value, len(accs))
	sinit := make([]kir.Value, len(accs))
	for j, a := range accs {
		t := b.K.Type(a)
		vinit[j] = identity(b, l.combs[j], kir.V(t.Elem, int(w)))
		sinit[j] = identity(b, l.combs[j], combineType(t))
	}
	saved := l.vecDim
	l.vecDim = k
	vres := b.For(b.Bin(kir.Mul, l.tid, g.idx(w)), n, g.idx(threads*w), vinit, func(b *kir.Builder, iv kir.Value, iters []kir.Value) []kir.Value {
		ivs[k] = iv
		out, e := l.body(b, ivs, int(w), iters)
		if e != nil {
			err = e
			return iters
		}
		return out
	})
	l.vecDim = saved
	if err != nil {
		return nil, err
	}
	// The remainder's scalars, one per thread, in the combine type.
	rest := b.For(b.Bin(kir.Add, n, l.tid), size, g.idx(threads), sinit, func(b *kir.Builder, iv kir.Value, iters []kir.Value) []kir.Value {
		ivs[k] = iv
		cur := make([]kir.Value, len(iters))
		for j := range iters {
			cur[j] = identity(b, l.combs[j], b.K.Type(accs[j]))
		}
		out, e := l.body(b, ivs, 1, cur)
		if e != nil {
			err = e
			return iters
		}
		for j := range out {
			out[j] = b.Emit(l.combs[j].kind, b.K.Type(iters[j]), iters[j], widen(b, out[j], b.K.Type(iters[j])))
		}
		return out
	})
	if err != nil {
		return nil, err
	}
	out := make([]kir.Value, len(accs))
	for j, a := range accs {
		t := b.K.Type(a)
		ct := combineType(t)
		lanes := vres[j]
		if ct.Elem != t.Elem {
			lanes = b.Emit(kir.FPExt, kir.V(ct.Elem, int(w)), lanes)
		}
		p := b.Emit(l.combs[j].kind, ct, b.EmitImm(kir.Reduce, ct, int64(l.combs[j].reduce), lanes), rest[j])
		total := l.workgroupCombine(b, l.combs[j], p, l.shared[j])
		out[j] = b.Emit(l.combs[j].kind, t, a, narrow(b, total, t))
	}
	return out, nil
}

// widen converts v to the combine type ct (f16/bf16 to f32).
func widen(b *kir.Builder, v kir.Value, ct kir.Type) kir.Value {
	if b.K.Type(v).Elem == ct.Elem {
		return v
	}
	return b.Emit(kir.FPExt, ct, v)
}

// narrow converts a combined value back to the output's type t.
func narrow(b *kir.Builder, v kir.Value, t kir.Type) kir.Value {
	if b.K.Type(v).Elem == t.Elem {
		return v
	}
	return b.Emit(kir.FPTrunc, t, v)
}

// workgroupCombine combines each thread's partial result p (every thread
// of the workgroup calls it, in uniform control flow) and returns the
// total to every thread: subgroup reductions whose results meet in
// workgroup memory allocation shared, one element per subgroup, folded in
// subgroup order; or, without subgroup operations, a tree over one
// element per thread. The barrier at the end lets the next call reuse
// the memory.
func (l *genericLowering) workgroupCombine(b *kir.Builder, c combiner, p kir.Value, shared int) kir.Value {
	g := l.g
	threads := int64(g.st.ReductionThreads)
	t := b.K.Type(p)
	if sg := int64(g.st.ReductionSubgroup); sg > 0 && threads%sg == 0 {
		s := b.EmitImm(kir.SubgroupReduce, t, int64(c.reduce), p)
		if threads == sg {
			return s
		}
		lane := b.Emit(kir.LaneID, kir.S(kir.Index))
		b.If(b.Cmp(kir.CmpI, kir.PredEQ, lane, g.idx(0)), nil, func(b *kir.Builder) []kir.Value {
			b.StoreShared(shared, b.Bin(kir.DivS, l.tid, g.idx(sg)), s)
			return nil
		}, nil)
		b.Barrier()
		total := b.LoadShared(shared, t, g.idx(0))
		for i := int64(1); i < threads/sg; i++ {
			total = b.Emit(c.kind, t, total, b.LoadShared(shared, t, g.idx(i)))
		}
		b.Barrier()
		return total
	}
	b.StoreShared(shared, l.tid, p)
	b.Barrier()
	for s := threads / 2; s > 0; s /= 2 {
		b.If(b.Cmp(kir.CmpI, kir.PredSLT, l.tid, g.idx(s)), nil, func(b *kir.Builder) []kir.Value {
			x := b.LoadShared(shared, t, l.tid)
			y := b.LoadShared(shared, t, b.Bin(kir.Add, l.tid, g.idx(s)))
			b.StoreShared(shared, l.tid, b.Emit(c.kind, t, x, y))
			return nil
		}, nil)
		b.Barrier()
	}
	total := b.LoadShared(shared, t, g.idx(0))
	b.Barrier()
	return total
}
