package gpu_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/gpu"
	"github.com/gree-ml/gree/go/compiler/target/targettest"
	"github.com/gree-ml/gree/go/status"
)

// lowering is one way of lowering i64 for a target without Int64.
type lowering struct {
	name string
	// lower rewrites a kernel.
	lower func(*kir.Kernel) error
	// narrow: index arithmetic is narrowed too, so that no i64 value
	// may be left.
	narrow bool
	// keepsData: i64 data is not emulated (NarrowIndices alone).
	keepsData bool
}

// lowerings are the ways the tests lower i64: data emulation with i64
// index arithmetic, and index narrowing followed by the emulation
// (LowerInt64's default).
func lowerings() []lowering {
	return []lowering{
		{name: "i64index", lower: func(k *kir.Kernel) error { return gpu.EmulateInt64(k, kir.Index) }},
		{"i32index", func(k *kir.Kernel) error {
			if err := gpu.NarrowIndices(k); err != nil {
				return err
			}
			return gpu.EmulateInt64(k, kir.I32)
		}, true, false},
	}
}

// checkLowered runs k on the reference interpreter before and after
// lower, on copies of the same bindings, and requires the same outcome:
// both fail (an out-of-bounds access, say), or both succeed with every
// binding equal bit for bit. The lowered kernel must verify and hold no
// i64 binding or shared allocation, and no i64 value at all when l
// narrows indices.
func checkLowered(t *testing.T, k *kir.Kernel, grid [3]int64, pcs []int64, in [][]byte, l lowering) {
	t.Helper()
	text := k.String()
	want := targettest.Clone(in)
	errWant := kir.Run(k, grid, pcs, want)
	if err := l.lower(k); err != nil {
		t.Fatalf("lowering: %v\n%s", err, text)
	}
	if err := kir.Verify(k); err != nil {
		t.Fatalf("lowered kernel does not verify: %v\nbefore:\n%s\nafter:\n%s", err, text, k)
	}
	if l.narrow && !l.keepsData {
		if v, ok := findI64(k, k.Body); ok {
			t.Fatalf("%%%d is still i64\nbefore:\n%s\nafter:\n%s", v, text, k)
		}
	}
	for i, b := range k.Bindings {
		if b.Elem == kir.I64 && !l.keepsData {
			t.Fatalf("binding %d is still i64\n%s", i, k)
		}
	}
	for i, s := range k.Shared {
		if s.Elem == kir.I64 && !l.keepsData {
			t.Fatalf("shared allocation %d is still i64\n%s", i, k)
		}
	}
	got := targettest.Clone(in)
	errGot := kir.Run(k, grid, pcs, got)
	if (errWant == nil) != (errGot == nil) {
		t.Fatalf("before: %v, after: %v\nbefore:\n%s\nafter:\n%s", errWant, errGot, text, k)
	}
	if errWant != nil {
		return
	}
	for i := range want {
		if !bytes.Equal(want[i], got[i]) {
			t.Fatalf("binding %d differs:\n%s\nbefore:\n%s\nafter:\n%s", i, diffWords(want[i], got[i]), text, k)
		}
	}
}

// findI64 returns a value of blk (defined or used) whose element type is
// i64.
func findI64(k *kir.Kernel, blk *kir.Block) (kir.Value, bool) {
	for _, v := range blk.Args {
		if k.Types[v].Elem == kir.I64 {
			return v, true
		}
	}
	for _, op := range blk.Ops {
		for _, vs := range [][]kir.Value{op.Args, op.Results} {
			for _, v := range vs {
				if k.Types[v].Elem == kir.I64 {
					return v, true
				}
			}
		}
		for _, r := range op.Regions {
			if v, ok := findI64(k, r); ok {
				return v, true
			}
		}
	}
	return 0, false
}

