package llvmcpu_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/llvmcpu"
	"github.com/gree-ml/gree/go/compiler/target/targettest"
)

func TestIntegerOps(t *testing.T) {
	nops := len(targettest.IntBinaryKinds) + len(targettest.IntUnaryKinds)
	for _, c := range targettest.IntCases() {
		n := len(c.A)
		for _, vector := range []bool{false, true} {
			k := targettest.IntOps(c.Elem, n, vector)
			diff(t, k, [3]int64{1, 1, 1}, nil, [][]byte{targettest.EncInts(c.Elem, c.A), targettest.EncInts(c.Elem, c.B),
				make([]byte, c.Elem.ByteSize()*n*nops), make([]byte, 10*n)}, 0)
		}
	}
}

// unaryFloats applies each op to the n elements of binding 0, 8 lanes at
// a time, into block j of binding 1.
func unaryFloats(kinds []kir.Kind, e kir.Scalar, n int) *kir.Kernel {
	k, b := kir.NewKernel("unary_" + e.String())
	k.Bindings = []kir.Binding{{Elem: e, Access: kir.Read}, {Elem: e, Access: kir.Write}}
	const w = 8
	for j, op := range kinds {
		b.For(b.Idx(0), b.Idx(int64(n)), b.Idx(w), nil, func(b *kir.Builder, i kir.Value, _ []kir.Value) []kir.Value {
			x := b.Load(0, kir.V(e, w), i)
			b.Store(1, b.Bin(kir.Add, i, b.Idx(int64(j*n))), b.Emit(op, kir.V(e, w), x))
			return nil
		})
	}
	return k
}

func TestTranscendentals(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	kinds := []kir.Kind{kir.Rsqrt, kir.Cbrt, kir.Exp, kir.Exp2, kir.Expm1, kir.Log, kir.Log2, kir.Log10, kir.Log1p,
		kir.Sin, kir.Cos, kir.Tan, kir.Sinh, kir.Cosh, kir.Tanh, kir.Asin, kir.Acos, kir.Atan, kir.Asinh,
		kir.Acosh, kir.Atanh, kir.Erf, kir.Erfc, kir.Floor, kir.Ceil, kir.Round, kir.RoundEven, kir.Trunc, kir.Sqrt}
	for _, e := range []kir.Scalar{kir.F32, kir.F16, kir.F64} {
		n := 64
		x := randFloats(r, n, 3)
		copy(x, []float64{0, -0.5, 0.5, 1, -1, 2.5, -2.5, math.Inf(1), math.NaN(), 1e-3})
		// libm and Go's math package (the reference) differ by a few ulps
		// in f64 (Go's Log2 by up to ~8); f32 and f16 round the f64
		// result, which almost always agrees.
		ulps := 1
		if e == kir.F64 {
			ulps = 32
		}
		diff(t, unaryFloats(kinds, e, n), [3]int64{1, 1, 1}, nil, [][]byte{enc(e, x), make([]byte, e.ByteSize()*n*len(kinds))}, ulps)
	}
}

func TestPowAtan2(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, e := range []kir.Scalar{kir.F32, kir.BF16} {
		for _, kind := range []kir.Kind{kir.PowF, kir.Atan2} {
			n := 40
			x, y := randFloats(r, n, 3), randFloats(r, n, 3)
			k := elementwise(kind.String(), e, e, 4, 256, func(b *kir.Builder, t kir.Type, x, y kir.Value) kir.Value { return b.Bin(kind, x, y) })
			diff(t, k, [3]int64{1, 1, 1}, []int64{int64(n)}, [][]byte{enc(e, x), enc(e, y), make([]byte, e.ByteSize()*n)}, 1)
		}
	}
}

