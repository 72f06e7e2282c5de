package torchonnx

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
)

// isE8M0 reports whether t is f8E8M0FNU, the exponent-only scale type of
// the microscaling (MX) formats.
func isE8M0(t ir.Type) bool {
	f, ok := t.(*ir.FloatType)
	return ok && f.Kind == ir.KindF8E8M0FNU
}

// e8m0RoundModes are the values of Cast's round_mode attribute (opset 24).
var e8m0RoundModes = map[string]bool{"up": true, "down": true, "nearest": true}

// castToE8M0 converts one scalar to f8E8M0FNU as ONNX's Cast specifies it
// (the reference's to_float8e8m0): the value is first converted to f32, and
// the result is its biased exponent field, the sign ignored. Exponent 0xFF
// (infinity, NaN) gives 0xFF (NaN); zero and denormals have exponent 0 and
// give 2^-127 unless rounding carries them up. round_mode "up" adds one
// when any mantissa bit is set, "nearest" when the guard bit (bit 22) is
// set and any lower bit or the exponent is nonzero, "down" truncates.
// With saturate, rounding never carries exponent 0xFE to 0xFF.
func castToE8M0(bb *ir.Builder, x *ir.Value, fromUnsigned bool, roundMode string, saturate bool) *ir.Value {
	f := castScalar(bb, x, ir.F32, fromUnsigned, false)
	s := sc{bb, ir.I32}
	bits := bb.Create("arith.bitcast", []*ir.Value{f}, []ir.Type{ir.I32}).Result(0)
	exp := s.op("arith.andi", s.op("arith.shrui", bits, s.c(23)), s.c(0xFF))
	var up *ir.Value
	switch roundMode {
	case "up":
		up = s.cmp("ne", s.op("arith.andi", bits, s.c(0x7FFFFF)), s.c(0), false)
	case "nearest":
		guard := s.cmp("ne", s.op("arith.andi", bits, s.c(0x400000)), s.c(0), false)
		rest := s.cmp("ne", s.op("arith.andi", bits, s.c(0x3FFFFF)), s.c(0), false)
		rest = core.BinOp(bb, "arith.ori", rest, s.cmp("ne", exp, s.c(0), false))
		up = core.BinOp(bb, "arith.andi", guard, rest)
	}
	special := s.cmp("eq", exp, s.c(0xFF), false)
	if up != nil {
		if saturate {
			up = core.BinOp(bb, "arith.andi", up, s.cmp("ne", exp, s.c(0xFE), false))
		}
		exp = s.sel(up, s.add(exp, s.c(1)), exp)
	}
	exp = s.sel(special, s.c(0xFF), exp)
	b8 := bb.Create("arith.trunci", []*ir.Value{exp}, []ir.Type{ir.Int(8)}).Result(0)
	return bb.Create("arith.bitcast", []*ir.Value{b8}, []ir.Type{ir.Float(ir.KindF8E8M0FNU)}).Result(0)
}