// diffWords describes the first differing 8-byte words.
func diffWords(a, b []byte) string {
	var s []string
	for i := 0; i+8 <= len(a) && len(s) < 6; i += 8 {
		x, y := binary.LittleEndian.Uint64(a[i:]), binary.LittleEndian.Uint64(b[i:])
		if x != y {
			s = append(s, fmt.Sprintf("word %d: want %#x, got %#x", i/8, x, y))
		}
	}
	if len(s) == 0 {
		return fmt.Sprintf("want % x\ngot  % x", a, b)
	}
	return strings.Join(s, "\n")
}

// wideCases are i64 operand pairs beyond targettest's: carries and
// borrows across the words, products with high words, divisors of
// every size, shift amounts around 32 and 64 and with high words, and
// random values of every magnitude.
func wideCases() []targettest.IntCase {
	a := []int64{0xffffffff, 0x100000000, 0x7fffffff, 0x80000000, -0x80000000, -0x100000000, 0x1234567890abcdef,
		-0x1234567890abcdef, math.MaxInt64, math.MinInt64, 1 << 62, 0xffffffff, 123456789012345, -1, 5, 1 << 40}
	b := []int64{1, 0xffffffff, 1, 0x80000000, 0x7fffffff, 3, 0x100000000, 0x10001, -1, 7, 0x7fffffff00000000,
		0xffffffff, -1000000007, 32, 33, 1 << 32}
	cases := []targettest.IntCase{{Elem: kir.I64, A: a, B: b}}
	shifts := []int64{0, 1, 31, 32, 33, 63, 64, 65, 1 << 32, -1, 40, 16, 48, 62, 100, 0x100000020}
	vals := make([]int64, len(shifts))
	for i := range vals {
		vals[i] = []int64{-0x123456789abcdef, 0x0fedcba987654321, math.MinInt64, -1}[i%4]
	}
	cases = append(cases, targettest.IntCase{Elem: kir.I64, A: vals, B: shifts})
	r := rand.New(rand.NewSource(64))
	for c := 0; c < 4; c++ {
		a, b := make([]int64, 16), make([]int64, 16)
		for i := range a {
			a[i] = int64(r.Uint64() >> uint(r.Intn(64)))
			b[i] = int64(r.Uint64() >> uint(r.Intn(64)))
			if r.Intn(2) == 0 {
				a[i] = -a[i]
			}
			if r.Intn(3) == 0 {
				b[i] = -b[i]
			}
		}
		cases = append(cases, targettest.IntCase{Elem: kir.I64, A: a, B: b})
	}
	return cases
}

// TestEmulateInt64IntOps checks every integer binary and unary op and
// every comparison on i64, as scalars and as vectors, against the
// interpreter's i64 arithmetic.
func TestEmulateInt64IntOps(t *testing.T) {
	for _, l := range lowerings() {
		t.Run(l.name, func(t *testing.T) {
			var cases []targettest.IntCase
			for _, c := range targettest.IntCases() {
				if c.Elem == kir.I64 {
					cases = append(cases, c)
				}
			}
			cases = append(cases, wideCases()...)
			for ci, c := range cases {
				for _, vector := range []bool{false, true} {
					t.Run(fmt.Sprintf("case%d/vector=%v", ci, vector), func(t *testing.T) {
						n := len(c.A)
						k := targettest.IntOps(kir.I64, n, vector)
						in := [][]byte{targettest.EncInts(kir.I64, c.A), targettest.EncInts(kir.I64, c.B),
							make([]byte, 8*n*(len(targettest.IntBinaryKinds)+len(targettest.IntUnaryKinds))),
							make([]byte, n*int(kir.PredUGE+1))}
						checkLowered(t, k, [3]int64{1, 1, 1}, nil, in, l)
					})
				}
			}
		})
	}
}

