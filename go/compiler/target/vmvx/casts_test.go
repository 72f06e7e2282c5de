package vmvx_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// convert loads n lanes of from, converts them with kind and stores them.
func convert(kind kir.Kind, from, to kir.Scalar, n int) *kir.Kernel {
	k, b := kir.NewKernel("convert")
	k.Bindings = []kir.Binding{{Elem: from, Access: kir.Read}, {Elem: to, Access: kir.Write}}
	zero := b.Idx(0)
	x := b.Load(0, kir.V(from, n), zero)
	b.Store(1, zero, b.Emit(kind, kir.V(to, n), x))
	// And the first lane as a scalar, after the vector.
	s := b.Load(0, kir.S(from), zero)
	b.Store(1, b.Idx(int64(n)), b.Emit(kind, kir.S(to), s))
	return k
}

func bufOf(e kir.Scalar, r *rand.Rand, n int) []byte {
	b := make([]byte, n*e.ByteSize())
	switch e {
	case kir.F32:
		xs := randF32(r, n, 300)
		copy(xs, specialF32)
		return f32s(xs...)
	case kir.F64:
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = r.NormFloat64() * math.Pow(10, float64(r.IntN(12)-3))
		}
		copy(xs, specialF64)
		return f64s(xs...)
	case kir.F16, kir.BF16:
		// Mostly moderate values (exponents around 1), a few specials.
		for i := 0; i < n; i++ {
			h := uint16(r.Uint32())
			if i%7 != 3 {
				if e == kir.F16 {
					h = h&0x83ff | uint16(12+r.IntN(6))<<10
				} else {
					h = h&0x807f | uint16(124+r.IntN(6))<<7
				}
			}
			b[2*i], b[2*i+1] = byte(h), byte(h>>8)
		}
		return b
	case kir.I1:
		for i := range b {
			b[i] = byte(r.IntN(2))
		}
		return b
	}
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	if e.IsInt() && n > 4 {
		// Include the extremes.
		sz := e.ByteSize()
		for j := 0; j < sz; j++ {
			b[j], b[sz+j], b[2*sz+j] = 0xff, 0, 0xff
		}
		b[2*sz-1+sz], b[3*sz-1] = 0x80, 0x7f
	}
	return b
}

func TestConversions(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	ints := []kir.Scalar{kir.I1, kir.I8, kir.I16, kir.I32, kir.I64}
	floats := []kir.Scalar{kir.F16, kir.BF16, kir.F32, kir.F64}
	all := append(append([]kir.Scalar{}, ints...), floats...)
	const n = 40
	tried := 0
	for _, kind := range []kir.Kind{kir.ExtS, kir.ExtU, kir.TruncI, kir.SIToFP, kir.UIToFP,
		kir.FPToSI, kir.FPToUI, kir.FPExt, kir.FPTrunc, kir.Bitcast} {
		for _, from := range all {
			for _, to := range all {
				if !kir.CastFits(kind, from, to) {
					continue
				}
				tried++
				in := bufOf(from, r, n)
				diff(t, convert(kind, from, to, n), [3]int64{1, 1, 1}, nil, [][]byte{in, make([]byte, (n+1)*to.ByteSize())})
			}
		}
	}
	if tried < 60 {
		t.Fatalf("only %d conversions tried", tried)
	}
}

// TestHalfRounding checks f32 → f16/bf16 rounding against known bits.
func TestHalfRounding(t *testing.T) {
	xs := []float32{1, 1.0009765625, 1.00048828125, 1.00146484375, 65504, 65519.996, 65520,
		5.9604645e-08, 2.9802322e-08, 2.9802326e-08, 6.1035156e-05, float32(math.Copysign(0, -1)), 1e-10}
	wantF16 := []uint16{0x3c00, 0x3c01, 0x3c00, 0x3c02, 0x7bff, 0x7bff, 0x7c00, 0x0001, 0x0000, 0x0001, 0x0400, 0x8000, 0x0000}
	out := diff(t, convert(kir.FPTrunc, kir.F32, kir.F16, len(xs)), [3]int64{1, 1, 1}, nil, [][]byte{f32s(xs...), make([]byte, 2*(len(xs)+1))})
	for i, w := range wantF16 {
		if got := uint16(out[1][2*i]) | uint16(out[1][2*i+1])<<8; got != w {
			t.Errorf("f16(%g) = %#04x, want %#04x", xs[i], got, w)
		}
	}
	ys := []float32{1, 1.00390625, 1.005859375, 3.3895314e38, 3.4028235e38}
	wantBF := []uint16{0x3f80, 0x3f80, 0x3f81, 0x7f7f, 0x7f80}
	out = diff(t, convert(kir.FPTrunc, kir.F32, kir.BF16, len(ys)), [3]int64{1, 1, 1}, nil, [][]byte{f32s(ys...), make([]byte, 2*(len(ys)+1))})
	for i, w := range wantBF {
		if got := uint16(out[1][2*i]) | uint16(out[1][2*i+1])<<8; got != w {
			t.Errorf("bf16(%g) = %#04x, want %#04x", ys[i], got, w)
		}
	}
}
