package kir

import "fmt"

// Contract epilogue flags (Op.Imm of a Contract, beside ContractUnsigned
// and ContractZero): once C's sums are complete, each f32 element c(i, j)
// of the tile becomes
//
//	c + bias → + residual → maximumf lo → minimumf hi
//
// for the steps whose flag is set, each rounded to f32, before it is
// stored: what a sweep of the same element-wise ops over the stored tile
// computes, without reading the tile back.
const (
	// ContractBias adds bias(i) = Binding[biasOff + i·biasStride] (one
	// value per row), or bias(j) with ContractBiasCol (per column).
	ContractBias int64 = 4
	// ContractBiasCol makes the bias vary along columns instead of rows.
	ContractBiasCol int64 = 8
	// ContractRes adds Extra[resOff + i·resRowStride + j·resColStride].
	ContractRes int64 = 16
	// ContractMax takes maximumf (NaN-propagating, -0 < +0) with lo.
	ContractMax int64 = 32
	// ContractMin takes minimumf with hi.
	ContractMin int64 = 64
)

// contractEpilogueFlags are the flags of a fused epilogue.
const contractEpilogueFlags = ContractBias | ContractBiasCol | ContractRes | ContractMax | ContractMin

// ContractEpilogue is the epilogue fused into a Contract: a bias of
// binding Bias (when ≥ 0) at BiasOff + i·BiasStride (+ j·BiasStride when
// PerColumn), a residual of binding Res (when ≥ 0) indexed like C, then
// maximumf with Lo and minimumf with Hi (f32 scalars, when ≥ 0). Its
// operands follow the Contract's twelve, in that order.
type ContractEpilogue struct {
	Bias                 int
	BiasOff, BiasStride  Value
	PerColumn            bool
	Res                  int
	ResOff, ResRS, ResCS Value
	Lo, Hi               Value
}

// NoContractEpilogue is a Contract without a fused epilogue.
var NoContractEpilogue = ContractEpilogue{Bias: -1, BiasOff: -1, BiasStride: -1, Res: -1, ResOff: -1, ResRS: -1, ResCS: -1, Lo: -1, Hi: -1}

// ContractWith is Contract with f32 epilogue e fused (see ContractBias).
func (b *Builder) ContractWith(a, bb, c int, args [12]Value, flags int64, e ContractEpilogue) {
	op := &Op{Kind: Contract, Args: append([]Value(nil), args[:]...), Bindings: [3]int{a, bb, c}, Imm: flags, Binding: -1, Extra: -1}
	if e.Bias >= 0 {
		op.Imm |= ContractBias
		if e.PerColumn {
			op.Imm |= ContractBiasCol
		}
		op.Binding = e.Bias
		op.Args = append(op.Args, e.BiasOff, e.BiasStride)
	}
	if e.Res >= 0 {
		op.Imm |= ContractRes
		op.Extra = e.Res
		op.Args = append(op.Args, e.ResOff, e.ResRS, e.ResCS)
	}
	if e.Lo >= 0 {
		op.Imm |= ContractMax
		op.Args = append(op.Args, e.Lo)
	}
	if e.Hi >= 0 {
		op.Imm |= ContractMin
		op.Args = append(op.Args, e.Hi)
	}
	b.Append(op)
}

// ContractOperands returns the number of operands of a Contract with
// flags: 12, the epilogue's offsets and strides (i64), then its bounds
// (f32).
func ContractOperands(flags int64) (indices, total int) {
	n := 12
	if flags&ContractBias != 0 {
		n += 2
	}
	if flags&ContractRes != 0 {
		n += 3
	}
	indices = n
	if flags&ContractMax != 0 {
		n++
	}
	if flags&ContractMin != 0 {
		n++
	}
	return indices, n
}

// ContractEpilogueOf is the epilogue of Contract op (NoContractEpilogue's
// fields where a step is absent).
func ContractEpilogueOf(op *Op) ContractEpilogue {
	e := NoContractEpilogue
	rest := op.Args[min(12, len(op.Args)):]
	take := func(n int) []Value {
		if len(rest) < n {
			return make([]Value, n) // malformed; the verifier reports it
		}
		v := rest[:n]
		rest = rest[n:]
		return v
	}
	if op.Imm&ContractBias != 0 {
		v := take(2)
		e.Bias, e.BiasOff, e.BiasStride, e.PerColumn = op.Binding, v[0], v[1], op.Imm&ContractBiasCol != 0
	}
	if op.Imm&ContractRes != 0 {
		v := take(3)
		e.Res, e.ResOff, e.ResRS, e.ResCS = op.Extra, v[0], v[1], v[2]
	}
	if op.Imm&ContractMax != 0 {
		e.Lo = take(1)[0]
	}
	if op.Imm&ContractMin != 0 {
		e.Hi = take(1)[0]
	}
	return e
}

