package gpu_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/internal/half"
)

// Bindings of floatOpsKernel: inputs, then one output per result type.
const (
	fbA = iota // s
	fbB        // s
	fbC        // s
	fbF32
	fbF64
	fbI8
	fbI16
	fbI32
	fbI64
	fbOutS
	fbOutI1
	fbOutF32
	fbOutF64
	fbOutI8
	fbOutI16
	fbOutI32
	fbOutI64
	fbOutOther // the other 16-bit float
	fbCount
)

var fbElems = func(s kir.Scalar) []kir.Scalar {
	other := kir.BF16
	if s == kir.BF16 {
		other = kir.F16
	}
	return []kir.Scalar{s, s, s, kir.F32, kir.F64, kir.I8, kir.I16, kir.I32, kir.I64,
		s, kir.I1, kir.F32, kir.F64, kir.I8, kir.I16, kir.I32, kir.I64, other}
}

var floatBinaryKinds = []kir.Kind{kir.Add, kir.Sub, kir.Mul, kir.DivF, kir.RemF, kir.MinF, kir.MaxF,
	kir.MinNumF, kir.MaxNumF, kir.PowF, kir.Atan2, kir.CopySign}

var floatUnaryKinds = []kir.Kind{kir.NegF, kir.AbsF, kir.Sqrt, kir.Rsqrt, kir.Cbrt, kir.Exp, kir.Exp2,
	kir.Expm1, kir.Log, kir.Log2, kir.Log10, kir.Log1p, kir.Sin, kir.Cos, kir.Tan, kir.Sinh, kir.Cosh,
	kir.Tanh, kir.Asin, kir.Acos, kir.Atan, kir.Asinh, kir.Acosh, kir.Atanh, kir.Erf, kir.Erfc,
	kir.Floor, kir.Ceil, kir.Round, kir.RoundEven, kir.Trunc}

