package mathexp

import (
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/status"
)

// Expand: every transcendental or library float op (exp, log, the
// trigonometric and hyperbolic functions and their inverses, erf, pow,
// atan2, cbrt, rsqrt, fmod, round) becomes plain kir arithmetic, so that
// an emitter without a math library only translates basic operations.
//
// The walker rebuilds each block's op list: an op to expand is replaced
// by its expansion, built by the math*.go builders into a scratch block
// on the same kernel (new values are appended to Kernel.Types), whose
// last definition of the result is renamed to the op's own result value,
// so that every later use stays as it is. f32 and f64 are computed in
// their own type; f16 and bf16 are extended to f32 (exactly), computed
// there and rounded back, as the interpreter defines them. Vectors are
// expanded once for all lanes. The expansions contain none of the kinds
// they replace, so the pass is idempotent.
//
// The ops used are Add, Sub, Mul, DivF, FMA, Sqrt, AbsF, NegF, CopySign,
// Floor, Trunc, RoundEven, CmpF, CmpI, Select, IsNaN, IsInf, Bitcast,
// And, Or, Xor, Shl, ShrS, ShrU, MinS, MaxS, DivS, RemU, CeilDivS,
// FPToSI, SIToFP, ExtS, FPExt, FPTrunc, ConstInt, ConstFloat, Reduce and
// one bounded For (fmod); integers of the float's width (i64 for f64).
// f32 PowF and Rsqrt are computed in f64 (as the interpreter defines
// them), so a target without f64 arithmetic cannot take those two.
//
// Accuracy, against Go's math package (and, for f64, a 240-bit
// reference where Go's own result is off): within 2 ULPs for f32 and f64
// (pow within 1), special values (NaN, ±Inf, ±0, overflow, underflow,
// domain errors) as Go's; RemF, Round and Rsqrt exact; f16 and bf16
// within 1 ULP of the type (the f32 result rounded). sin, cos and tan
// are accurate for |x| up to 1e4 (f32) and 1.6e6 (f64); beyond, their
// results are finite, sin and cos in [−1, 1], but not accurate.

// mathKinds are the ops Expand replaces.
var mathKinds = map[kir.Kind]bool{
	kir.Exp: true, kir.Exp2: true, kir.Expm1: true, kir.Log: true, kir.Log2: true, kir.Log10: true,
	kir.Log1p: true, kir.Sin: true, kir.Cos: true, kir.Tan: true, kir.Sinh: true, kir.Cosh: true,
	kir.Tanh: true, kir.Asin: true, kir.Acos: true, kir.Atan: true, kir.Asinh: true, kir.Acosh: true,
	kir.Atanh: true, kir.Erf: true, kir.Erfc: true, kir.PowF: true, kir.Atan2: true, kir.Cbrt: true,
	kir.Rsqrt: true, kir.RemF: true, kir.Round: true,
}

// IsKind reports whether Expand replaces ops of kind k.
func IsKind(k kir.Kind) bool { return mathKinds[k] }

// Expand rewrites every op of a kind IsKind reports into kir
// arithmetic (see the file comment). Ops of those kinds on non-float
// types are INTERNAL errors.
func Expand(k *kir.Kernel) error {
	return expandBlock(k, k.Body, nil, false)
}

// ExpandWhere is Expand for the ops of those kinds for which keep(op's
// kind, its result's scalar type) is false: a target with a math library
// expands only the functions whose inline form is faster (vectorizable),
// and calls its library for the rest.
func ExpandWhere(k *kir.Kernel, keep func(kir.Kind, kir.Scalar) bool) error {
	return expandBlock(k, k.Body, keep, false)
}

// ExpandWhereFast is ExpandWhere with erf on f32 (f16 and bf16 through
// f32) computed by one rational function, within ErfFastULP rather than
// 2 ULPs, several times faster once vectorized (GELU's erf in
// transformer models).
func ExpandWhereFast(k *kir.Kernel, keep func(kir.Kind, kir.Scalar) bool) error {
	return expandBlock(k, k.Body, keep, true)
}

func expandBlock(k *kir.Kernel, blk *kir.Block, keep func(kir.Kind, kir.Scalar) bool, fast bool) error {
	ops := blk.Ops
	blk.Ops = make([]*kir.Op, 0, len(ops))
	for _, op := range ops {
		for _, r := range op.Regions {
			if err := expandBlock(k, r, keep, fast); err != nil {
				return err
			}
		}
		if !mathKinds[op.Kind] || keep != nil && len(op.Results) == 1 && keep(op.Kind, k.Types[op.Results[0]].Elem) {
			blk.Ops = append(blk.Ops, op)
			continue
		}
		exp, err := expandOp(k, op, fast)
		if err != nil {
			return err
		}
		blk.Ops = append(blk.Ops, exp...)
	}
	return nil
}

