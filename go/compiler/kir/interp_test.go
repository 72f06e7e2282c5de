package kir

import (
	"encoding/binary"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/gree-ml/gree/go/status"
)

// evalBin runs one binary op of type s on scalars x and y.
func evalBin(t *testing.T, kind Kind, s Scalar, x, y int64) int64 {
	t.Helper()
	k, b := NewKernel("bin")
	k.Bindings = []Binding{{Elem: I64, Access: Write}}
	r := b.Bin(kind, b.Int(S(s), x), b.Int(S(s), y))
	if s != I64 {
		r = b.Emit(ExtS, S(I64), r)
	}
	b.Store(0, b.Idx(0), r)
	out := make([]byte, 8)
	if err := Run(k, [3]int64{1, 1, 1}, nil, [][]byte{out}); err != nil {
		t.Fatal(err)
	}
	return int64(binary.LittleEndian.Uint64(out))
}

func TestIntegerSemantics(t *testing.T) {
	cases := []struct {
		kind Kind
		s    Scalar
		x, y int64
		want int64
	}{
		{DivS, I32, 7, 0, 0}, {DivU, I32, 7, 0, 0}, {RemS, I32, 7, 0, 0}, {RemU, I8, 7, 0, 0},
		{DivS, I32, math.MinInt32, -1, math.MinInt32}, {RemS, I32, math.MinInt32, -1, 0},
		{DivS, I64, math.MinInt64, -1, math.MinInt64}, {DivS, I8, -7, 2, -3}, {RemS, I8, -7, 2, -1},
		{FloorDivS, I32, -7, 2, -4}, {FloorDivS, I32, 7, -2, -4}, {FloorDivS, I32, 6, -2, -3},
		{CeilDivS, I32, 7, 2, 4}, {CeilDivS, I32, -7, 2, -3}, {CeilDivU, I8, -1, 2, -128},
		{DivU, I8, -1, 2, 127}, {RemU, I16, -1, 10, 5}, {MinU, I8, -1, 1, 1}, {MaxU, I8, -1, 1, -1},
		{Shl, I8, 1, 7, -128}, {Shl, I8, 1, 8, 0}, {Shl, I32, 1, -1, 0}, {ShrS, I8, -128, 9, -1},
		{ShrS, I16, 100, 70, 0}, {ShrU, I8, -1, 1, 127}, {ShrU, I64, -1, 64, 0}, {ShrU, I64, -1, 63, 1},
		{Add, I8, 127, 1, -128}, {Mul, I16, 300, 300, 24464}, {Add, I1, -1, -1, 0}, {Mul, I1, -1, -1, -1},
	}
	for _, c := range cases {
		if got := evalBin(t, c.kind, c.s, c.x, c.y); got != c.want {
			t.Errorf("%s %s(%d, %d) = %d, want %d", c.kind, c.s, c.x, c.y, got, c.want)
		}
	}
}

func TestHalfConversions(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		x := f16ToF64(uint16(h))
		back := f64ToF16(x)
		if math.IsNaN(x) {
			if back&0x7c00 != 0x7c00 || back&0x3ff == 0 {
				t.Fatalf("NaN %#x came back as %#x", h, back)
			}
			continue
		}
		if back != uint16(h) {
			t.Fatalf("f16 %#x → %g → %#x", h, x, back)
		}
		if bf := f64ToBF16(bf16ToF64(uint16(h))); !math.IsNaN(bf16ToF64(uint16(h))) && bf != uint16(h) {
			t.Fatalf("bf16 %#x → %#x", h, bf)
		}
	}
	// Ties to even, directly from f64 (no double rounding through f32).
	cases := []struct {
		x    float64
		want uint16
	}{
		{1 + 1.0/2048, 0x3c00}, {1 + 3.0/2048, 0x3c02}, {1 + 1.0/2048 + 1e-12, 0x3c01},
		{65519.99, 0x7bff}, {65520, 0x7c00}, {math.Ldexp(1, -25), 0}, {math.Ldexp(1.5, -25), 1},
		{-math.Ldexp(1, -24), 0x8001}, {math.Ldexp(1, -14), 0x0400}, {1e-300, 0}, {math.Inf(-1), 0xfc00},
	}
	for _, c := range cases {
		if got := f64ToF16(c.x); got != c.want {
			t.Errorf("f64ToF16(%g) = %#04x, want %#04x", c.x, got, c.want)
		}
	}
}

