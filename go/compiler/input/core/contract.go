package core

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// contractions gives each named contraction as "loops : A B C": loop
// names with '*' marking reductions, then each operand's indices.
var contractions = map[string]string{
	"matmul":                   "m n k* : m,k k,n m,n",
	"matmul_transpose_a":       "m n k* : k,m k,n m,n",
	"matmul_transpose_b":       "m n k* : m,k n,k m,n",
	"batch_matmul":             "b m n k* : b,m,k b,k,n b,m,n",
	"batch_matmul_transpose_a": "b m n k* : b,k,m b,k,n b,m,n",
	"batch_matmul_transpose_b": "b m n k* : b,m,k b,n,k b,m,n",
	"batch_reduce_matmul":      "b* m n k* : b,m,k b,k,n m,n",
	"matvec":                   "m k* : m,k k m",
	"vecmat":                   "n k* : k k,n n",
	"batch_matvec":             "b m k* : b,m,k b,k b,m",
	"batch_vecmat":             "b n k* : b,k b,k,n b,n",
	"dot":                      "k* : k k -",
	"quantized_matmul":         "m n k* : m,k k,n m,n",
	"quantized_batch_matmul":   "b m n k* : b,m,k b,k,n b,m,n",
	"mmt4d":                    "m n k* m0 n0 k0* : m,k,m0,k0 n,k,n0,k0 m,n,m0,n0",
	"batch_mmt4d":              "b m n k* m0 n0 k0* : b,m,k,m0,k0 b,n,k,n0,k0 b,m,n,m0,n0",
}

// parseSpec turns "loops : operand indices…" into maps and iterators.
func parseSpec(spec string) ([]*ir.AffineMap, []linalg.Iterator, error) {
	loopPart, opPart, _ := strings.Cut(spec, ":")
	pos := map[string]int{}
	var its []linalg.Iterator
	for i, l := range strings.Fields(loopPart) {
		it := linalg.Parallel
		if strings.HasSuffix(l, "*") {
			it = linalg.Reduction
			l = strings.TrimSuffix(l, "*")
		}
		pos[l] = i
		its = append(its, it)
	}
	n := len(its)
	var maps []*ir.AffineMap
	for _, operand := range strings.Fields(opPart) {
		m := &ir.AffineMap{NumDims: n}
		if operand != "-" {
			for _, term := range strings.Split(operand, ",") {
				e, err := parseExpr(term, pos)
				if err != nil {
					return nil, nil, err
				}
				m.Results = append(m.Results, e)
			}
		}
		maps = append(maps, m)
	}
	return maps, its, nil
}

// parseExpr parses "a", "a*3+b*2" sums of products of a loop name and an
// optional constant factor.
func parseExpr(s string, pos map[string]int) (ir.AffineExpr, error) {
	var sum ir.AffineExpr
	for _, term := range strings.Split(s, "+") {
		name, factor, hasFactor := strings.Cut(term, "*")
		d, ok := pos[name]
		if !ok {
			return nil, fmt.Errorf("input: unknown loop %q in %q", name, s)
		}
		var e ir.AffineExpr = &ir.AffineDimExpr{Pos: d}
		if hasFactor {
			f, err := strconv.ParseInt(factor, 10, 64)
			if err != nil {
				return nil, err
			}
			if f != 1 {
				e = ir.AffineBinary(ir.AffineMul, e, &ir.AffineConstantExpr{Value: f})
			}
		}
		if sum == nil {
			sum = e
		} else {
			sum = ir.AffineBinary(ir.AffineAdd, sum, e)
		}
	}
	return sum, nil
}

// MulAdd is the body out + a*b with a and b converted to out's type.
func MulAdd(bb *ir.Builder, args []*ir.Value) []*ir.Value {
	out := args[len(args)-1]
	a := Cast(bb, args[0], out.Type)
	c := Cast(bb, args[1], out.Type)
	if ir.IsFloat(out.Type) {
		p := bb.Create("arith.mulf", []*ir.Value{a, c}, []ir.Type{out.Type}).Result(0)
		return []*ir.Value{bb.Create("arith.addf", []*ir.Value{out, p}, []ir.Type{out.Type}).Result(0)}
	}
	p := bb.Create("arith.muli", []*ir.Value{a, c}, []ir.Type{out.Type}).Result(0)
	return []*ir.Value{bb.Create("arith.addi", []*ir.Value{out, p}, []ir.Type{out.Type}).Result(0)}
}

