package input

import (
	"fmt"
	"math"
	"strings"

	"github.com/gree-ml/gree/go/compiler/ir"
)

// DemoteOptions selects IREE's whole-program type conversions of the
// input (--iree-input-demote-* and --iree-input-promote-*). Each set flag
// rewrites every occurrence of one type; they apply in IREE's order:
// f64→f32, f32→f16, f16→f32, bf16→f32, then i64→i32.
type DemoteOptions struct {
	// F64ToF32 turns f64 into f32 (--iree-input-demote-f64-to-f32).
	F64ToF32 bool
	// I64ToI32 turns i64 (si64, ui64) into i32 (si32, ui32); index stays
	// index (--iree-input-demote-i64-to-i32).
	I64ToI32 bool
	// F16ToF32 turns f16 into f32 (--iree-input-promote-f16-to-f32).
	F16ToF32 bool
	// BF16ToF32 turns bf16 into f32 (--iree-input-promote-bf16-to-f32).
	BF16ToF32 bool
	// F32ToF16 turns f32 into f16 (--iree-input-demote-f32-to-f16).
	F32ToF16 bool
}

// Demote applies the selected type conversions to the core program that
// Run made of m. Each conversion changes the types of every value (op
// results and block arguments, so function signatures too), of functions
// and globals, and the elements of constants: arith.constant (and the other
// constant ops), util.global initial values and check.expect_*_const
// expected values. Float constants are rounded toward zero and integer ones
// truncated (si/ui: saturated), as IREE does. Attributes that are op
// parameters (dimensions, predicates, tolerances, …) keep their types.
// Casts that become identities (arith.extf f32→f32, arith.trunci i32→i32,
// …) are removed. It fails on external function declarations whose
// signature would change and on bitcasts whose two sides would no longer
// have the same width.
func Demote(m *ir.Module, opts DemoteOptions) error {
	passes := []struct {
		on bool
		d  demoter
	}{
		{opts.F64ToF32, demoter{flag: "--iree-input-demote-f64-to-f32", float: true, from: ir.KindF64, to: ir.KindF32}},
		{opts.F32ToF16, demoter{flag: "--iree-input-demote-f32-to-f16", float: true, from: ir.KindF32, to: ir.KindF16}},
		{opts.F16ToF32, demoter{flag: "--iree-input-promote-f16-to-f32", float: true, from: ir.KindF16, to: ir.KindF32}},
		{opts.BF16ToF32, demoter{flag: "--iree-input-promote-bf16-to-f32", float: true, from: ir.KindBF16, to: ir.KindF32}},
		{opts.I64ToI32, demoter{flag: "--iree-input-demote-i64-to-i32"}},
	}
	var flags []string
	for _, p := range passes {
		if !p.on {
			continue
		}
		d := p.d
		if err := d.run(m); err != nil {
			return err
		}
		flags = append(flags, d.flag)
	}
	if len(flags) == 0 {
		return nil
	}
	// Bitcasts are checked once all conversions are done: f64 → i64 is
	// f32 → i32 again with both demotions.
	var err error
	m.Op.Walk(func(op *ir.Operation) bool {
		if err != nil || (op.Name != "arith.bitcast" && op.Name != "tensor.bitcast") || len(op.Operands) == 0 || len(op.Results) != 1 {
			return err == nil
		}
		in, out := ir.ElementTypeOf(op.Operands[0].Type), ir.ElementTypeOf(op.Results[0].Type)
		if wi, wo := bitWidth(in), bitWidth(out); wi > 0 && wo > 0 && wi != wo {
			err = ir.OpErrorf(op, "with %s would bitcast %s to %s (different widths): the bit-level code cannot be converted", strings.Join(flags, " "), in, out)
		}
		return err == nil
	})
	return err
}

// demoter is one type conversion: a float kind to another, or (float
// unset) 64-bit integers to 32-bit ones.
type demoter struct {
	flag     string
	float    bool
	from, to ir.FloatKind
}

// constantOps name the ops whose "value" (or TOSA's "values") attribute
// holds the value of their result, and the check ops whose "value" is the
// expected value of their operand.
var constantOps = map[string]bool{
	"arith.constant": true, "complex.constant": true, "util.unfoldable_constant": true,
	"flow.tensor.constant": true, "flow.tensor.dynamic_constant": true,
	"stablehlo.constant": true, "mhlo.constant": true, "chlo.constant": true, "tosa.const": true,
	"check.expect_eq_const": true, "check.expect_almost_eq_const": true,
}

