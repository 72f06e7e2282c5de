package codegen

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
)

// 8-bit floats (f8E5M2, f8E4M3FN, f8E5M2FNUZ, f8E4M3FNUZ, …) are legalized
// in codegen: buffers hold the 8-bit codes (i8 bindings), values are
// computed in f32 holding exactly representable f8 numbers; loads decode,
// every op with an f8 result rounds (encode+decode, nearest even), and
// stores encode.
type f8Format struct {
	exp, mant, bias int
	nan             string // "ieee", "fn" or "fnuz"
}

func f8Of(t ir.Type) (f8Format, bool) {
	ft, ok := t.(*ir.FloatType)
	if !ok {
		return f8Format{}, false
	}
	e, m, b, nan, ok := ir.SmallFloat(ft.Kind)
	if !ok {
		return f8Format{}, false
	}
	return f8Format{e, m, b, nan}, true
}

type f8Emitter struct {
	b *kir.Builder
	w int
}

func (x f8Emitter) i(v int64) kir.Value   { return x.b.Int(kir.V(kir.I32, x.w), v) }
func (x f8Emitter) f(v float64) kir.Value { return x.b.Float(kir.V(kir.F32, x.w), v) }
func (x f8Emitter) op(k kir.Kind, a, c kir.Value) kir.Value {
	return x.b.Emit(k, x.b.K.Type(a), a, c)
}
func (x f8Emitter) cmp(p kir.Pred, a, c kir.Value) kir.Value {
	return x.b.EmitImm(kir.CmpI, kir.V(kir.I1, x.w), int64(p), a, c)
}
func (x f8Emitter) sel(c, a, d kir.Value) kir.Value {
	return x.b.Emit(kir.Select, x.b.K.Type(a), c, a, d)
}

// decode turns codes (i8 lanes) into f32 lanes.
func (f f8Format) decode(b *kir.Builder, code kir.Value, w int) kir.Value {
	x := f8Emitter{b, w}
	u := b.Emit(kir.ExtU, kir.V(kir.I32, w), code)
	if f.nan == "e8m0" {
		// 2^(u-127): the code is an f32 exponent; 0 is 2^-127 (an f32
		// subnormal) and 0xff is NaN.
		v := b.Emit(kir.Bitcast, kir.V(kir.F32, w), x.op(kir.Shl, u, x.i(23)))
		v = x.sel(x.cmp(kir.PredEQ, u, x.i(0)), x.f(math.Ldexp(1, -127)), v)
		return x.sel(x.cmp(kir.PredEQ, u, x.i(0xff)), x.f(math.NaN()), v)
	}
	sb := int64(f.exp + f.mant) // the sign bit
	u = x.op(kir.And, u, x.i(1<<(sb+1)-1))
	s := x.op(kir.And, x.op(kir.ShrU, u, x.i(sb)), x.i(1))
	emask, mmask := int64(1)<<f.exp-1, int64(1)<<f.mant-1
	e := x.op(kir.And, x.op(kir.ShrU, u, x.i(int64(f.mant))), x.i(emask))
	m := x.op(kir.And, u, x.i(mmask))
	sign := x.op(kir.Shl, s, x.i(31))
	normal := x.op(kir.Or, sign, x.op(kir.Or, x.op(kir.Shl, x.op(kir.Add, e, x.i(int64(127-f.bias))), x.i(23)), x.op(kir.Shl, m, x.i(int64(23-f.mant)))))
	nv := b.Emit(kir.Bitcast, kir.V(kir.F32, w), normal)
	sub := x.op(kir.Mul, b.Emit(kir.SIToFP, kir.V(kir.F32, w), m), x.f(math.Ldexp(1, 1-f.bias-f.mant)))
	sub = x.sel(x.cmp(kir.PredNE, s, x.i(0)), b.Emit(kir.NegF, kir.V(kir.F32, w), sub), sub)
	v := x.sel(x.cmp(kir.PredEQ, e, x.i(0)), sub, nv)
	nan := x.f(math.NaN())
	switch f.nan {
	case "ieee":
		top := x.cmp(kir.PredEQ, e, x.i(emask))
		inf := x.sel(x.cmp(kir.PredNE, s, x.i(0)), x.f(math.Inf(-1)), x.f(math.Inf(1)))
		v = x.sel(top, x.sel(x.cmp(kir.PredEQ, m, x.i(0)), inf, nan), v)
	case "fn":
		all := int64(1)<<sb - 1
		v = x.sel(x.cmp(kir.PredEQ, x.op(kir.And, u, x.i(all)), x.i(all)), nan, v)
	case "fnuz":
		v = x.sel(x.cmp(kir.PredEQ, u, x.i(0x80)), nan, v)
	}
	return v
}