// contractEpilogueText is the printed form of op's fused epilogue.
func contractEpilogueText(op *Op) string {
	e, s := ContractEpilogueOf(op), ""
	if e.Bias >= 0 {
		along := "row"
		if e.PerColumn {
			along = "column"
		}
		s += fmt.Sprintf(" + bias b%d[%s] per %s", e.Bias, vals([]Value{e.BiasOff, e.BiasStride}), along)
	}
	if e.Res >= 0 {
		s += fmt.Sprintf(" + b%d[%s]", e.Res, vals([]Value{e.ResOff, e.ResRS, e.ResCS}))
	}
	if e.Lo >= 0 {
		s += " max " + vals([]Value{e.Lo})
	}
	if e.Hi >= 0 {
		s += " min " + vals([]Value{e.Hi})
	}
	return s
}

// verifyContractEpilogue checks a Contract's epilogue operands and
// bindings (f32 throughout).
func (v *verifier) verifyContractEpilogue(op *Op, ts []Type, c Scalar) error {
	if op.Imm&contractEpilogueFlags == 0 {
		return nil
	}
	if op.Imm&ContractBiasCol != 0 && op.Imm&ContractBias == 0 {
		return v.errf(op, "flags %#x: a per-column bias without a bias", op.Imm)
	}
	if c != F32 {
		return v.errf(op, "fuses an epilogue into a %s accumulator; epilogues are defined for f32", c)
	}
	idx, _ := ContractOperands(op.Imm)
	for i := 12; i < len(ts); i++ {
		want := S(Index)
		if i >= idx {
			want = S(F32)
		}
		if !SameType(ts[i], want) {
			return v.errf(op, "operand %d has type %s, want %s", i, ts[i], want)
		}
	}
	var bs []int
	if op.Imm&ContractBias != 0 {
		bs = append(bs, op.Binding)
	}
	if op.Imm&ContractRes != 0 {
		bs = append(bs, op.Extra)
	}
	for _, b := range bs {
		e, err := v.binding(op, b, Read)
		if err != nil {
			return err
		}
		if e != F32 {
			return v.errf(op, "epilogue binding %d holds %s, want f32", b, e)
		}
	}
	return nil
}

// contractEpilogue is the interpreter's epilogue: it checks the bias and
// residual tiles of an m×n Contract and returns the function that
// finishes element (i, j).
func (t *thread) contractEpilogue(op *Op, m, n int64) (func(i, j int64, acc uint64) uint64, error) {
	if op.Imm&contractEpilogueFlags == 0 {
		return nil, nil
	}
	e := ContractEpilogueOf(op)
	var bias, res []byte
	var bo, bs, ro, rrs, rcs int64
	var lo, hi uint64
	if e.Bias >= 0 {
		bias, bo, bs = t.m.bindings[e.Bias], t.scalar(e.BiasOff), t.scalar(e.BiasStride)
		along := m
		if e.PerColumn {
			along = n
		}
		if err := t.box(op, e.Bias, bo, int64(len(bias)/4), [][2]int64{{along, bs}}); err != nil {
			return nil, err
		}
	}
	if e.Res >= 0 {
		res, ro, rrs, rcs = t.m.bindings[e.Res], t.scalar(e.ResOff), t.scalar(e.ResRS), t.scalar(e.ResCS)
		if err := t.box(op, e.Res, ro, int64(len(res)/4), [][2]int64{{m, rrs}, {n, rcs}}); err != nil {
			return nil, err
		}
	}
	if e.Lo >= 0 {
		lo = t.vals[e.Lo][0]
	}
	if e.Hi >= 0 {
		hi = t.vals[e.Hi][0]
	}
	return func(i, j int64, acc uint64) uint64 {
		if bias != nil {
			k := i
			if e.PerColumn {
				k = j
			}
			acc = floatBin(Add, F32, acc, readElem(bias, F32, bo+k*bs))
		}
		if res != nil {
			acc = floatBin(Add, F32, acc, readElem(res, F32, ro+i*rrs+j*rcs))
		}
		if e.Lo >= 0 {
			acc = floatBin(MaxF, F32, acc, lo)
		}
		if e.Hi >= 0 {
			acc = floatBin(MinF, F32, acc, hi)
		}
		return acc
	}, nil
}