// mapKernel builds out[i] = f(in[i]) for n elements, as one vector of n
// lanes or n scalars.
func mapKernel(in, out kir.Scalar, n int, vector bool, f func(b *kir.Builder, x kir.Value, t kir.Type) kir.Value) *kir.Kernel {
	k, b := kir.NewKernel("map")
	k.Bindings = []kir.Binding{{Elem: in, Access: kir.Read}, {Elem: out, Access: kir.Write}}
	if vector {
		x := b.Load(0, kir.V(in, n), b.Idx(0))
		b.Store(1, b.Idx(0), f(b, x, kir.V(out, n)))
		return k
	}
	for i := 0; i < n; i++ {
		x := b.Load(0, kir.S(in), b.Idx(int64(i)))
		b.Store(1, b.Idx(int64(i)), f(b, x, kir.S(out)))
	}
	return k
}

// intValues returns edge and random values of i64 for the conversions.
func intValues() []int64 {
	xs := []int64{0, 1, -1, 2, -2, math.MaxInt64, math.MinInt64, math.MaxInt32, math.MinInt32, 1 << 32, 1<<32 - 1,
		-1 << 32, 1<<24 + 1, 1<<24 + 3, 1<<53 + 1, -(1<<53 + 1), 1<<63 - 1<<39, 1<<63 - 1<<39 - 1, 0x123456789,
		0x00000001_00000081, 0x00000001_00000180, 0x00000001_00000181, -0x00000001_00000181, 0x7fffffbf_ffffffff,
		0x0000_8000_0000_8000, 0x0000_8000_0000_7fff, 0xffff, 0x10000, 255, 256, 65504, 65520, 1 << 15}
	r := rand.New(rand.NewSource(3))
	for len(xs) < 64 {
		x := int64(r.Uint64() >> uint(r.Intn(64)))
		if r.Intn(2) == 0 {
			x = -x
		}
		xs = append(xs, x)
	}
	return xs
}

// floatValues returns edge values (as float64) for FPToSI and FPToUI.
func floatValues() []float64 {
	return []float64{0, math.Copysign(0, -1), 0.5, -0.5, 0.99, -0.99, 1, -1, 1.5, -1.5, 255.9, -255.9, 65504, -65504,
		0x1p31, -0x1p31, 0x1p32, -0x1p32, 0x1p32 - 1, 0x1p32 + 1, 0x1p53, 0x1p53 + 2, 0x1p62, 0x1p63, -0x1p63, 0x1p63 - 0x1p39,
		-0x1p63 + 0x1p39, 0x1p64, 0x1p64 - 0x1p40, -0x1p64, 1e30, -1e30, math.Inf(1), math.Inf(-1), math.NaN(),
		12345.678, -12345.678, 4294967040, 1.2e19, 1.8e19, -9.3e18, 3e9, -3e9, 7e14 + 0.5, 0x1p-30}
}

// encFloats encodes xs as little-endian elements of the float type e,
// rounded to nearest even.
func encFloats(e kir.Scalar, xs []float64) []byte {
	k, b := kir.NewKernel("enc")
	k.Bindings = []kir.Binding{{Elem: e, Access: kir.Write}}
	for i, x := range xs {
		b.Store(0, b.Idx(int64(i)), b.Float(kir.S(e), x))
	}
	out := [][]byte{make([]byte, e.ByteSize()*len(xs))}
	if err := kir.Run(k, [3]int64{1, 1, 1}, nil, out); err != nil {
		panic(err)
	}
	return out[0]
}