func TestFMA32(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 100000; i++ {
		a := math.Float32frombits(r.Uint32() & 0xbfffffff)
		b := math.Float32frombits(r.Uint32() & 0xbfffffff)
		c := math.Float32frombits(r.Uint32() & 0xbfffffff)
		if i%2 == 0 { // make cancellation likely
			c = -a * b
			c = math.Nextafter32(c, float32(r.NormFloat64()))
		}
		got := fma32(a, b, c)
		exact := new(big.Float).SetPrec(400).SetFloat64(float64(a))
		exact.Mul(exact, new(big.Float).SetFloat64(float64(b)))
		exact.Add(exact, new(big.Float).SetFloat64(float64(c)))
		want, _ := exact.Float32()
		if got != want && !(want == 0 && got == 0) {
			t.Fatalf("fma32(%g, %g, %g) = %g, want %g", a, b, c, got, want)
		}
	}
}

func TestFloatSemantics(t *testing.T) {
	nan := math.NaN()
	negZero := math.Copysign(0, -1)
	if got := minMaxF(negZero, 0, false, false); !math.Signbit(got) {
		t.Errorf("minimumf(-0, +0) = %g", got)
	}
	if got := minMaxF(0, negZero, true, false); math.Signbit(got) {
		t.Errorf("maximumf(+0, -0) = %g", got)
	}
	if got := minMaxF(1, nan, false, false); !math.IsNaN(got) {
		t.Errorf("minimumf(1, NaN) = %g", got)
	}
	if got := minMaxF(nan, 1, true, true); got != 1 {
		t.Errorf("maxnumf(NaN, 1) = %g", got)
	}
	for _, c := range []struct {
		x      float64
		n      int
		signed bool
		want   int64
	}{{1e10, 32, true, math.MaxInt32}, {-1e10, 32, true, math.MinInt32}, {nan, 8, true, 0},
		{-3.7, 8, true, -3}, {300, 8, false, -1}, {-5, 8, false, 0}, {1e30, 64, true, math.MaxInt64},
		{255.9, 8, false, -1}, {127.5, 8, true, 127}} {
		if got := int64(fpToInt(c.x, c.n, c.signed)); got != c.want {
			t.Errorf("fpToInt(%g, %d, %v) = %d, want %d", c.x, c.n, c.signed, got, c.want)
		}
	}
}

func TestRunErrors(t *testing.T) {
	k, b := NewKernel("oob")
	k.Bindings = []Binding{{Elem: F32, Access: Read}}
	b.Load(0, V(F32, 4), b.Idx(2))
	err := Run(k, [3]int64{1, 1, 1}, nil, [][]byte{make([]byte, 16)})
	if status.CodeOf(err) != status.OutOfRange {
		t.Errorf("out-of-bounds load: %v", err)
	}
	if err := Run(k, [3]int64{1, 1, 1}, nil, nil); status.CodeOf(err) != status.InvalidArgument {
		t.Errorf("missing binding: %v", err)
	}
	k2, b2 := NewKernel("step")
	b2.For(b2.Idx(0), b2.Idx(4), b2.Idx(0), nil, func(b *Builder, i Value, _ []Value) []Value { return nil })
	if err := Run(k2, [3]int64{1, 1, 1}, nil, nil); status.CodeOf(err) != status.InvalidArgument {
		t.Errorf("zero step: %v", err)
	}
}

// TestThreadsAndBarrier: 64 threads (two subgroups) exchange values through
// shared memory and subgroup operations.
func TestThreadsAndBarrier(t *testing.T) {
	k, b := NewKernel("threads")
	k.WorkgroupSize = [3]int{16, 4, 1}
	k.Shared = []SharedAlloc{{Elem: I32, Count: 64}}
	k.Bindings = []Binding{{Elem: I32, Access: Write}}
	i32 := S(I32)
	lin := b.Bin(Add, b.Query(ThreadID, 0), b.Bin(Mul, b.Query(ThreadID, 1), b.Idx(16)))
	b.StoreShared(0, lin, b.Emit(TruncI, i32, lin))
	b.Barrier()
	other := b.LoadShared(0, i32, b.Bin(Sub, b.Idx(63), lin))
	sum := b.EmitImm(SubgroupReduce, i32, int64(ReduceAdd), other)
	sh := b.Emit(SubgroupShuffle, i32, other, b.Idx(0))
	b.Store(0, lin, b.Bin(Add, b.Bin(Mul, sum, b.Int(i32, 1000)), sh))
	out := make([]byte, 4*64)
	if err := Run(k, [3]int64{1, 1, 1}, nil, [][]byte{out}); err != nil {
		t.Fatal(err)
	}
	for l := 0; l < 64; l++ {
		// Subgroup 0 holds threads 0..31 reading 63..32; subgroup 1 reads 31..0.
		want := int32((63+32)*16*1000 + 63)
		if l >= 32 {
			want = int32((31+0)*16*1000 + 31)
		}
		if got := int32(binary.LittleEndian.Uint32(out[4*l:])); got != want {
			t.Fatalf("thread %d: %d, want %d", l, got, want)
		}
	}
}