// TestConversions converts f64 values (incl. out-of-range, NaN, halfway
// cases) to every other type and back, as vectors and scalars.
func TestConversions(t *testing.T) {
	xs := []float64{0, -0.0, 1.5, -1.5, 2.5, 3.5, -2.5, 1e10, -1e10, 300, -300, 127.5, 65519.99, 65520, 1 + 0x1p-11, 1 + 0x1p-11 + 0x1p-40,
		1 + 0x1p-8 + 0x1p-30, 1e-8, 6e-8, 3e-39, math.Inf(1), math.Inf(-1), math.NaN(), 0.1, 1.0 / 3, 4294967296.5, -129, 255.9}
	n := len(xs)
	types := []kir.Scalar{kir.I1, kir.I8, kir.I16, kir.I32, kir.I64, kir.F16, kir.BF16, kir.F32}
	for _, width := range []int{1, n} {
		for _, src := range []kir.Scalar{kir.F64, kir.F32} {
			k, b := kir.NewKernel("conv")
			k.Bindings = []kir.Binding{{Elem: kir.F64, Access: kir.Read}}
			for _, to := range types {
				k.Bindings = append(k.Bindings, kir.Binding{Elem: to, Access: kir.Write}, kir.Binding{Elem: kir.F64, Access: kir.Write})
			}
			for off := 0; off < n; off += width {
				t := kir.V(kir.F64, width)
				if width == 1 {
					t = kir.S(kir.F64)
				}
				at := b.Idx(int64(off))
				x := b.Load(0, t, at)
				if src == kir.F32 {
					// From f32 too (x86 converts f32 vectors apart).
					x = b.Emit(kir.FPTrunc, kir.Type{Elem: kir.F32, Lanes: t.Lanes}, x)
				}
				for i, to := range types {
					tt := kir.Type{Elem: to, Lanes: t.Lanes}
					var y, back kir.Value
					switch {
					case to == src:
						y, back = x, b.Emit(kir.FPExt, t, x)
					case to.IsFloat() && to.Bits() > src.Bits():
						y = b.Emit(kir.FPExt, tt, x)
						back = b.Emit(kir.FPExt, t, y)
					case to.IsFloat():
						y = b.Emit(kir.FPTrunc, tt, x)
						back = b.Emit(kir.FPExt, t, y)
					default:
						y = b.Emit(kir.FPToSI, tt, x)
						back = b.Emit(kir.SIToFP, t, y)
						if to == kir.I16 {
							back = b.Emit(kir.UIToFP, t, y)
						}
					}
					b.Store(1+2*i, at, y)
					b.Store(2+2*i, at, back)
				}
			}
			in := [][]byte{enc(kir.F64, xs)}
			for _, to := range types {
				in = append(in, make([]byte, to.ByteSize()*n), make([]byte, 8*n))
			}
			diff(t, k, [3]int64{1, 1, 1}, nil, in, 0)
		}
	}
}

// TestControlAndVectors covers If with results, loop-carried vectors,
// reductions, strided loads and stores, lane insert/extract, iota and
// select with a vector condition.
func TestControlAndVectors(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, e := range []kir.Scalar{kir.F32, kir.I32, kir.F16} {
		k, b := kir.NewKernel("ctl")
		k.Bindings = []kir.Binding{{Elem: e, Access: kir.Read}, {Elem: e, Access: kir.Write}}
		k.NumPushConstants = 1
		n := b.Query(kir.PushConstant, 0)
		const w = 8
		vt := kir.V(e, w)
		zero := b.Idx(0)
		var init kir.Value
		if e.IsFloat() {
			init = b.Float(vt, 0)
		} else {
			init = b.Int(vt, 0)
		}
		// Rows of 8: acc += row (strided column access too).
		res := b.For(zero, n, b.Idx(1), []kir.Value{init}, func(b *kir.Builder, i kir.Value, it []kir.Value) []kir.Value {
			row := b.Load(0, vt, b.Bin(kir.Mul, i, b.Idx(w)))
			col := b.LoadStrided(0, vt, i, b.Idx(w))
			s := b.Bin(kir.Add, row, col)
			c := b.Cmp(cmpKind(e), cmpLT(e), row, col)
			s = b.Select(c, s, b.Bin(kir.Sub, row, col))
			odd := b.Cmp(kir.CmpI, kir.PredNE, b.Bin(kir.And, i, b.Idx(1)), zero)
			out := b.If(odd, []kir.Type{vt}, func(b *kir.Builder) []kir.Value { return []kir.Value{b.Bin(kir.Add, it[0], s)} },
				func(b *kir.Builder) []kir.Value { return []kir.Value{b.Bin(kir.Sub, it[0], s)} })
			b.StoreStrided(1, i, b.Idx(w), s)
			return out
		})
		for j, red := range []kir.ReduceKind{kir.ReduceAdd, kir.ReduceMul} {
			b.Store(1, b.Idx(int64(64+j)), b.Reduce(red, res[0]))
		}
		ext := b.EmitImm(kir.Extract, kir.S(e), 3, res[0])
		ins := b.EmitImm(kir.Insert, vt, 0, res[0], ext)
		b.Store(1, b.Idx(66), ins)
		iota := b.Emit(kir.LaneIota, kir.V(kir.I64, w))
		b.Store(1, b.Idx(74), b.Emit(castTo(e), vt, iota))
		if e.IsFloat() {
			b.Store(1, b.Idx(82), b.Reduce(kir.ReduceMaxF, res[0]))
			b.Store(1, b.Idx(83), b.Reduce(kir.ReduceMinF, res[0]))
		} else {
			for j, red := range []kir.ReduceKind{kir.ReduceMinS, kir.ReduceMaxS, kir.ReduceMinU, kir.ReduceMaxU, kir.ReduceAnd, kir.ReduceOr, kir.ReduceXor} {
				b.Store(1, b.Idx(int64(82+j)), b.Reduce(red, res[0]))
			}
		}
		scale := 2.0
		if e.IsInt() {
			scale = 1000
		}
		x := randFloats(r, 64, scale)
		diff(t, k, [3]int64{1, 1, 1}, []int64{8}, [][]byte{enc(e, x), make([]byte, e.ByteSize()*96)}, 0)
	}
}