// TestEmulateInt64Conversions checks the extensions to i64, the
// truncations from it and the conversions between i64 and every float
// type.
func TestEmulateInt64Conversions(t *testing.T) {
	for _, l := range lowerings() {
		t.Run(l.name, func(t *testing.T) {
			ints := intValues()
			floats := floatValues()
			type conv struct {
				name     string
				kind     kir.Kind
				from, to kir.Scalar
			}
			var convs []conv
			for _, s := range []kir.Scalar{kir.I1, kir.I8, kir.I16, kir.I32} {
				convs = append(convs, conv{"extsi", kir.ExtS, s, kir.I64}, conv{"extui", kir.ExtU, s, kir.I64}, conv{"trunci", kir.TruncI, kir.I64, s})
			}
			for _, f := range []kir.Scalar{kir.F16, kir.BF16, kir.F32, kir.F64} {
				convs = append(convs, conv{"sitofp", kir.SIToFP, kir.I64, f}, conv{"uitofp", kir.UIToFP, kir.I64, f},
					conv{"fptosi", kir.FPToSI, f, kir.I64}, conv{"fptoui", kir.FPToUI, f, kir.I64})
			}
			for _, c := range convs {
				for _, vector := range []bool{false, true} {
					t.Run(fmt.Sprintf("%s_%s_%s/vector=%v", c.name, c.from, c.to, vector), func(t *testing.T) {
						var in []byte
						n := len(ints)
						if c.from.IsFloat() {
							n = len(floats)
							in = encFloats(c.from, floats)
						} else {
							in = targettest.EncInts(c.from, ints)
						}
						if vector {
							n = min(n, 16) // a vector of 16; the scalars cover the rest
							in = in[:n*c.from.ByteSize()]
						}
						k := mapKernel(c.from, c.to, n, vector, func(b *kir.Builder, x kir.Value, t kir.Type) kir.Value {
							return b.Emit(c.kind, t, x)
						})
						checkLowered(t, k, [3]int64{1, 1, 1}, nil, [][]byte{in, make([]byte, n*c.to.ByteSize())}, l)
					})
				}
			}
		})
	}
}

// TestEmulateInt64Reduce checks vector reductions of i64 of every
// integer kind and several widths.
func TestEmulateInt64Reduce(t *testing.T) {
	for _, l := range lowerings() {
		t.Run(l.name, func(t *testing.T) {
			xs := intValues()
			kinds := []kir.ReduceKind{kir.ReduceAdd, kir.ReduceMul, kir.ReduceMinS, kir.ReduceMaxS, kir.ReduceMinU, kir.ReduceMaxU, kir.ReduceAnd, kir.ReduceOr, kir.ReduceXor}
			for _, n := range []int{2, 3, 4, 8} {
				for _, r := range kinds {
					t.Run(fmt.Sprintf("%d/%d", r, n), func(t *testing.T) {
						k, b := kir.NewKernel("reduce")
						k.Bindings = []kir.Binding{{Elem: kir.I64, Access: kir.Read}, {Elem: kir.I64, Access: kir.Write}}
						for i := 0; i+n <= len(xs); i += n {
							v := b.Load(0, kir.V(kir.I64, n), b.Idx(int64(i)))
							b.Store(1, b.Idx(int64(i/n)), b.Reduce(r, v))
						}
						checkLowered(t, k, [3]int64{1, 1, 1}, nil, [][]byte{targettest.EncInts(kir.I64, xs), make([]byte, 8*len(xs)/n)}, l)
					})
				}
			}
		})
	}
}

