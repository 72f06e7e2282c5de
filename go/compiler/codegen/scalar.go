package codegen

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
)

// ScalarOf maps an MLIR element type to a kernel scalar type; index is i64.
func ScalarOf(t ir.Type) (kir.Scalar, bool) {
	switch t := t.(type) {
	case *ir.IndexType:
		return kir.I64, true
	case *ir.IntegerType:
		switch t.Width {
		case 1:
			return kir.I1, true
		case 2, 3, 4, 5, 6, 7, 8:
			// Sub-byte integers live in a byte each, sign-extended (see
			// narrowOp).
			return kir.I8, true
		case 16:
			return kir.I16, true
		case 32:
			return kir.I32, true
		case 64:
			return kir.I64, true
		}
	case *ir.FloatType:
		if _, ok := f8Of(t); ok {
			return kir.F32, true // computed in f32, stored as 8-bit codes
		}
		switch t.Kind {
		case ir.KindF16:
			return kir.F16, true
		case ir.KindBF16:
			return kir.BF16, true
		case ir.KindF32:
			return kir.F32, true
		case ir.KindF64:
			return kir.F64, true
		}
	}
	return kir.Invalid, false
}

var binaryOps = map[string]kir.Kind{
	"arith.addi": kir.Add, "arith.addf": kir.Add, "arith.subi": kir.Sub, "arith.subf": kir.Sub,
	"arith.muli": kir.Mul, "arith.mulf": kir.Mul, "arith.divsi": kir.DivS, "arith.divui": kir.DivU,
	"arith.remsi": kir.RemS, "arith.remui": kir.RemU, "arith.divf": kir.DivF, "arith.remf": kir.RemF,
	"arith.floordivsi": kir.FloorDivS, "arith.ceildivsi": kir.CeilDivS, "arith.ceildivui": kir.CeilDivU,
	"arith.minsi": kir.MinS, "arith.maxsi": kir.MaxS, "arith.minui": kir.MinU, "arith.maxui": kir.MaxU,
	"arith.minimumf": kir.MinF, "arith.maximumf": kir.MaxF, "arith.minnumf": kir.MinNumF, "arith.maxnumf": kir.MaxNumF,
	"arith.andi": kir.And, "arith.ori": kir.Or, "arith.xori": kir.Xor,
	"arith.shli": kir.Shl, "arith.shrsi": kir.ShrS, "arith.shrui": kir.ShrU,
	"math.powf": kir.PowF, "math.atan2": kir.Atan2, "math.copysign": kir.CopySign,
}

var unaryOps = map[string]kir.Kind{
	"arith.negf": kir.NegF, "math.absf": kir.AbsF, "math.absi": kir.AbsI, "math.sqrt": kir.Sqrt,
	"math.rsqrt": kir.Rsqrt, "math.cbrt": kir.Cbrt, "math.exp": kir.Exp, "math.exp2": kir.Exp2,
	"math.expm1": kir.Expm1, "math.log": kir.Log, "math.log2": kir.Log2, "math.log10": kir.Log10,
	"math.log1p": kir.Log1p, "math.sin": kir.Sin, "math.cos": kir.Cos, "math.tan": kir.Tan,
	"math.sinh": kir.Sinh, "math.cosh": kir.Cosh, "math.tanh": kir.Tanh, "math.asin": kir.Asin,
	"math.acos": kir.Acos, "math.atan": kir.Atan, "math.asinh": kir.Asinh, "math.acosh": kir.Acosh,
	"math.atanh": kir.Atanh, "math.erf": kir.Erf, "math.erfc": kir.Erfc, "math.floor": kir.Floor,
	"math.ceil": kir.Ceil, "math.round": kir.Round, "math.roundeven": kir.RoundEven, "math.trunc": kir.Trunc,
	"math.ctlz": kir.CtLz, "math.cttz": kir.CtTz, "math.ctpop": kir.CtPop,
	"math.isnan": kir.IsNaN, "math.isinf": kir.IsInf, "math.isfinite": kir.IsFinite,
}