func cmpKind(e kir.Scalar) kir.Kind {
	if e.IsFloat() {
		return kir.CmpF
	}
	return kir.CmpI
}

func cmpLT(e kir.Scalar) kir.Pred {
	if e.IsFloat() {
		return kir.FPredOLT
	}
	return kir.PredSLT
}

func castTo(e kir.Scalar) kir.Kind {
	if e.IsFloat() {
		return kir.SIToFP
	}
	return kir.TruncI
}

func TestRunTimeChecks(t *testing.T) {
	m := needLLVM(t)
	// b1[pc0] = b0[pc0]: the last valid element, then one past it.
	k, b := kir.NewKernel("oob")
	k.Bindings = []kir.Binding{{Elem: kir.F32, Access: kir.Read}, {Elem: kir.F32, Access: kir.Write}}
	k.NumPushConstants = 2
	i := b.Query(kir.PushConstant, 0)
	b.For(b.Idx(0), b.Idx(1), b.Query(kir.PushConstant, 1), nil, func(b *kir.Builder, _ kir.Value, _ []kir.Value) []kir.Value {
		b.Store(1, i, b.Load(0, kir.V(kir.F32, 4), i))
		return nil
	})
	x := build(t, m, k)
	bufs := func() [][]byte { return [][]byte{f32s(1, 2, 3, 4, 5, 6, 7, 8), make([]byte, 32)} }
	for _, tc := range []struct {
		pcs  []int64
		code string
	}{{[]int64{4, 1}, ""}, {[]int64{5, 1}, "OUT_OF_RANGE"}, {[]int64{-1, 1}, "OUT_OF_RANGE"}, {[]int64{0, 0}, "INVALID_ARGUMENT"}, {[]int64{0, -3}, "INVALID_ARGUMENT"}} {
		got := bufs()
		err := x.Run(0, 0, 1, [3]int64{1, 1, 1}, tc.pcs, got)
		kerr := kir.Run(k, [3]int64{1, 1, 1}, tc.pcs, bufs())
		if tc.code == "" {
			if err != nil || kerr != nil {
				t.Errorf("pcs %v: %v / kir %v", tc.pcs, err, kerr)
			}
			continue
		}
		if err == nil || !containsAll(err.Error(), tc.code, "@oob") || kerr == nil {
			t.Errorf("pcs %v: err %v (kir %v), want %s naming the kernel", tc.pcs, err, kerr, tc.code)
		}
	}
}