// encode rounds f32 lanes to the nearest code (ties to even); overflow
// becomes infinity (ieee) or NaN (fn, fnuz), as MLIR's truncf does.
func (f f8Format) encode(b *kir.Builder, v kir.Value, w int) kir.Value {
	x := f8Emitter{b, w}
	bits := b.Emit(kir.Bitcast, kir.V(kir.I32, w), v)
	if f.nan == "e8m0" {
		// Round to the nearest power of two by the f32 exponent (ties on
		// the mantissa's top bit round up); NaN and overflow give 0xff.
		e := x.op(kir.And, x.op(kir.ShrU, bits, x.i(23)), x.i(0xff))
		up := x.op(kir.And, x.op(kir.ShrU, bits, x.i(22)), x.i(1))
		// f32 subnormals (exponent 0) are m*2^-149: code 0 (2^-127, the
		// decoded 0x00) up to 1.5*2^-127 (m >= 0x600000) exclusive, else 1.
		sub := x.op(kir.ShrU, x.op(kir.And, bits, x.i(0x7fffff)), x.i(21))
		up = x.sel(x.cmp(kir.PredEQ, e, x.i(0)), x.op(kir.ShrU, x.op(kir.Add, sub, x.i(1)), x.i(2)), up)
		e = x.op(kir.MinS, x.op(kir.Add, e, up), x.i(0xff))
		e = x.sel(b.Emit(kir.IsNaN, kir.V(kir.I1, w), v), x.i(0xff), e)
		return b.Emit(kir.TruncI, kir.V(kir.I8, w), e)
	}
	sb := int64(f.exp + f.mant)
	s := x.op(kir.And, x.op(kir.ShrU, bits, x.i(31)), x.i(1))
	abs := x.op(kir.And, bits, x.i(0x7fffffff))
	a := b.Emit(kir.Bitcast, kir.V(kir.F32, w), abs)
	drop := int64(23 - f.mant)
	r := x.op(kir.Add, abs, x.op(kir.Add, x.i(1<<(drop-1)-1), x.op(kir.And, x.op(kir.ShrU, abs, x.i(drop)), x.i(1))))
	codeN := x.op(kir.Sub, x.op(kir.ShrU, r, x.i(drop)), x.i(int64(127-f.bias)<<f.mant))
	scaled := x.op(kir.Mul, a, x.f(math.Ldexp(1, f.bias-1+f.mant)))
	q := b.Emit(kir.FPToSI, kir.V(kir.I32, w), b.Emit(kir.RoundEven, kir.V(kir.F32, w), scaled))
	small := b.EmitImm(kir.CmpF, kir.V(kir.I1, w), int64(kir.FPredOLT), a, x.f(math.Ldexp(1, 1-f.bias)))
	code := x.sel(small, q, codeN)
	emask, mmask := int64(1)<<f.exp-1, int64(1)<<f.mant-1
	var maxCode, overCode, nanCode int64
	switch f.nan {
	case "ieee":
		maxCode, overCode, nanCode = (emask-1)<<f.mant|mmask, emask<<f.mant, emask<<f.mant|1<<(f.mant-1)
	case "fn":
		maxCode, overCode, nanCode = emask<<f.mant|(mmask-1), 1<<sb-1, 1<<sb-1
	case "none": // saturate; there is no NaN (it becomes 0)
		maxCode, overCode, nanCode = emask<<f.mant|mmask, emask<<f.mant|mmask, 0
	default: // fnuz
		maxCode, overCode, nanCode = 0x7f, 0x80, 0x80
	}
	code = x.sel(x.cmp(kir.PredSGT, code, x.i(maxCode)), x.i(overCode), code)
	isNaN := b.Emit(kir.IsNaN, kir.V(kir.I1, w), v)
	code = x.sel(isNaN, x.i(nanCode), code)
	signed := x.op(kir.Or, x.op(kir.Shl, s, x.i(sb)), code)
	switch f.nan {
	case "fnuz":
		// No negative zero; the NaN code already has the sign bit.
		keep := x.op(kir.And, x.cmp(kir.PredNE, code, x.i(0)), x.cmp(kir.PredNE, code, x.i(0x80)))
		signed = x.sel(keep, signed, code)
	case "none":
	default:
		signed = x.sel(isNaN, x.op(kir.Or, x.op(kir.Shl, s, x.i(sb)), x.i(nanCode)), signed)
	}
	return b.Emit(kir.TruncI, kir.V(kir.I8, w), signed)
}

// round makes an f32 value the nearest f8 value.
func (f f8Format) round(b *kir.Builder, v kir.Value, w int) kir.Value {
	return f.decode(b, f.encode(b, v, w), w)
}
