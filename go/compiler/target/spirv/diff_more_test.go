package spirv_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/targettest"
	"github.com/gree-ml/gree/go/schemas/llvmcpu"
)

var allTypes = []kir.Scalar{kir.I1, kir.I8, kir.I16, kir.I32, kir.I64, kir.F16, kir.BF16, kir.F32, kir.F64}

// convInputs are the values converted from type s.
func convInputs(s kir.Scalar, n int) []byte {
	if s.IsFloat() {
		special := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 1.5, 2.5, -2.5, 127.5, 128, -128.5, -129,
			255.5, 256, 32767.5, 32768, -32769, 65535.9, 65536, 2147483647, 2147483648, -2147483649, 4294967296,
			9.3e18, -9.3e18, 1.9e19, math.Inf(1), math.Inf(-1), math.NaN(), 1e-30, 3.4e38, 1e300, -1e-300, 1.00048828125, 1.0009765625}
		return targettest.EncFloats(s, floatInputs(n, 3, special))
	}
	var xs []int64
	for _, c := range targettest.IntCases() {
		if c.Elem == s {
			xs = append(xs, c.A...)
			xs = append(xs, c.B...)
		}
	}
	for i := 0; len(xs) < n; i++ {
		xs = append(xs, int64(i*7919-3000)<<uint(i%40))
	}
	return targettest.EncInts(s, xs[:n])
}

func TestRunConversions(t *testing.T) {
	const n = 64
	for _, from := range allTypes {
		k, b := kir.NewKernel("conv_" + from.String())
		k.Bindings = []kir.Binding{{Elem: from, Access: kir.Read}}
		for _, to := range allTypes {
			k.Bindings = append(k.Bindings, kir.Binding{Elem: to, Access: kir.Write})
		}
		w := b.Query(kir.WorkgroupID, 0)
		x := b.Load(0, kir.S(from), w)
		blocks := make([]int, len(allTypes))
		for kind := kir.ExtS; kind <= kir.Bitcast; kind++ {
			for ti, to := range allTypes {
				if !kir.CastFits(kind, from, to) {
					continue
				}
				r := b.Emit(kind, kir.S(to), x)
				b.Store(1+ti, b.Bin(kir.Add, w, b.Idx(int64(blocks[ti]*n))), r)
				blocks[ti]++
			}
		}
		in := [][]byte{convInputs(from, n)}
		for ti, to := range allTypes {
			in = append(in, make([]byte, max(blocks[ti], 1)*n*to.ByteSize()))
		}
		want, got := runBoth(t, k, [3]int64{n, 1, 1}, nil, in)
		compare(t, k, want, got, exact)
	}
}

func TestRunLoops(t *testing.T) {
	k, b := kir.NewKernel("loops")
	k.NumPushConstants = 3
	k.Bindings = []kir.Binding{{Elem: kir.F32, Access: kir.ReadWrite}, {Elem: kir.I64, Access: kir.Write}}
	lo, hi, step := b.Query(kir.PushConstant, 0), b.Query(kir.PushConstant, 1), b.Query(kir.PushConstant, 2)
	res := b.For(lo, hi, step, []kir.Value{b.Float(kir.V(kir.F32, 3), 0.5), b.Idx(0)}, func(b *kir.Builder, iv kir.Value, it []kir.Value) []kir.Value {
		x := b.Emit(kir.SIToFP, kir.V(kir.F32, 3), b.Emit(kir.Broadcast, kir.V(kir.I64, 3), iv))
		odd := b.Cmp(kir.CmpI, kir.PredEQ, b.Bin(kir.And, iv, b.Idx(1)), b.Idx(1))
		r := b.If(odd, []kir.Type{kir.V(kir.F32, 3)}, func(b *kir.Builder) []kir.Value {
			return []kir.Value{b.Bin(kir.Add, it[0], x)}
		}, func(b *kir.Builder) []kir.Value {
			return []kir.Value{b.Bin(kir.Mul, it[0], b.Float(kir.V(kir.F32, 3), 1.25))}
		})
		return []kir.Value{r[0], b.Bin(kir.Add, it[1], iv)}
	})
	b.Store(0, b.Idx(0), res[0])
	b.Store(1, b.Idx(0), res[1])
	for _, pc := range [][]int64{{0, 10, 1}, {-5, 17, 3}, {7, 3, 1}, {0, 5, 0}, {0, 5, -1}, {math.MaxInt64 - 5, math.MaxInt64, 4}} {
		in := [][]byte{make([]byte, 12), make([]byte, 8)}
		want, got := runBoth(t, k, [3]int64{1, 1, 1}, pc, in)
		compare(t, k, want, got, exact)
		if want.err != nil {
			if kind, _, check := llvmcpu.DecodeError(got.code); kind != llvmcpu.ErrStep || check != 1 {
				t.Errorf("%v: status %#x", pc, got.code)
			}
		}
	}
}

