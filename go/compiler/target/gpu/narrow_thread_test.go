package gpu_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/targettest"
)

// subgroupKernel reduces element g of binding 0 over each subgroup with
// every reduction kind that applies to e, and shuffles it from lane
// (lane+3), storing each result n elements apart in binding 1.
func subgroupKernel(e kir.Scalar, threads, subgroup int) (*kir.Kernel, int) {
	k, b := kir.NewKernel("subgroup_" + e.String())
	k.Bindings = []kir.Binding{{Elem: e, Access: kir.Read}, {Elem: e, Access: kir.Write}}
	k.WorkgroupSize = [3]int{threads, 1, 1}
	k.SubgroupSize = subgroup
	g := b.Bin(kir.Add, b.Bin(kir.Mul, b.Query(kir.WorkgroupID, 0), b.Idx(int64(threads))), b.Query(kir.ThreadID, 0))
	x := b.Load(0, kir.S(e), g)
	total := b.Bin(kir.Mul, b.Query(kir.WorkgroupCount, 0), b.Idx(int64(threads)))
	slot := 0
	put := func(v kir.Value) {
		b.Store(1, b.Bin(kir.Add, g, b.Bin(kir.Mul, total, b.Idx(int64(slot)))), v)
		slot++
	}
	for r := kir.ReduceAdd; r <= kir.ReduceXor; r++ {
		if kir.ReduceKindFits(r, e) {
			put(b.EmitImm(kir.SubgroupReduce, kir.S(e), int64(r), x))
		}
	}
	put(b.Emit(kir.SubgroupShuffle, kir.S(e), x, b.Bin(kir.Add, b.Query(kir.LaneID, 0), b.Idx(3))))
	b.Append(&kir.Op{Kind: kir.Yield})
	return k, slot
}

// TestNarrowSubgroups reduces and shuffles narrow values on lavapipe
// without narrow types (subgroups of 8): 20 threads, the last subgroup
// partial. Float sums and products round at each step, in lane order.
func TestNarrowSubgroups(t *testing.T) {
	target := noNarrow()
	r := rand.New(rand.NewPCG(11, 12))
	for _, e := range []kir.Scalar{kir.I1, kir.I8, kir.I16, kir.F16, kir.BF16} {
		t.Run(e.String(), func(t *testing.T) {
			const threads, wgs = 20, 2
			_, slots := subgroupKernel(e, threads, target.SubgroupSize)
			n := threads * wgs
			var in0 []byte
			if e.IsFloat() {
				in0 = halfInputs(e, n, 0, r)
				// Small values, so that sums of 8 stay finite and round.
				for i := 2 * len(specialHalves); i < len(in0); i += 2 {
					in0[i+1] = 0x3c + byte(r.IntN(3))
					if e == kir.BF16 {
						in0[i+1] = 0x3f
					}
				}
			} else {
				in0 = randomBytes(n*e.ByteSize(), r)
			}
			in := [][]byte{in0, make([]byte, slots*n*e.ByteSize())}
			checkNarrow(t, target, func() *kir.Kernel { k, _ := subgroupKernel(e, threads, target.SubgroupSize); return k }, [3]int64{wgs, 1, 1}, nil, in)
		})
	}
}

// castKernel converts n lanes of binding 0 (from) to every other integer
// type with every conversion that applies, and back.
func castKernel(from kir.Scalar, n int, vector bool) (*kir.Kernel, []kir.Scalar) {
	k, b := kir.NewKernel("casts_" + from.String())
	k.Bindings = []kir.Binding{{Elem: from, Access: kir.Read}}
	var outs []kir.Scalar
	t := func(e kir.Scalar) kir.Type {
		if vector {
			return kir.V(e, n)
		}
		return kir.S(e)
	}
	lanes := 1
	if !vector {
		lanes = n
	}
	type store struct {
		bind int
		v    []kir.Value
	}
	var stores []store
	for i := 0; i < lanes; i++ {
		x := b.Load(0, t(from), b.Idx(int64(i)))
		j := 0
		add := func(v kir.Value) {
			if i == 0 {
				outs = append(outs, k.Types[v].Elem)
				k.Bindings = append(k.Bindings, kir.Binding{Elem: k.Types[v].Elem, Access: kir.Write})
				stores = append(stores, store{bind: len(k.Bindings) - 1})
			}
			stores[j].v = append(stores[j].v, v)
			j++
		}
		for _, to := range []kir.Scalar{kir.I1, kir.I8, kir.I16, kir.I32, kir.I64} {
			for _, kind := range []kir.Kind{kir.ExtS, kir.ExtU, kir.TruncI} {
				if kir.CastFits(kind, from, to) {
					y := b.Emit(kind, t(to), x)
					add(y)
					// And back, with the inverse kinds.
					for _, back := range []kir.Kind{kir.ExtS, kir.ExtU, kir.TruncI} {
						if kir.CastFits(back, to, from) {
							add(b.Emit(back, t(from), y))
						}
					}
				}
			}
		}
		if from != kir.I1 {
			add(b.Emit(kir.SIToFP, t(kir.F32), x))
			add(b.Emit(kir.UIToFP, t(kir.F64), x))
		}
	}
	for _, s := range stores {
		for i, v := range s.v {
			b.Store(s.bind, b.Idx(int64(i)), v)
		}
	}
	b.Append(&kir.Op{Kind: kir.Yield})
	return k, outs
}

func TestNarrowIntCasts(t *testing.T) {
	for _, target := range narrowTargets() {
		for _, c := range targettest.IntCases() {
			n := len(c.A)
			for _, vector := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s_%d/vector=%v", target.Name, c.Elem, n, vector), func(t *testing.T) {
					_, outs := castKernel(c.Elem, n, vector)
					in := [][]byte{targettest.EncInts(c.Elem, c.A)}
					for _, e := range outs {
						in = append(in, make([]byte, n*e.ByteSize()))
					}
					checkNarrow(t, target, func() *kir.Kernel { k, _ := castKernel(c.Elem, n, vector); return k }, [3]int64{1, 1, 1}, nil, in)
				})
			}
		}
	}
}