// floatOpsKernel applies every float op, conversion and comparison to n
// lanes of f16 or bf16 (as one vector, or lane by lane) and stores each
// result to the output binding of its type, n elements per op; it
// returns the kernel and the number of elements of each output binding.
func floatOpsKernel(s kir.Scalar, n int, vector bool) (*kir.Kernel, []int) {
	k, b := kir.NewKernel("float_ops_" + s.String())
	elems := fbElems(s)
	for i, e := range elems {
		acc := kir.Read
		if i >= fbOutS {
			acc = kir.Write
		}
		k.Bindings = append(k.Bindings, kir.Binding{Elem: e, Access: acc})
	}
	outs := make([]int, fbCount)
	lanes := []int{n}
	if !vector {
		lanes = nil
		for i := 0; i < n; i++ {
			lanes = append(lanes, 1)
		}
	}
	// Each op's results go to block number outs[bind] of its binding.
	type result struct {
		bind int
		v    kir.Value
	}
	var rounds [][]result
	off := 0
	for _, w := range lanes {
		ty := func(e kir.Scalar) kir.Type {
			if w == 1 {
				return kir.S(e)
			}
			return kir.V(e, w)
		}
		t := ty(s)
		at := b.Idx(int64(off))
		x, y, z := b.Load(fbA, t, at), b.Load(fbB, t, at), b.Load(fbC, t, at)
		var rs []result
		put := func(bind int, v kir.Value) { rs = append(rs, result{bind, v}) }
		for _, kind := range floatBinaryKinds {
			put(fbOutS, b.Bin(kind, x, y))
		}
		for _, kind := range floatUnaryKinds {
			put(fbOutS, b.Emit(kind, t, x))
		}
		put(fbOutS, b.Emit(kir.FMA, t, x, y, z))
		for _, kind := range []kir.Kind{kir.IsNaN, kir.IsInf, kir.IsFinite} {
			put(fbOutI1, b.Emit(kind, ty(kir.I1), x))
		}
		for p := kir.FPredFalse; p <= kir.FPredTrue; p++ {
			put(fbOutI1, b.Cmp(kir.CmpF, p, x, y))
		}
		put(fbOutS, b.Select(b.Cmp(kir.CmpF, kir.FPredOLT, x, z), x, y))
		put(fbOutF32, b.Emit(kir.FPExt, ty(kir.F32), x))
		put(fbOutF64, b.Emit(kir.FPExt, ty(kir.F64), x))
		put(fbOutS, b.Emit(kir.FPTrunc, t, b.Load(fbF32, ty(kir.F32), at)))
		put(fbOutS, b.Emit(kir.FPTrunc, t, b.Load(fbF64, ty(kir.F64), at)))
		for i, e := range []kir.Scalar{kir.I8, kir.I16, kir.I32, kir.I64} {
			v := b.Load(fbI8+i, ty(e), at)
			put(fbOutS, b.Emit(kir.SIToFP, t, v))
			put(fbOutS, b.Emit(kir.UIToFP, t, v))
			put(fbOutI8+i, b.Emit(kir.FPToSI, ty(e), x))
			put(fbOutI8+i, b.Emit(kir.FPToUI, ty(e), x))
		}
		put(fbOutI16, b.Emit(kir.Bitcast, ty(kir.I16), x))
		put(fbOutS, b.Emit(kir.Bitcast, t, b.Load(fbI16, ty(kir.I16), at)))
		put(fbOutOther, b.Emit(kir.Bitcast, ty(elems[fbOutOther]), x))
		for _, c := range []float64{1.0 / 3, 65519, 1e-8, math.NaN(), math.Copysign(0, -1), 3e38} {
			put(fbOutS, b.Float(t, c))
		}
		if w > 1 {
			for _, r := range []kir.ReduceKind{kir.ReduceAdd, kir.ReduceMul, kir.ReduceMinF, kir.ReduceMaxF} {
				red := b.Reduce(r, x)
				// Stored as lane 0 of a vector, so that every result has w lanes.
				put(fbOutS, b.Emit(kir.Broadcast, t, red))
			}
		}
		rounds = append(rounds, rs)
		off += w
	}
	// Store: result j of each round goes to block j of its binding, at
	// the round's lanes.
	count := make([]int, fbCount)
	for j := range rounds[0] {
		bind := rounds[0][j].bind
		off := 0
		for r, rs := range rounds {
			b.Store(bind, b.Idx(int64(count[bind]*n+off)), rs[j].v)
			off += lanes[r]
		}
		count[bind]++
	}
	b.Append(&kir.Op{Kind: kir.Yield})
	for i := range outs {
		outs[i] = count[i] * n
	}
	return k, outs
}

// specialHalves are edge values of f16 and bf16 (as float64; encoded,
// each rounds to its type).
var specialHalves = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 65504, -65504, 0x1p-14, -0x1p-24,
	0x1p-14 - 0x1p-24, math.Inf(1), math.Inf(-1), math.NaN(), 1 + 0x1p-10, 3.140625, 2049,
	-7.25, 1e-3, 0x1p-133, 3e38, -0.75, 100, 0.3, 1e4}

// halfInputs returns n bit patterns of s: the special values rotated by
// shift, then random patterns (every exponent, NaNs included).
func halfInputs(s kir.Scalar, n, shift int, r *rand.Rand) []byte {
	out := make([]byte, 2*n)
	for i := 0; i < n; i++ {
		var h uint16
		if j := i + shift; j < len(specialHalves)+shift && i < len(specialHalves) {
			x := specialHalves[(i+shift)%len(specialHalves)]
			if s == kir.F16 {
				h = half.F16(x)
			} else {
				h = half.BF16(x)
			}
		} else {
			h = uint16(r.Uint32())
		}
		binary.LittleEndian.PutUint16(out[2*i:], h)
	}
	return out
}