func (d *demoter) run(m *ir.Module) error {
	var ops []*ir.Operation
	m.Op.Walk(func(op *ir.Operation) bool {
		ops = append(ops, op)
		return true
	})
	for _, op := range ops {
		if err := d.op(op); err != nil {
			return err
		}
	}
	if err := d.casts(m, ops); err != nil {
		return err
	}
	if err := ir.Verify(m.Op); err != nil {
		return fmt.Errorf("%s made an invalid program (a gree bug): %w", d.flag, err)
	}
	if err := checkTypes(m); err != nil {
		return fmt.Errorf("%s made an inconsistent program (a gree bug): %w", d.flag, err)
	}
	return nil
}

// op converts the types op defines and the typed attributes that describe
// values.
func (d *demoter) op(op *ir.Operation) error {
	for _, r := range op.Results {
		r.Type = d.typ(r.Type)
	}
	for _, r := range op.Regions {
		for _, b := range r.Blocks {
			for _, a := range b.Args {
				a.Type = d.typ(a.Type)
			}
		}
	}
	var names map[string]bool
	switch {
	case op.Name == "func.func" || op.Name == "util.func" || op.Name == "util.initializer":
		ta, ok := op.Attr("function_type").(*ir.TypeAttr)
		if !ok {
			return nil
		}
		nt := d.typ(ta.Type)
		if nt == ta.Type {
			return nil
		}
		if len(op.Regions) == 0 || len(op.Regions[0].Blocks) == 0 {
			return ir.OpErrorf(op, "is an external function of type %s: %s cannot change its signature (convert the declaration and its implementation before compiling, or leave the flag off)", ta.Type, d.flag)
		}
		names = map[string]bool{"function_type": true}
	case op.Name == "util.global":
		names = map[string]bool{"type": true, "initial_value": true}
	case constantOps[op.Name]:
		names = map[string]bool{"value": true, "values": true}
	default:
		return nil
	}
	for i, a := range op.Attrs {
		if !names[a.Name] {
			continue
		}
		v, err := d.attr(a.Value)
		if err != nil {
			return ir.OpErrorf(op, "%s: attribute '%s': %v", d.flag, a.Name, err)
		}
		op.Attrs[i].Value = v
	}
	return nil
}

// scalar returns the converted type of a float or integer type, or nil
// when the conversion leaves it alone.
func (d *demoter) scalar(t ir.Type) ir.Type {
	switch s := t.(type) {
	case *ir.FloatType:
		if d.float && s.Kind == d.from {
			return ir.Float(d.to)
		}
	case *ir.IntegerType:
		if !d.float && s.Width == 64 {
			return &ir.IntegerType{Width: 32, Signedness: s.Signedness}
		}
	}
	return nil
}

// typ returns t converted; t itself when nothing in it changes.
func (d *demoter) typ(t ir.Type) ir.Type {
	switch x := t.(type) {
	case *ir.FloatType, *ir.IntegerType:
		if s := d.scalar(t); s != nil {
			return s
		}
	case *ir.ComplexType:
		if e := d.typ(x.Elem); e != x.Elem {
			return &ir.ComplexType{Elem: e}
		}
	case *ir.RankedTensorType:
		if e := d.typ(x.Elem); e != x.Elem {
			return &ir.RankedTensorType{Dims: append([]int64(nil), x.Dims...), Elem: e, Encoding: x.Encoding}
		}
	case *ir.UnrankedTensorType:
		if e := d.typ(x.Elem); e != x.Elem {
			return &ir.UnrankedTensorType{Elem: e}
		}
	case *ir.VectorType:
		if e := d.typ(x.Elem); e != x.Elem {
			return &ir.VectorType{Dims: append([]int64(nil), x.Dims...), Scalable: append([]bool(nil), x.Scalable...), Elem: e}
		}
	case *ir.MemRefType:
		if e := d.typ(x.Elem); e != x.Elem {
			return &ir.MemRefType{Dims: append([]int64(nil), x.Dims...), Elem: e, Layout: x.Layout, MemorySpace: x.MemorySpace}
		}
	case *ir.UnrankedMemRefType:
		if e := d.typ(x.Elem); e != x.Elem {
			return &ir.UnrankedMemRefType{Elem: e, MemorySpace: x.MemorySpace}
		}
	case *ir.TupleType:
		if ts, changed := d.types(x.Types); changed {
			return &ir.TupleType{Types: ts}
		}
	case *ir.FunctionType:
		in, c1 := d.types(x.Inputs)
		out, c2 := d.types(x.Results)
		if c1 || c2 {
			return &ir.FunctionType{Inputs: in, Results: out}
		}
	}
	return t
}