var castOps = map[string]kir.Kind{
	"arith.extsi": kir.ExtS, "arith.extui": kir.ExtU, "arith.trunci": kir.TruncI,
	"arith.sitofp": kir.SIToFP, "arith.uitofp": kir.UIToFP, "arith.fptosi": kir.FPToSI,
	"arith.fptoui": kir.FPToUI, "arith.extf": kir.FPExt, "arith.truncf": kir.FPTrunc,
	"arith.bitcast": kir.Bitcast,
}

// scalarOp translates one scalar arith/math op at vector width w. get
// returns the kernel value of an operand.
func scalarOp(b *kir.Builder, op *ir.Operation, w int, get func(*ir.Value) (kir.Value, error)) ([]kir.Value, error) {
	return narrowOp(b, op, w, get)
}

// scalarOpRaw translates an op whose integer types are whole bytes (or
// i1).
func scalarOpRaw(b *kir.Builder, op *ir.Operation, w int, get func(*ir.Value) (kir.Value, error)) ([]kir.Value, error) {
	args := make([]kir.Value, len(op.Operands))
	for i, v := range op.Operands {
		a, err := get(v)
		if err != nil {
			return nil, err
		}
		args[i] = a
	}
	var rt kir.Type
	if len(op.Results) == 1 {
		s, ok := ScalarOf(op.Results[0].Type)
		if !ok {
			return nil, ir.OpErrorf(op, "has result type %s, which gree kernels do not support", op.Results[0].Type)
		}
		rt = kir.V(s, w)
	}
	one := func(v kir.Value) ([]kir.Value, error) { return []kir.Value{v}, nil }
	if k, ok := binaryOps[op.Name]; ok {
		return one(b.Emit(k, rt, args...))
	}
	if k, ok := unaryOps[op.Name]; ok {
		return one(b.Emit(k, rt, args...))
	}
	if k, ok := castOps[op.Name]; ok {
		if (k == kir.ExtS || k == kir.ExtU || k == kir.TruncI || k == kir.FPExt || k == kir.FPTrunc) && b.K.Type(args[0]).Elem == rt.Elem {
			// A sub-byte integer and a byte share i8 lanes.
			return args, nil
		}
		return one(b.Emit(k, rt, args...))
	}
	switch op.Name {
	case "arith.index_cast", "arith.index_castui":
		from := b.K.Type(args[0]).Elem
		switch {
		case from.Bits() == rt.Elem.Bits():
			return []kir.Value{args[0]}, nil
		case from.Bits() > rt.Elem.Bits():
			return one(b.Emit(kir.TruncI, rt, args...))
		case op.Name == "arith.index_castui":
			return one(b.Emit(kir.ExtU, rt, args...))
		}
		return one(b.Emit(kir.ExtS, rt, args...))
	case "arith.cmpi", "arith.cmpf":
		pred, _ := op.Attr("predicate").(*ir.IntegerAttr)
		if pred == nil {
			return nil, ir.OpErrorf(op, "has no predicate")
		}
		k := kir.CmpI
		if op.Name == "arith.cmpf" {
			k = kir.CmpF
		}
		return one(b.EmitImm(k, rt, pred.Value, args...))
	case "arith.select":
		if w > 1 && !b.K.Type(args[0]).IsVector() {
			args[0] = b.Emit(kir.Broadcast, kir.V(kir.I1, w), args[0])
		}
		return one(b.Emit(kir.Select, rt, args...))
	case "arith.scaling_extf", "arith.scaling_truncf":
		// x·scale extended, or x/scale truncated (rounded by narrowOp
		// when the result is a small float).
		k := kir.Mul
		if op.Name == "arith.scaling_truncf" {
			k = kir.DivF
		}
		r := b.Emit(k, b.K.Type(args[0]), args[0], args[1])
		if b.K.Type(r).Elem != rt.Elem {
			conv := kir.FPTrunc
			if rt.Elem.Bits() > b.K.Type(r).Elem.Bits() {
				conv = kir.FPExt
			}
			r = b.Emit(conv, rt, r)
		}
		return one(r)
	case "math.fma":
		return one(b.Emit(kir.FMA, rt, args...))
	case "math.fpowi":
		f := b.Emit(kir.SIToFP, rt, args[1])
		return one(b.Emit(kir.PowF, rt, args[0], f))
	case "arith.constant":
		switch a := op.Attr("value").(type) {
		case *ir.IntegerAttr:
			return one(b.Int(rt, a.Value))
		case *ir.FloatAttr:
			return one(b.Float(rt, a.Value))
		case *ir.BoolAttr:
			v := int64(0)
			if a.Value {
				v = 1
			}
			return one(b.Int(rt, v))
		}
		return nil, ir.OpErrorf(op, "has a constant gree kernels cannot use: %s", op.Attr("value"))
	case "util.optimization_barrier":
		return args, nil
	}
	return nil, ir.OpErrorf(op, "is not supported inside gree kernels")
}