// roundingInputs returns n f32 or f64 values (bytes) near the rounding
// boundaries of s: its values' midpoints exactly and a unit of the
// wider type either side, values just below and at overflow, and random
// patterns.
func roundingInputs(s, wide kir.Scalar, n int, r *rand.Rand) []byte {
	out := make([]byte, n*wide.ByteSize())
	for i := 0; i < n; i++ {
		h := uint16(r.Uint32()) & 0x7fff
		var lo, hi float64
		if s == kir.F16 {
			h %= 0x7c00
			lo, hi = half.F16ToFloat64(h), half.F16ToFloat64(h+1)
		} else {
			h %= 0x7f80
			lo, hi = half.BF16ToFloat64(h), half.BF16ToFloat64(h+1)
		}
		x := (lo + hi) / 2
		switch r.IntN(6) {
		case 0:
			x = math.Nextafter(x, 0)
		case 1:
			x = math.Nextafter(x, math.Inf(1))
		case 2:
			if wide == kir.F32 {
				x = float64(math.Float32frombits(r.Uint32()))
			} else {
				x = math.Float64frombits(r.Uint64())
			}
		case 3:
			// A tie in f32 that is not one in f64: double rounding bait.
			x += (hi - lo) * 0x1p-30 * float64(1-2*r.IntN(2))
		}
		if r.IntN(2) == 0 {
			x = -x
		}
		if wide == kir.F32 {
			binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(float32(x)))
		} else {
			binary.LittleEndian.PutUint64(out[8*i:], math.Float64bits(x))
		}
	}
	return out
}

func TestNarrowFloatOps(t *testing.T) {
	const n = 16
	for _, target := range narrowTargets() {
		for _, s := range []kir.Scalar{kir.F16, kir.BF16} {
			for _, vector := range []bool{false, true} {
				for seed := uint64(0); seed < 4; seed++ {
					t.Run(fmt.Sprintf("%s/%s/vector=%v/%d", target.Name, s, vector, seed), func(t *testing.T) {
						r := rand.New(rand.NewPCG(seed, 9))
						_, outs := floatOpsKernel(s, n, vector)
						elems := fbElems(s)
						in := make([][]byte, fbCount)
						in[fbA] = halfInputs(s, n, int(seed), r)
						in[fbB] = halfInputs(s, n, int(seed)+7, r)
						in[fbC] = halfInputs(s, n, int(seed)+13, r)
						in[fbF32] = roundingInputs(s, kir.F32, n, r)
						in[fbF64] = roundingInputs(s, kir.F64, n, r)
						for i, e := range []kir.Scalar{kir.I8, kir.I16, kir.I32, kir.I64} {
							xs := make([]int64, n)
							for j := range xs {
								xs[j] = int64(r.Uint64()) >> (64 - e.Bits())
								if j < 4 {
									xs[j] = []int64{0, -1, 1 << (e.Bits() - 1), 1<<(e.Bits()-1) - 1}[j]
								}
							}
							in[fbI8+i] = encInts(e, xs)
						}
						for i := fbOutS; i < fbCount; i++ {
							in[i] = make([]byte, outs[i]*elems[i].ByteSize())
						}
						checkNarrow(t, target, func() *kir.Kernel { k, _ := floatOpsKernel(s, n, vector); return k }, [3]int64{1, 1, 1}, nil, in)
					})
				}
			}
		}
	}
}

// encInts encodes xs as elements of the integer type e.
func encInts(e kir.Scalar, xs []int64) []byte {
	b := make([]byte, e.ByteSize()*len(xs))
	for i, x := range xs {
		for j := 0; j < e.ByteSize(); j++ {
			b[i*e.ByteSize()+j] = byte(x >> (8 * j))
		}
	}
	return b
}