func (d *demoter) types(ts []ir.Type) ([]ir.Type, bool) {
	out := make([]ir.Type, len(ts))
	changed := false
	for i, t := range ts {
		out[i] = d.typ(t)
		changed = changed || out[i] != t
	}
	return out, changed
}

// attr converts a constant's value (or a type attribute): its type and,
// for numbers, the numbers themselves.
func (d *demoter) attr(a ir.Attribute) (ir.Attribute, error) {
	switch x := a.(type) {
	case *ir.TypeAttr:
		if nt := d.typ(x.Type); nt != x.Type {
			return ir.TypeAttrOf(nt), nil
		}
	case *ir.FloatAttr:
		if ft, ok := d.typ(x.Type).(*ir.FloatType); ok && ft != x.Type {
			return &ir.FloatAttr{Value: towardZero(ft.Kind, x.Value), Type: ft}, nil
		}
	case *ir.IntegerAttr:
		if it, ok := d.typ(x.Type).(*ir.IntegerType); ok && it != x.Type {
			return &ir.IntegerAttr{Value: truncInt(x.Value, it), Type: it}, nil
		}
	case *ir.DenseElementsAttr:
		return d.dense(x)
	case *ir.DenseResourceAttr:
		if d.typ(x.Type) == ir.Type(x.Type) {
			return a, nil
		}
		e, err := x.Elements()
		if err != nil {
			return nil, err
		}
		return d.dense(e)
	case *ir.ArrayAttr:
		// complex.constant's [re, im].
		var elems []ir.Attribute
		for i, e := range x.Elems {
			v, err := d.attr(e)
			if err != nil {
				return nil, err
			}
			if v != e && elems == nil {
				elems = append([]ir.Attribute(nil), x.Elems...)
			}
			if elems != nil {
				elems[i] = v
			}
		}
		if elems != nil {
			return ir.Array(elems...), nil
		}
	}
	return a, nil
}

func (d *demoter) dense(x *ir.DenseElementsAttr) (ir.Attribute, error) {
	st, ok := d.typ(x.Type).(ir.ShapedType)
	if !ok {
		return nil, fmt.Errorf("cannot convert %s", x.Type)
	}
	if ir.Type(st) == ir.Type(x.Type) {
		return x, nil
	}
	out := &ir.DenseElementsAttr{Type: st, Splat: x.Splat}
	elem := st.ElementType()
	if ct, ok := elem.(*ir.ComplexType); ok {
		elem = ct.Elem
	}
	switch e := elem.(type) {
	case *ir.FloatType:
		if x.Floats == nil && len(x.Ints) > 0 {
			return nil, fmt.Errorf("%s holds integers", x.Type)
		}
		if x.Floats != nil {
			out.Floats = make([]float64, len(x.Floats))
			for i, v := range x.Floats {
				out.Floats[i] = towardZero(e.Kind, v)
			}
		}
	case *ir.IntegerType:
		if x.Ints == nil && len(x.Floats) > 0 {
			return nil, fmt.Errorf("%s holds floats", x.Type)
		}
		if x.Ints != nil {
			out.Ints = make([]int64, len(x.Ints))
			for i, v := range x.Ints {
				out.Ints[i] = truncInt(v, e)
			}
		}
	default:
		return nil, fmt.Errorf("cannot convert %s", x.Type)
	}
	return out, nil
}

// towardZero rounds v to format k toward zero (IREE converts constants
// with APFloat's rmTowardZero): values beyond the range become the largest
// finite value, not infinity.
func towardZero(k ir.FloatKind, v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ir.RoundFloat(k, v)
	}
	r := ir.RoundFloat(k, v)
	if math.Abs(r) <= math.Abs(v) {
		return r
	}
	// Rounded away from zero (or to infinity): the value below it in
	// magnitude, one less in the sign-magnitude encoding.
	bits, ok := ir.FloatToBits(k, r)
	if !ok || bits&^(uint64(1)<<(k.Width()-1)) == 0 {
		return r
	}
	p, ok := ir.FloatFromBits(k, bits-1)
	if !ok {
		return r
	}
	return p
}