// narrowBits returns the width of a sub-byte integer type (2..7), or 0.
func narrowBits(t ir.Type) int {
	if it, ok := t.(*ir.IntegerType); ok && it.Width > 1 && it.Width < 8 {
		return it.Width
	}
	return 0
}

var unsignedOps = map[string]bool{
	"arith.divui": true, "arith.remui": true, "arith.shrui": true, "arith.minui": true, "arith.maxui": true,
	"arith.ceildivui": true, "arith.uitofp": true, "arith.extui": true, "arith.index_castui": true,
}

// narrowOp legalizes sub-byte integers (i2…i7): they are held in i8 lanes
// sign-extended, operands of unsigned operations are masked to their
// width, and sub-byte results are wrapped back by sign extension.
func narrowOp(b *kir.Builder, op *ir.Operation, w int, get func(*ir.Value) (kir.Value, error)) ([]kir.Value, error) {
	if op.Name == "arith.bitcast" && len(op.Operands) == 1 {
		// Bitcasts to and from 8-bit floats move the codes.
		if f, ok := f8Of(op.Operands[0].Type); ok {
			x, err := get(op.Operands[0])
			if err != nil {
				return nil, err
			}
			return []kir.Value{f.encode(b, x, w)}, nil
		}
		if f, ok := f8Of(op.Results[0].Type); ok {
			x, err := get(op.Operands[0])
			if err != nil {
				return nil, err
			}
			return []kir.Value{f.decode(b, x, w)}, nil
		}
	}
	unsigned := unsignedOps[op.Name]
	if op.Name == "arith.cmpi" {
		if p, ok := op.Attr("predicate").(*ir.IntegerAttr); ok && p.Value >= 6 {
			unsigned = true
		}
	}
	inner := get
	if unsigned && get != nil {
		inner = func(v *ir.Value) (kir.Value, error) {
			x, err := get(v)
			if err != nil || narrowBits(v.Type) == 0 {
				return x, err
			}
			t := b.K.Type(x)
			return b.Emit(kir.And, t, x, b.Int(t, 1<<narrowBits(v.Type)-1)), nil
		}
	}
	res, err := scalarOpRaw(b, op, w, inner)
	if err != nil {
		return nil, err
	}
	for i, r := range op.Results {
		if f, ok := f8Of(r.Type); ok && op.Name != "arith.constant" {
			res[i] = f.round(b, res[i], b.K.Type(res[i]).Width())
		}
		if n := narrowBits(r.Type); n > 0 && op.Name != "arith.constant" {
			t := b.K.Type(res[i])
			sh := b.Int(t, int64(8-n))
			res[i] = b.Emit(kir.ShrS, t, b.Emit(kir.Shl, t, res[i], sh), sh)
		}
	}
	return res, nil
}

// storageOf is the element type a buffer of t holds in a kernel binding:
// 8-bit floats are stored as their codes.
func storageOf(t ir.Type) (kir.Scalar, bool) {
	if _, ok := f8Of(t); ok {
		return kir.I8, true
	}
	return ScalarOf(t)
}