// Cast casts a scalar to type t as linalg's named ops do (signed
// integer extension; float extension or truncation; integer to float).
func Cast(bb *ir.Builder, v *ir.Value, t ir.Type) *ir.Value {
	from := v.Type
	if ir.TypesEqual(from, t) {
		return v
	}
	fw, tw := Width(from), Width(t)
	var name string
	switch {
	case ir.IsFloat(from) && ir.IsFloat(t):
		if tw == fw { // f16 <-> bf16 (and the 8-bit formats): through f32, exactly
			v = bb.Create("arith.extf", []*ir.Value{v}, []ir.Type{ir.F32}).Result(0)
			fw = 32
		}
		name = map[bool]string{true: "arith.extf", false: "arith.truncf"}[tw > fw]
	case ir.IsIntOrIndex(from) && ir.IsFloat(t):
		name = "arith.sitofp"
	case ir.IsFloat(from) && ir.IsIntOrIndex(t):
		name = "arith.fptosi"
	case IsIndex(from) || IsIndex(t):
		name = "arith.index_cast"
	default:
		name = map[bool]string{true: "arith.extsi", false: "arith.trunci"}[tw > fw]
	}
	return bb.Create(name, []*ir.Value{v}, []ir.Type{t}).Result(0)
}

// IsIndex reports the index type.
func IsIndex(t ir.Type) bool { _, ok := t.(*ir.IndexType); return ok }

// Width is the bit width of an integer or float type (64 for index).
func Width(t ir.Type) int {
	switch t := t.(type) {
	case *ir.IntegerType:
		return t.Width
	case *ir.FloatType:
		return t.Kind.Width()
	}
	return 64
}

func contraction(b *ir.Builder, op *ir.Operation, name string, ins, outs []*ir.Value) (*ir.Operation, error) {
	maps, its, err := parseSpec(contractions[name])
	if err != nil {
		return nil, err
	}
	// matmul and friends may carry explicit indexing_maps.
	if arr, ok := op.Attr("indexing_maps").(*ir.ArrayAttr); ok && len(arr.Elems) == 3 {
		for i, e := range arr.Elems {
			if m, ok := e.(*ir.AffineMapAttr); ok {
				maps[i] = m.Map
			}
		}
	}
	if strings.HasPrefix(name, "quantized_") && len(ins) == 4 && len(outs) == 1 {
		// (a - aZeroPoint) * (b - bZeroPoint), the zero points scalars.
		n := maps[0].NumDims
		maps = []*ir.AffineMap{maps[0], maps[1], {NumDims: n}, {NumDims: n}, maps[2]}
		return linalg.BuildGeneric(b, ins, outs, maps, its, func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
			out := args[4]
			sub := func(x, zp *ir.Value) *ir.Value {
				return BinOp(bb, "arith.subi", Cast(bb, x, out.Type), Cast(bb, zp, out.Type))
			}
			p := BinOp(bb, "arith.muli", sub(args[0], args[2]), sub(args[1], args[3]))
			return []*ir.Value{BinOp(bb, "arith.addi", out, p)}
		}), nil
	}
	if len(ins) != 2 || len(outs) != 1 {
		return nil, ir.OpErrorf(op, "expects two inputs and one output")
	}
	if hasQuantAttrs(op) {
		return nil, ir.OpErrorf(op, "with a cast attribute other than signed is not supported yet")
	}
	return linalg.BuildGeneric(b, ins, outs, maps, its, MulAdd), nil
}

func hasQuantAttrs(op *ir.Operation) bool {
	c := op.Attr("cast")
	return c != nil && strings.Contains(c.String(), "unsigned")
}