// truncInt converts a 64-bit integer to integer type t: signless values
// wrap, si and ui values saturate (as IREE's conversion does).
func truncInt(v int64, t *ir.IntegerType) int64 {
	switch t.Signedness {
	case ir.Signed:
		lo, hi := int64(-1)<<(t.Width-1), int64(1)<<(t.Width-1)-1
		return min(max(v, lo), hi)
	case ir.Unsigned:
		// ui64 values are kept as their bits.
		return int64(min(uint64(v), uint64(1)<<t.Width-1))
	}
	return ir.NormalizeInt(v, t)
}

// castDirs are the arith casts whose legality depends on the widths: +1
// when the result must be wider than the operand, -1 when narrower.
var castDirs = map[string]int{
	"arith.extf": 1, "arith.truncf": -1,
	"arith.extsi": 1, "arith.extui": 1, "arith.trunci": -1,
}

// casts removes the casts that became identities and rebuilds float casts
// between the two 16-bit formats (f32→bf16 truncations once f32 is f16)
// through f32.
func (d *demoter) casts(m *ir.Module, ops []*ir.Operation) error {
	repl := map[*ir.Value]*ir.Value{}
	for _, op := range ops {
		dir, ok := castDirs[op.Name]
		if !ok || len(op.Operands) != 1 || len(op.Results) != 1 {
			continue
		}
		src, res := op.Operands[0], op.Results[0]
		if ir.TypesEqual(src.Type, res.Type) {
			repl[res] = src
			op.Erase()
			continue
		}
		wi, wo := bitWidth(ir.ElementTypeOf(src.Type)), bitWidth(ir.ElementTypeOf(res.Type))
		if (dir > 0 && wo > wi) || (dir < 0 && wo < wi) {
			continue
		}
		if d.float && wi == wo && wi == 16 {
			// f16 ↔ bf16: no single arith cast; go through f32, which
			// holds both exactly.
			b := ir.NewBuilder(op.Loc)
			b.SetInsertionPointBefore(op)
			wide := b.Create("arith.extf", []*ir.Value{src}, []ir.Type{ir.WithElementType(src.Type, ir.F32)}).Result(0)
			narrow := b.Create("arith.truncf", []*ir.Value{wide}, []ir.Type{res.Type}, op.Attrs...).Result(0)
			repl[res] = narrow
			op.Erase()
			continue
		}
		return ir.OpErrorf(op, "with %s would cast %s to %s, which %s cannot do", d.flag, src.Type, res.Type, op.Name)
	}
	if len(repl) == 0 {
		return nil
	}
	resolve := func(v *ir.Value) *ir.Value {
		for {
			n, ok := repl[v]
			if !ok {
				return v
			}
			v = n
		}
	}
	m.Op.Walk(func(op *ir.Operation) bool {
		for i, v := range op.Operands {
			op.Operands[i] = resolve(v)
		}
		return true
	})
	return nil
}

// bitWidth is the width of a float or integer type, 0 for other types.
func bitWidth(t ir.Type) int {
	switch x := t.(type) {
	case *ir.FloatType:
		return x.Kind.Width()
	case *ir.IntegerType:
		return x.Width
	}
	return 0
}

// sameTypeOps are the arith ops whose operands and result all have one
// type.
var sameTypeOps = map[string]bool{
	"arith.addf": true, "arith.subf": true, "arith.mulf": true, "arith.divf": true, "arith.remf": true,
	"arith.negf": true, "arith.maximumf": true, "arith.minimumf": true, "arith.maxnumf": true, "arith.minnumf": true,
	"arith.addi": true, "arith.subi": true, "arith.muli": true, "arith.divsi": true, "arith.divui": true,
	"arith.remsi": true, "arith.remui": true, "arith.andi": true, "arith.ori": true, "arith.xori": true,
	"arith.shli": true, "arith.shrsi": true, "arith.shrui": true, "arith.maxsi": true, "arith.minsi": true,
	"arith.maxui": true, "arith.minui": true, "arith.ceildivsi": true, "arith.floordivsi": true, "arith.ceildivui": true,
}