// TestEmulateInt64Memory checks loads and stores of i64 bindings and
// shared allocations — scalar, vector, strided (forward and backward) —
// at offsets given as push constants: in bounds, straddling the end,
// negative, and so large that doubling them overflows. Each must fail
// exactly when the original does.
func TestEmulateInt64Memory(t *testing.T) {
	for _, l := range lowerings() {
		t.Run(l.name, func(t *testing.T) {
			const count = 24
			offsets := []int64{0, 1, 5, count - 4, count - 3, count - 1, count, -1, -4, 1 << 62, 1<<62 + 1, 1 << 61, math.MinInt64, math.MinInt64 + 3, math.MaxInt64, -(1 << 62),
				math.MinInt32, math.MaxInt32, 1 << 30, 1<<30 + 1, math.MinInt32 + 3, -(1 << 30)}
			strides := []int64{1, 2, 3, -1, -2, 0, 1 << 61, -(1 << 61), 1 << 40, math.MinInt64 + 1, math.MaxInt64, 1 << 29, -(1 << 29), 1 << 30, math.MinInt32 + 1, math.MaxInt32}
			for _, off := range offsets {
				for _, stride := range strides {
					for _, lanes := range []int{1, 2, 4} {
						for _, kind := range []string{"contiguous", "strided", "shared"} {
							if kind != "strided" && stride != 1 {
								continue
							}
							if l.narrow && (int64(int32(off)) != off || int64(int32(stride)) != stride) {
								continue // push constants are assumed to fit in 32 bits
							}
							name := fmt.Sprintf("%s/off=%d/stride=%d/lanes=%d", kind, off, stride, lanes)
							t.Run(name, func(t *testing.T) {
								k, b := kir.NewKernel("mem")
								k.Bindings = []kir.Binding{{Elem: kir.I64, Access: kir.Read}, {Elem: kir.I64, Access: kir.ReadWrite}}
								k.NumPushConstants = 2
								ty := kir.V(kir.I64, lanes)
								if lanes == 1 {
									ty = kir.S(kir.I64)
								}
								o, s := b.Query(kir.PushConstant, 0), b.Query(kir.PushConstant, 1)
								switch kind {
								case "contiguous":
									x := b.Load(0, ty, o)
									b.Store(1, o, b.Bin(kir.Add, x, x))
								case "strided":
									x := b.LoadStrided(0, ty, o, s)
									b.StoreStrided(1, o, s, b.Bin(kir.Xor, x, b.Int(ty, -1)))
								case "shared":
									k.Shared = []kir.SharedAlloc{{Elem: kir.I64, Count: count}}
									x := b.Load(0, ty, b.Idx(0))
									b.StoreShared(0, o, x)
									b.Store(1, b.Idx(0), b.LoadShared(0, ty, o))
								}
								xs := intValues()[:count]
								checkLowered(t, k, [3]int64{1, 1, 1}, []int64{off, stride}, [][]byte{targettest.EncInts(kir.I64, xs), make([]byte, 8*count)}, l)
							})
						}
					}
				}
			}
		})
	}
}

// TestEmulateInt64DataAsIndex checks i64 data reaching index operands:
// gathers through loaded i64 offsets (in range, negative, beyond the
// 32-bit range) and a loop whose bound is loaded.
func TestEmulateInt64DataAsIndex(t *testing.T) {
	for _, l := range lowerings() {
		t.Run(l.name, func(t *testing.T) {
			for _, idx := range []int64{0, 3, 7, 8, -1, 1 << 32, 1<<32 + 3, -1 << 32, math.MinInt64, 1 << 40} {
				t.Run(fmt.Sprint(idx), func(t *testing.T) {
					k, b := kir.NewKernel("gather")
					k.Bindings = []kir.Binding{{Elem: kir.I64, Access: kir.Read}, {Elem: kir.F32, Access: kir.Read}, {Elem: kir.F32, Access: kir.Write}, {Elem: kir.I64, Access: kir.Write}}
					i := b.Load(0, kir.S(kir.I64), b.Idx(0))
					b.Store(2, b.Idx(0), b.Load(1, kir.S(kir.F32), i))
					j := b.Emit(kir.ExtS, kir.S(kir.I64), b.Emit(kir.TruncI, kir.S(kir.I32), i)) // an extension of narrower data
					b.Store(2, b.Idx(1), b.Load(1, kir.S(kir.F32), b.Bin(kir.RemS, j, b.Idx(8))))
					// A loop to the loaded bound, clamped to the output, summing i64 data.
					hi := b.Bin(kir.MinS, b.Bin(kir.MaxS, i, b.Idx(0)), b.Idx(8))
					acc := b.For(b.Idx(0), hi, b.Idx(1), []kir.Value{i}, func(b *kir.Builder, iv kir.Value, it []kir.Value) []kir.Value {
						return []kir.Value{b.Bin(kir.Add, it[0], b.Bin(kir.Mul, iv, b.Int(kir.S(kir.I64), 0x100000001)))}
					})
					b.Store(3, b.Idx(0), acc[0])
					in := [][]byte{targettest.EncInts(kir.I64, []int64{idx}), make([]byte, 32), make([]byte, 8), make([]byte, 8)}
					for n := 0; n < 8; n++ {
						binary.LittleEndian.PutUint32(in[1][4*n:], math.Float32bits(float32(n)+0.5))
					}
					checkLowered(t, k, [3]int64{1, 1, 1}, nil, in, l)
				})
			}
		})
	}
}