// convertKernel is a loop over pc0 elements (vectors of 4), one thread:
// out0[i] = extf(x[i]) (f32), out1[i] = bitcast(x[i]) (i16), out2[i] =
// x[i] (a copy through registers), out3[i] = bitcast(h[i]) (s from i16),
// out4[i] = truncf(f[i]) (s from f32), out5[i] = truncf(d[i]) (s from
// f64), out6[i] = extf(truncf(f[i]) · 1) (rounded twice: no change).
func convertKernel(s kir.Scalar) *kir.Kernel {
	k, b := kir.NewKernel("convert_" + s.String())
	k.NumPushConstants = 1
	r := kir.Read
	k.Bindings = []kir.Binding{{Elem: s, Access: r}, {Elem: kir.I16, Access: r}, {Elem: kir.F32, Access: r}, {Elem: kir.F64, Access: r},
		{Elem: kir.F32, Access: kir.Write}, {Elem: kir.I16, Access: kir.Write}, {Elem: s, Access: kir.Write},
		{Elem: s, Access: kir.Write}, {Elem: s, Access: kir.Write}, {Elem: s, Access: kir.Write}}
	v := func(e kir.Scalar) kir.Type { return kir.V(e, 4) }
	b.For(b.Idx(0), b.Query(kir.PushConstant, 0), b.Idx(4), nil, func(b *kir.Builder, i kir.Value, _ []kir.Value) []kir.Value {
		x := b.Load(0, v(s), i)
		b.Store(4, i, b.Emit(kir.FPExt, v(kir.F32), x))
		b.Store(5, i, b.Emit(kir.Bitcast, v(kir.I16), x))
		b.Store(6, i, x)
		b.Store(7, i, b.Emit(kir.Bitcast, v(s), b.Load(1, v(kir.I16), i)))
		b.Store(8, i, b.Emit(kir.FPTrunc, v(s), b.Load(2, v(kir.F32), i)))
		b.Store(9, i, b.Emit(kir.FPTrunc, v(s), b.Load(3, v(kir.F64), i)))
		return nil
	})
	b.Append(&kir.Op{Kind: kir.Yield})
	return k
}

// TestNarrowConversions runs extf, bitcasts and copies of every f16 and
// bf16 bit pattern, and truncf from f32 and f64 of values at and next to
// every midpoint between neighbouring f16 (bf16: a sample) values.
func TestNarrowConversions(t *testing.T) {
	target := narrowTargets()[0]
	for _, s := range []kir.Scalar{kir.F16, kir.BF16} {
		t.Run(s.String(), func(t *testing.T) {
			const n = 1 << 16
			r := rand.New(rand.NewPCG(3, 4))
			all := make([]byte, 2*n)
			for i := 0; i < n; i++ {
				binary.LittleEndian.PutUint16(all[2*i:], uint16(i))
			}
			f32s := make([]byte, 4*n)
			f64s := make([]byte, 8*n)
			for i := 0; i < n; i++ {
				h := uint16(i) & 0x7fff
				var lo, hi float64
				if s == kir.F16 {
					h = min(h, 0x7bff)
					lo, hi = half.F16ToFloat64(h), half.F16ToFloat64(h+1)
				} else {
					h = min(h, 0x7f7f)
					lo, hi = half.BF16ToFloat64(h), half.BF16ToFloat64(h+1)
				}
				mid := (lo + hi) / 2
				x := []float64{mid, float64(math.Nextafter32(float32(mid), 0)), float64(math.Nextafter32(float32(mid), float32(math.Inf(1)))), mid}[r.IntN(4)]
				if i&0x8000 != 0 {
					x = -x
				}
				binary.LittleEndian.PutUint32(f32s[4*i:], math.Float32bits(float32(x)))
				d := mid + (hi-lo)*0x1p-35*float64(1-2*r.IntN(2))
				if r.IntN(8) == 0 {
					d = math.Float64frombits(r.Uint64())
				}
				binary.LittleEndian.PutUint64(f64s[8*i:], math.Float64bits(d))
			}
			in := [][]byte{all, all, f32s, f64s, make([]byte, 4*n), make([]byte, 2*n), make([]byte, 2*n), make([]byte, 2*n), make([]byte, 2*n), make([]byte, 2*n)}
			checkNarrow(t, target, func() *kir.Kernel { return convertKernel(s) }, [3]int64{1, 1, 1}, []int64{n}, in)
		})
	}
}