// threadKernel exercises shared memory, barriers and subgroup ops in a
// workgroup of size ws with subgroups of 8.
func threadKernel(s kir.Scalar, ws [3]int) *kir.Kernel {
	k, b := kir.NewKernel(fmt.Sprintf("threads_%s_%d", s, ws[0]*ws[1]*ws[2]))
	k.WorkgroupSize = ws
	k.SubgroupSize = 8
	threads := int64(ws[0] * ws[1] * ws[2])
	k.Bindings = []kir.Binding{{Elem: s, Access: kir.Read}, {Elem: s, Access: kir.Write}, {Elem: kir.I64, Access: kir.Write}}
	k.Shared = []kir.SharedAlloc{{Elem: s, Count: threads + 4}}
	tx, ty := b.Query(kir.ThreadID, 0), b.Query(kir.ThreadID, 1)
	wg := b.Query(kir.WorkgroupID, 0)
	lin := b.Bin(kir.Add, tx, b.Bin(kir.Mul, ty, b.Query(kir.WorkgroupSize, 0)))
	gid := b.Bin(kir.Add, lin, b.Bin(kir.Mul, wg, b.Idx(threads)))
	x := b.Load(0, kir.S(s), gid)
	b.StoreShared(0, b.Bin(kir.Add, lin, b.Idx(2)), x)
	b.Barrier()
	out := int64(0)
	put := func(v kir.Value) {
		b.Store(1, b.Bin(kir.Add, gid, b.Idx(out)), v)
		out += 4 * threads
	}
	put(b.LoadShared(0, kir.S(s), b.Bin(kir.Sub, b.Idx(threads+3), lin))) // includes the zeroed ends
	for r := kir.ReduceAdd; r <= kir.ReduceXor; r++ {
		if kir.ReduceKindFits(r, s) {
			put(b.EmitImm(kir.SubgroupReduce, kir.S(s), int64(r), x))
		}
	}
	put(b.Emit(kir.SubgroupShuffle, kir.S(s), x, b.Bin(kir.Sub, b.Bin(kir.Mul, lin, b.Idx(3)), b.Idx(5))))
	b.Store(2, gid, b.Emit(kir.LaneID, kir.S(kir.I64)))
	b.Store(2, b.Bin(kir.Add, gid, b.Idx(4*threads)), b.Emit(kir.SubgroupSize, kir.S(kir.I64)))
	return k
}

func TestRunThreadOps(t *testing.T) {
	for _, ws := range [][3]int{{16, 4, 1}, {12, 1, 1}} {
		for _, s := range allTypes {
			k := threadKernel(s, ws)
			threads := ws[0] * ws[1] * ws[2]
			var in0 []byte
			if s.IsFloat() {
				in0 = targettest.EncFloats(s, floatInputs(4*threads, 5, []float64{1, -0.0, 3.5, math.NaN(), 0.1, 1e10}))
			} else {
				in0 = convInputs(s, 4*threads)
			}
			in := [][]byte{in0, make([]byte, 16*4*threads*s.ByteSize()), make([]byte, 2*4*threads*8)}
			want, got := runBoth(t, k, [3]int64{4, 1, 1}, nil, in)
			compare(t, k, want, got, exact)
		}
	}
}