// expandOp returns the ops that compute op's result.
func expandOp(k *kir.Kernel, op *kir.Op, fast bool) ([]*kir.Op, error) {
	if len(op.Results) != 1 {
		return nil, status.Errorf(status.Internal, "mathexp: %s with %d results", op.Kind, len(op.Results))
	}
	r := op.Results[0]
	rt := k.Types[r]
	s := rt.Elem
	if !s.IsFloat() {
		return nil, status.Errorf(status.Internal, "mathexp: %s on %s", op.Kind, rt)
	}
	want := 1
	if kir.IsFloatBinary(op.Kind) {
		want = 2
	}
	if len(op.Args) != want {
		return nil, status.Errorf(status.Internal, "mathexp: %s with %d operands, want %d", op.Kind, len(op.Args), want)
	}
	b := &kir.Builder{K: k, Block: &kir.Block{}}
	ct := kir.Type{Elem: s, Lanes: rt.Lanes}
	narrow := s == kir.F16 || s == kir.BF16
	if narrow {
		ct.Elem = kir.F32
	}
	f := newFB(b, ct)
	args := make([]kir.Value, len(op.Args))
	for i, a := range op.Args {
		args[i] = a
		if narrow {
			args[i] = b.Emit(kir.FPExt, ct, a)
		}
	}
	var v kir.Value
	var err error
	if fast && op.Kind == kir.Erf && ct.Elem == kir.F32 {
		v = f.erfFast(args[0])
	} else {
		v, err = f.expand(op.Kind, args)
	}
	if err != nil {
		return nil, err
	}
	if narrow {
		v = b.Emit(kir.FPTrunc, rt, v)
	}
	renameResult(k, b.Block, v, r)
	return b.Block.Ops, nil
}

// expand builds the function k of args in f's compute type.
func (f fb) expand(k kir.Kind, args []kir.Value) (kir.Value, error) {
	x := args[0]
	switch k {
	case kir.PowF:
		return f.pow(x, args[1]), nil
	case kir.Atan2:
		return f.atan2(x, args[1]), nil
	case kir.RemF:
		return f.fmod(x, args[1]), nil
	}
	fn, ok := unaryBuilders[k]
	if !ok {
		return 0, status.Errorf(status.Unimplemented, "mathexp: %s on %s is not implemented", k, f.t)
	}
	return fn(f, x), nil
}

// unaryBuilders maps the unary kinds to their builders.
var unaryBuilders = map[kir.Kind]func(f fb, x kir.Value) kir.Value{
	kir.Exp: fb.exp, kir.Exp2: fb.exp2, kir.Expm1: fb.expm1,
	kir.Log: fb.log, kir.Log2: fb.log2, kir.Log10: fb.log10, kir.Log1p: fb.log1p,
	kir.Sin: fb.sin, kir.Cos: fb.cos, kir.Tan: fb.tan,
	kir.Asin: fb.asin, kir.Acos: fb.acos, kir.Atan: fb.atan,
	kir.Sinh: fb.sinh, kir.Cosh: fb.cosh, kir.Tanh: fb.tanh,
	kir.Asinh: fb.asinh, kir.Acosh: fb.acosh, kir.Atanh: fb.atanh,
	kir.Erf: fb.erf, kir.Erfc: fb.erfc,
	kir.Cbrt: fb.cbrt, kir.Rsqrt: fb.rsqrt, kir.Round: fb.round,
}

// renameResult makes blk define r in place of v: the last op defining v now
// defines r, and later uses of v read r. A v that blk does not define
// (an operand passed through) is copied into r by a select.
func renameResult(k *kir.Kernel, blk *kir.Block, v, r kir.Value) {
	for i := len(blk.Ops) - 1; i >= 0; i-- {
		op := blk.Ops[i]
		for j, res := range op.Results {
			if res == v {
				op.Results[j] = r
				for _, later := range blk.Ops[i+1:] {
					substitute(later, v, r)
				}
				return
			}
		}
	}
	b := &kir.Builder{K: k, Block: blk}
	t := b.NewValue(kir.S(kir.I1))
	b.Append(&kir.Op{Kind: kir.ConstInt, Results: []kir.Value{t}, Imm: -1})
	b.Append(&kir.Op{Kind: kir.Select, Results: []kir.Value{r}, Args: []kir.Value{t, v, v}})
}

// substitute replaces uses of v by r in op and its regions.
func substitute(op *kir.Op, v, r kir.Value) {
	for i, a := range op.Args {
		if a == v {
			op.Args[i] = r
		}
	}
	for _, reg := range op.Regions {
		for _, o := range reg.Ops {
			substitute(o, v, r)
		}
	}
}