// TestEmulateInt64IndexAsData checks indices flowing into i64 data: ids
// and loop counters stored to i64 bindings and combined with i64 data
// and with constants beyond 32 bits, loop-carried values and If results
// that mix indices and data.
func TestEmulateInt64IndexAsData(t *testing.T) {
	for _, l := range lowerings() {
		t.Run(l.name, func(t *testing.T) {
			k, b := kir.NewKernel("iota")
			k.WorkgroupSize = [3]int{4, 1, 1}
			k.Grid[0] = kir.GridDim{Static: 3, Tile: 1}
			k.NumPushConstants = 1
			k.Bindings = []kir.Binding{{Elem: kir.I64, Access: kir.Read}, {Elem: kir.I64, Access: kir.Write}}
			id := b.Bin(kir.Add, b.Bin(kir.Mul, b.Query(kir.WorkgroupID, 0), b.Idx(4)), b.Query(kir.ThreadID, 0))
			base := b.Bin(kir.Mul, id, b.Idx(4))
			x := b.Load(0, kir.S(kir.I64), id)
			b.Store(1, base, id)                                                                        // an index as data
			b.Store(1, b.Bin(kir.Add, base, b.Idx(1)), b.Bin(kir.Mul, id, b.Idx(1<<40)))                // a constant beyond 32 bits
			b.Store(1, b.Bin(kir.Add, base, b.Idx(2)), b.Bin(kir.Sub, x, b.Query(kir.PushConstant, 0))) // index and data
			cond := b.Cmp(kir.CmpI, kir.PredSLT, x, id)
			r := b.If(cond, []kir.Type{kir.S(kir.I64)}, func(b *kir.Builder) []kir.Value { return []kir.Value{id} },
				func(b *kir.Builder) []kir.Value { return []kir.Value{b.Bin(kir.ShrS, x, b.Idx(3))} })
			sum := b.For(b.Idx(0), b.Idx(3), b.Idx(1), []kir.Value{r[0], id}, func(b *kir.Builder, iv kir.Value, it []kir.Value) []kir.Value {
				return []kir.Value{b.Bin(kir.Mul, it[0], b.Bin(kir.Add, iv, b.Idx(-3))), b.Bin(kir.Add, it[1], iv)}
			})
			b.Store(1, b.Bin(kir.Add, base, b.Idx(3)), b.Bin(kir.Add, sum[0], sum[1]))
			xs := intValues()[:12]
			checkLowered(t, k, [3]int64{3, 1, 1}, []int64{5}, [][]byte{targettest.EncInts(kir.I64, xs), make([]byte, 8*48)}, l)
		})
	}
}

// TestEmulateInt64Subgroups checks subgroup reductions (every kind but
// the product) and shuffles of i64 values, with a partial last subgroup.
func TestEmulateInt64Subgroups(t *testing.T) {
	for _, l := range lowerings() {
		t.Run(l.name, func(t *testing.T) {
			xs := intValues()
			kinds := []kir.ReduceKind{kir.ReduceAdd, kir.ReduceMinS, kir.ReduceMaxS, kir.ReduceMinU, kir.ReduceMaxU, kir.ReduceAnd, kir.ReduceOr, kir.ReduceXor}
			for _, r := range kinds {
				t.Run(fmt.Sprint(r), func(t *testing.T) {
					k, b := kir.NewKernel("subgroup")
					k.WorkgroupSize = [3]int{12, 1, 1}
					k.SubgroupSize = 8
					k.Bindings = []kir.Binding{{Elem: kir.I64, Access: kir.Read}, {Elem: kir.I64, Access: kir.Write}}
					tid := b.Query(kir.ThreadID, 0)
					x := b.Load(0, kir.S(kir.I64), tid)
					s := b.EmitImm(kir.SubgroupReduce, kir.S(kir.I64), int64(r), x)
					b.Store(1, tid, s)
					lane := b.Bin(kir.Sub, b.Idx(5), b.Query(kir.LaneID, 0))
					b.Store(1, b.Bin(kir.Add, tid, b.Idx(12)), b.Emit(kir.SubgroupShuffle, kir.S(kir.I64), x, lane))
					// A shuffle to a lane given by data.
					b.Store(1, b.Bin(kir.Add, tid, b.Idx(24)), b.Emit(kir.SubgroupShuffle, kir.S(kir.I64), s, x))
					checkLowered(t, k, [3]int64{2, 1, 1}, nil, [][]byte{targettest.EncInts(kir.I64, xs[:12]), make([]byte, 8*36)}, l)
				})
			}
		})
	}
}