// TestGenericCPUHalfPrecision runs f16 kernels built for the generic
// x86-64 CPU, where f16 conversions are integer code (no F16C).
func TestGenericCPUHalfPrecision(t *testing.T) {
	needLLVM(t)
	m, err := llvmcpu.ResolveMachine(llvmcpu.Options{CPU: "generic"})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(15, 16))
	n := 300
	a, bb := randFloats(r, n, 4), randFloats(r, n, 70000)
	copy(a, specials)
	copy(bb[3:], specials)
	for i := 100; i < 140; i++ { // f16 subnormals and rounding boundaries
		a[i] = math.Ldexp(float64(i-120)+0.5, -24)
		bb[i] = math.Ldexp(1+float64(i-100)/2048+1.0/4096, i-120)
	}
	k := elementwise("ew", kir.F16, kir.F16, 8, 256, chain)
	diffOn(t, m, k, [3]int64{2, 1, 1}, []int64{int64(n)}, [][]byte{enc(kir.F16, a), enc(kir.F16, bb), make([]byte, 2*n)}, 0)
	xs := append(randFloats(r, 64, 3), math.NaN(), math.Inf(-1), 1e-6, -3e-8)
	xs = xs[:64]
	diffOn(t, m, unaryFloats([]kir.Kind{kir.Exp, kir.Tanh, kir.Sqrt, kir.Floor}, kir.F16, 64), [3]int64{1, 1, 1}, nil, [][]byte{enc(kir.F16, xs), make([]byte, 2*64*4)}, 1)
	// f64 → f16 and f32 → f16 conversions with every rounding case.
	k2, b := kir.NewKernel("conv16")
	k2.Bindings = []kir.Binding{{Elem: kir.F64, Access: kir.Read}, {Elem: kir.F16, Access: kir.Write}, {Elem: kir.F16, Access: kir.Write}, {Elem: kir.F64, Access: kir.Write}}
	b.For(b.Idx(0), b.Idx(int64(n)), b.Idx(4), nil, func(b *kir.Builder, i kir.Value, _ []kir.Value) []kir.Value {
		x := b.Load(0, kir.V(kir.F64, 4), i)
		h := b.Emit(kir.FPTrunc, kir.V(kir.F16, 4), x)
		b.Store(1, i, h)
		b.Store(2, i, b.Emit(kir.FPTrunc, kir.V(kir.F16, 4), b.Emit(kir.FPTrunc, kir.V(kir.F32, 4), x)))
		b.Store(3, i, b.Emit(kir.FPExt, kir.V(kir.F64, 4), h))
		return nil
	})
	diffOn(t, m, k2, [3]int64{1, 1, 1}, nil, [][]byte{enc(kir.F64, bb), make([]byte, 2*n), make([]byte, 2*n), make([]byte, 8*n)}, 0)
}

// TestSharedMemoryAndThreadOpsInOneThreadWorkgroups: workgroup memory is
// zeroed per workgroup and bounds-checked; thread ids, subgroup ops and
// barriers behave as for a workgroup of one thread.
func TestSharedMemoryAndThreadOpsInOneThreadWorkgroups(t *testing.T) {
	k, b := kir.NewKernel("shared")
	k.Bindings = []kir.Binding{{Elem: kir.I32, Access: kir.Read}, {Elem: kir.I32, Access: kir.Write}}
	k.Shared = []kir.SharedAlloc{{Elem: kir.I32, Count: 16}}
	wg := b.Query(kir.WorkgroupID, 0)
	base := b.Bin(kir.Mul, wg, b.Idx(8))
	tid := b.Query(kir.ThreadID, 0)
	x := b.Load(0, kir.V(kir.I32, 8), base)
	// Shared memory starts zeroed: its upper half is read back unwritten.
	b.StoreShared(0, tid, x)
	b.Barrier()
	y := b.LoadShared(0, kir.V(kir.I32, 8), b.Idx(4))
	s := b.Emit(kir.Add, kir.V(kir.I32, 8), x, y)
	r := b.EmitImm(kir.SubgroupReduce, kir.S(kir.I32), int64(kir.ReduceAdd), b.Reduce(kir.ReduceAdd, s))
	lane := b.Emit(kir.SubgroupShuffle, kir.S(kir.I32), r, b.Query(kir.LaneID, 0))
	sz := b.Emit(kir.TruncI, kir.S(kir.I32), b.Query(kir.SubgroupSize, 0))
	b.Store(1, base, b.Emit(kir.Add, kir.V(kir.I32, 8), s, b.Emit(kir.Broadcast, kir.V(kir.I32, 8), b.Bin(kir.Add, lane, sz))))
	in := make([]float64, 32)
	for i := range in {
		in[i] = float64(i*7 - 50)
	}
	diff(t, k, [3]int64{4, 1, 1}, nil, [][]byte{enc(kir.I32, in), make([]byte, 4*32)}, 0)
	// A shared access out of its allocation is an error, as in kir.Run.
	k2, b2 := kir.NewKernel("shared_oob")
	k2.Bindings = []kir.Binding{{Elem: kir.I32, Access: kir.Write}}
	k2.Shared = []kir.SharedAlloc{{Elem: kir.I32, Count: 4}}
	b2.Store(0, b2.Idx(0), b2.LoadShared(0, kir.V(kir.I32, 2), b2.Idx(3)))
	x2 := build(t, needLLVM(t), k2)
	err := x2.Run(0, 0, 1, [3]int64{1, 1, 1}, nil, [][]byte{make([]byte, 8)})
	if err == nil || !containsAll(err.Error(), "OUT_OF_RANGE", "shared allocation 0") {
		t.Fatalf("err = %v", err)
	}
	if kir.Run(k2, [3]int64{1, 1, 1}, nil, [][]byte{make([]byte, 8)}) == nil {
		t.Fatalf("kir.Run accepted the access")
	}
}
