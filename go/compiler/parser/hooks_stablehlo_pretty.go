package parser

import (
	"fmt"
	"strings"

	"github.com/gree-ml/gree/go/compiler/ir"
)

// Pretty syntax of StableHLO's data-movement and contraction ops, as
// StableHLO prints them (and JAX's lowering emits them). Every form
// produces the attributes of the generic form, so the conversion sees the
// same IR either way:
//
//	stablehlo.convert %x : (T) -> U                 also reshape, bitcast_convert
//	stablehlo.broadcast_in_dim %x, dims = [0, 1] : (T) -> U
//	stablehlo.broadcast %x, sizes = [2] : (T) -> U
//	stablehlo.transpose %x, dims = [1, 0] : (T) -> U
//	stablehlo.reverse %x, dims = [0] : T
//	stablehlo.iota dim = 0 : T
//	stablehlo.concatenate %a, %b, dim = 0 : (T, T) -> U
//	stablehlo.pad %x, %v, low = [..], high = [..], interior = [..] : (T, S) -> U
//	stablehlo.slice %x [0:2, 1:6:2] : (T) -> U
//	stablehlo.dynamic_slice %x, %i, %j, sizes = [1, 3] : (T, S, S) -> U
//	stablehlo.dynamic_update_slice %x, %u, %i : (T, U, S) -> T
//	stablehlo.get_dimension_size %x, dim = 0 : (T) -> tensor<i32>
//	stablehlo.reduce_precision %x, format = e5m10 : T
//	stablehlo.optimization_barrier %a, %b : T, U
func init() {
	for _, n := range []string{"convert", "bitcast_convert", "reshape"} {
		registerOwn("stablehlo."+n, hloElementwiseOp(1))
	}
	registerOwn("stablehlo.dynamic_update_slice", hloOperandsFunctional)
	registerOwn("stablehlo.dynamic_reshape", hloOperandsFunctional)
	registerOwn("stablehlo.broadcast_in_dim", hloListOp("dims", "broadcast_dimensions"))
	registerOwn("stablehlo.broadcast", hloListOp("sizes", "broadcast_sizes"))
	registerOwn("stablehlo.transpose", hloListOp("dims", "permutation"))
	registerOwn("stablehlo.reverse", hloListOp("dims", "dimensions"))
	registerOwn("stablehlo.dynamic_slice", hloListOp("sizes", "slice_sizes"))
	registerOwn("stablehlo.dynamic_broadcast_in_dim", hloListOp("dims", "broadcast_dimensions"))
	registerOwn("stablehlo.concatenate", hloDimOp("dimension"))
	registerOwn("stablehlo.get_dimension_size", hloDimOp("dimension"))
	registerOwn("stablehlo.dynamic_iota", hloDimOp("iota_dimension"))
	registerOwn("stablehlo.iota", parseHLOIota)
	registerOwn("stablehlo.pad", parseHLOPad)
	registerOwn("stablehlo.slice", parseHLOSlice)
	registerOwn("stablehlo.reduce_precision", parseHLOReducePrecision)
	registerOwn("stablehlo.optimization_barrier", parseHLOOptimizationBarrier)
}

// hloOperandList parses "%a, %b, …" stopping before a keyword: the
// variadic operands followed by "kw = …".
func hloOperandList(p *OpParser) ([]Operand, error) {
	var ops []Operand
	for p.IsNextOperand() {
		o, err := p.ParseOperand()
		if err != nil {
			return nil, err
		}
		ops = append(ops, o)
		if !p.Optional(",") {
			break
		}
	}
	return ops, nil
}

// hloFinish parses "{attrs}? : types" and resolves the operands; the types
// are a function type, or one type (for ops whose result has the operand
// type).
func hloFinish(p *OpParser, st *ir.OperationState, ops []Operand) error {
	if err := p.ParseOptionalAttrDict(st); err != nil {
		return err
	}
	ins, res, err := hloTypes(p, len(ops))
	if err != nil {
		return err
	}
	if len(ins) != len(ops) {
		return p.Errorf("'%s' has %d operands but %d types were given", p.Name(), len(ops), len(ins))
	}
	st.ResultTypes = res
	return p.ResolveOperands(st, ops, ins)
}

// hloOperandsFunctional: %a, %b, … {attrs}? : (T…) -> U
func hloOperandsFunctional(p *OpParser, st *ir.OperationState) error {
	ops, err := p.ParseOperandList()
	if err != nil {
		return err
	}
	return hloFinish(p, st, ops)
}

// hloListOp: %a, …, kw = [ints] (, kw2 = [ints])* {attrs}? : types. The
// first list becomes attr; StableHLO's optional extra lists
// (expanding_dimensions of dynamic_broadcast_in_dim) keep their
// known_-prefixed names.
func hloListOp(kw, attr string) ParseFunc {
	return func(p *OpParser, st *ir.OperationState) error {
		ops, err := hloOperandList(p)
		if err != nil {
			return err
		}
		vs, err := parseKeywordIntegers(p, kw)
		if err != nil {
			return err
		}
		st.AddAttr(attr, ir.I64Array(vs...))
		for p.Optional(",") {
			extra, err := p.ParseKeyword()
			if err != nil {
				return err
			}
			if err := p.Expect("="); err != nil {
				return err
			}
			vs, err := p.ParseIntegerList()
			if err != nil {
				return err
			}
			st.AddAttr("known_"+extra, ir.I64Array(vs...))
		}
		return hloFinish(p, st, ops)
	}
}