// TestEmulateInt64RejectsWhatItCannotEmulate checks the errors for a
// subgroup product and a bitcast to f64.
func TestEmulateInt64RejectsWhatItCannotEmulate(t *testing.T) {
	k, b := kir.NewKernel("product")
	k.WorkgroupSize = [3]int{8, 1, 1}
	k.Bindings = []kir.Binding{{Elem: kir.I64, Access: kir.ReadWrite}}
	x := b.Load(0, kir.S(kir.I64), b.Query(kir.ThreadID, 0))
	b.Store(0, b.Query(kir.ThreadID, 0), b.EmitImm(kir.SubgroupReduce, kir.S(kir.I64), int64(kir.ReduceMul), x))
	k2, b2 := kir.NewKernel("bitcast")
	k2.Bindings = []kir.Binding{{Elem: kir.I64, Access: kir.Read}, {Elem: kir.F64, Access: kir.Write}}
	b2.Store(1, b2.Idx(0), b2.Emit(kir.Bitcast, kir.S(kir.F64), b2.Load(0, kir.S(kir.I64), b2.Idx(0))))
	for _, k := range []*kir.Kernel{k, k2} {
		err := gpu.LowerInt64(k, gpu.AndroidBaseline2022())
		if status.CodeOf(err) != status.FailedPrecondition || !strings.Contains(err.Error(), "Int64") || !strings.Contains(err.Error(), "vp_android_baseline_2022") {
			t.Errorf("%s: got %v, want FAILED_PRECONDITION naming Int64 and the target", k.Name, err)
		}
	}
}

// TestEmulateInt64PushConstantData checks push constants that carry data
// rather than sizes: an i64 scalar beyond 32 bits, and an f32's bits
// (codegen's truncation and bitcast).
func TestEmulateInt64PushConstantData(t *testing.T) {
	for _, l := range lowerings() {
		t.Run(l.name, func(t *testing.T) {
			k, b := kir.NewKernel("scalars")
			k.NumPushConstants = 3
			k.Bindings = []kir.Binding{{Elem: kir.I64, Access: kir.ReadWrite}, {Elem: kir.F32, Access: kir.Write}}
			x := b.Query(kir.PushConstant, 0)
			n := b.Query(kir.PushConstant, 2)
			b.For(b.Idx(0), n, b.Idx(1), nil, func(b *kir.Builder, i kir.Value, _ []kir.Value) []kir.Value {
				b.Store(0, i, b.Bin(kir.Add, b.Load(0, kir.S(kir.I64), i), x))
				return nil
			})
			f := b.Emit(kir.Bitcast, kir.S(kir.F32), b.Emit(kir.TruncI, kir.S(kir.I32), b.Query(kir.PushConstant, 1)))
			b.Store(1, b.Idx(0), f)
			b.Store(0, n, x)
			in := [][]byte{targettest.EncInts(kir.I64, intValues()[:8]), make([]byte, 4)}
			for _, pc := range []int64{1<<40 + 5, -1 << 35, math.MinInt64, 7} {
				checkLowered(t, cloneKernel(t, k), [3]int64{1, 1, 1}, []int64{pc, int64(math.Float32bits(-2.5)), 7}, in, l)
			}
		})
	}
}