// checkTypes checks that the types the conversion touched still agree
// where ops require it: calls and their callees, returns and their
// functions, global accesses and their globals, same-type arith ops,
// comparisons, constants and their values, and linalg.generic's scalar
// body against its tensors.
func checkTypes(m *ir.Module) error {
	funcType := func(op *ir.Operation) *ir.FunctionType {
		if ta, ok := op.Attr("function_type").(*ir.TypeAttr); ok {
			ft, _ := ta.Type.(*ir.FunctionType)
			return ft
		}
		return nil
	}
	lookup := func(op *ir.Operation, name string) *ir.Operation {
		if s, ok := op.Attr(name).(*ir.SymbolRefAttr); ok && len(s.Nested) == 0 {
			return m.Lookup(s.Root)
		}
		return nil
	}
	valuesMatch := func(vals []*ir.Value, ts []ir.Type) bool {
		if len(vals) != len(ts) {
			return false
		}
		for i, v := range vals {
			if !ir.TypesEqual(v.Type, ts[i]) {
				return false
			}
		}
		return true
	}
	var err error
	m.Op.Walk(func(op *ir.Operation) bool {
		if err != nil {
			return false
		}
		switch {
		case op.Name == "func.call" || op.Name == "util.call":
			if fn := lookup(op, "callee"); fn != nil {
				if ft := funcType(fn); ft != nil && (!valuesMatch(op.Operands, ft.Inputs) || !valuesMatch(op.Results, ft.Results)) {
					err = ir.OpErrorf(op, "does not match the type of its callee (%s)", ft)
				}
			}
		case op.Name == "func.return" || op.Name == "util.return":
			if fn := op.ParentOp(); fn != nil && (fn.Name == "func.func" || fn.Name == "util.func") {
				if ft := funcType(fn); ft != nil && !valuesMatch(op.Operands, ft.Results) {
					err = ir.OpErrorf(op, "does not match its function's results (%s)", ft)
				}
			}
		case op.Name == "util.global.load" || op.Name == "util.global.store":
			g := lookup(op, "global")
			if g == nil {
				break
			}
			ta, ok := g.Attr("type").(*ir.TypeAttr)
			if !ok {
				break
			}
			v := op.Operands
			if op.Name == "util.global.load" {
				v = op.Results
			}
			if len(v) > 0 && !ir.TypesEqual(v[0].Type, ta.Type) {
				err = ir.OpErrorf(op, "has type %s, but the global has type %s", v[0].Type, ta.Type)
			}
		case op.Name == "arith.constant":
			if a, ok := op.Attr("value").(ir.TypedAttr); ok && len(op.Results) == 1 && !ir.TypesEqual(a.AttrType(), op.Results[0].Type) {
				err = ir.OpErrorf(op, "has a value of type %s but a result of type %s", a.AttrType(), op.Results[0].Type)
			}
		case sameTypeOps[op.Name] || op.Name == "arith.cmpf" || op.Name == "arith.cmpi":
			vals := append([]*ir.Value(nil), op.Operands...)
			if sameTypeOps[op.Name] {
				vals = append(vals, op.Results...)
			}
			for _, v := range vals {
				if !ir.TypesEqual(v.Type, vals[0].Type) {
					err = ir.OpErrorf(op, "mixes types %s and %s", vals[0].Type, v.Type)
					break
				}
			}
		case op.Name == "linalg.generic":
			if len(op.Regions) == 0 || op.Regions[0].Entry() == nil {
				break
			}
			entry := op.Regions[0].Entry()
			if len(entry.Args) != len(op.Operands) {
				break
			}
			for i, a := range entry.Args {
				if !ir.TypesEqual(a.Type, ir.ElementTypeOf(op.Operands[i].Type)) {
					err = ir.OpErrorf(op, "has body argument #%d of type %s for an operand of type %s", i, a.Type, op.Operands[i].Type)
					return false
				}
			}
			if y := entry.Terminator(); y != nil && y.Name == "linalg.yield" && len(y.Operands) == len(op.Results) {
				for i, v := range y.Operands {
					if !ir.TypesEqual(v.Type, ir.ElementTypeOf(op.Results[i].Type)) {
						err = ir.OpErrorf(y, "yields %s for a result of type %s", v.Type, op.Results[i].Type)
						return false
					}
				}
			}
		}
		return err == nil
	})
	return err
}