// hloDimOp: %a, …, dim = N {attrs}? : types
func hloDimOp(attr string) ParseFunc {
	return func(p *OpParser, st *ir.OperationState) error {
		ops, err := hloOperandList(p)
		if err != nil {
			return err
		}
		d, err := parseKeywordInteger(p, "dim")
		if err != nil {
			return err
		}
		st.AddAttr(attr, ir.IntAttr(d, ir.I64))
		return hloFinish(p, st, ops)
	}
}

// parseHLOIota: dim = N {attrs}? : T
func parseHLOIota(p *OpParser, st *ir.OperationState) error {
	d, err := parseKeywordInteger(p, "dim")
	if err != nil {
		return err
	}
	st.AddAttr("iota_dimension", ir.IntAttr(d, ir.I64))
	if err := p.ParseOptionalAttrDict(st); err != nil {
		return err
	}
	t, err := p.ParseColonType()
	if err != nil {
		return err
	}
	st.ResultTypes = []ir.Type{t}
	return nil
}

// parseHLOPad: %x, %v, low = [..], high = [..], interior = [..] {attrs}? : types
func parseHLOPad(p *OpParser, st *ir.OperationState) error {
	ops, err := hloOperandList(p)
	if err != nil {
		return err
	}
	for i, kw := range []string{"low", "high", "interior"} {
		if i > 0 {
			if err := p.Expect(","); err != nil {
				return err
			}
		}
		vs, err := parseKeywordIntegers(p, kw)
		if err != nil {
			return err
		}
		st.AddAttr(map[string]string{"low": "edge_padding_low", "high": "edge_padding_high", "interior": "interior_padding"}[kw], ir.I64Array(vs...))
	}
	return hloFinish(p, st, ops)
}

// parseHLOSlice: %x [start:limit(:stride)?, …] {attrs}? : types
func parseHLOSlice(p *OpParser, st *ir.OperationState) error {
	x, err := p.ParseOperand()
	if err != nil {
		return err
	}
	if err := p.Expect("["); err != nil {
		return err
	}
	starts, limits, strides := []int64{}, []int64{}, []int64{}
	err = p.p.parseCommaList("]", func() error {
		s, err := p.ParseInteger()
		if err != nil {
			return err
		}
		if err := p.Expect(":"); err != nil {
			return err
		}
		l, err := p.ParseInteger()
		if err != nil {
			return err
		}
		step := int64(1)
		if p.Optional(":") {
			if step, err = p.ParseInteger(); err != nil {
				return err
			}
		}
		starts, limits, strides = append(starts, s), append(limits, l), append(strides, step)
		return nil
	})
	if err != nil {
		return err
	}
	st.AddAttr("start_indices", ir.I64Array(starts...))
	st.AddAttr("limit_indices", ir.I64Array(limits...))
	st.AddAttr("strides", ir.I64Array(strides...))
	return hloFinish(p, st, []Operand{x})
}

// parseHLOReducePrecision: %x, format = eXmY {attrs}? : types
func parseHLOReducePrecision(p *OpParser, st *ir.OperationState) error {
	x, err := p.ParseOperand()
	if err != nil {
		return err
	}
	if err := p.Expect(","); err != nil {
		return err
	}
	if err := expectKeywordEq(p, "format"); err != nil {
		return err
	}
	pos := p.CurrentPos()
	f, err := p.ParseKeyword()
	if err != nil {
		return err
	}
	var e, m int64
	if n, _ := fmt.Sscanf(f, "e%dm%d", &e, &m); n != 2 || e < 1 || m < 0 || f != fmt.Sprintf("e%dm%d", e, m) {
		return p.ErrorfAt(pos, "'%s' expects a format like e5m10, found '%s'", p.Name(), f)
	}
	st.AddAttr("exponent_bits", ir.IntAttr(e, ir.I32))
	st.AddAttr("mantissa_bits", ir.IntAttr(m, ir.I32))
	return hloFinish(p, st, []Operand{x})
}

// parseHLOOptimizationBarrier: %a, %b {attrs}? : T, U   or   ()
func parseHLOOptimizationBarrier(p *OpParser, st *ir.OperationState) error {
	if err := p.ParseOptionalAttrDict(st); err != nil {
		return err
	}
	if p.Optional("(") {
		return p.Expect(")")
	}
	ops, err := p.ParseOperandList()
	if err != nil {
		return err
	}
	ts, err := p.ParseColonTypeList()
	if err != nil {
		return err
	}
	if len(ts) == 1 {
		if ft, ok := ts[0].(*ir.FunctionType); ok {
			st.ResultTypes = ft.Results
			return p.ResolveOperands(st, ops, ft.Inputs)
		}
	}
	st.ResultTypes = ts
	return p.ResolveOperands(st, ops, ts)
}

// hloPrecisions parses "[DEFAULT, HIGHEST]" into the generic form's array
// of #stablehlo<precision …>.
func hloPrecisions(p *OpParser) (ir.Attribute, error) {
	if err := p.Expect("["); err != nil {
		return nil, err
	}
	var out []ir.Attribute
	err := p.p.parseCommaList("]", func() error {
		kw, err := p.ParseKeyword()
		if err != nil {
			return err
		}
		switch kw {
		case "DEFAULT", "HIGH", "HIGHEST":
		default:
			return p.Errorf("'%s' has an unknown precision '%s' (expected DEFAULT, HIGH or HIGHEST)", p.Name(), kw)
		}
		out = append(out, &ir.OpaqueAttr{Text: "#stablehlo<precision " + kw + ">"})
		return nil
	})
	return ir.Array(out...), err
}

func formatInts(vs []int64) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = fmt.Sprint(v)
	}
	return "[" + strings.Join(s, ", ") + "]"
}
