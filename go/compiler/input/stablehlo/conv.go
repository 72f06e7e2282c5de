package stablehlo

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

var convField = regexp.MustCompile(`(\w+) = (\[[0-9, ]*\]|[0-9]+)`)

var convCompact = regexp.MustCompile(`\[([^\]]*)\]x\[([^\]]*)\]->\[([^\]]*)\]`)

// convDims parses #stablehlo.conv<raw …> or the compact
// #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]> into named lists.
func convDims(text string) map[string][]int {
	out := map[string][]int{}
	if m := convCompact.FindStringSubmatch(text); m != nil {
		for k, side := range []string{"input", "kernel", "output"} {
			spatial := []int{}
			for pos, f := range strings.Split(m[k+1], ",") {
				switch f = strings.TrimSpace(f); f {
				case "b":
					out[side+"_batch_dimension"] = []int{pos}
				case "f":
					out[side+"_feature_dimension"] = []int{pos}
				case "i":
					out["kernel_input_feature_dimension"] = []int{pos}
				case "o":
					out["kernel_output_feature_dimension"] = []int{pos}
				default:
					j, err := strconv.Atoi(f)
					if err != nil || j < 0 || j > 64 {
						return map[string][]int{}
					}
					for len(spatial) <= j {
						spatial = append(spatial, -1)
					}
					spatial[j] = pos
				}
			}
			out[side+"_spatial_dimensions"] = spatial
		}
		return out
	}
	for _, m := range convField.FindAllStringSubmatch(text, -1) {
		var ds []int
		for _, f := range strings.FieldsFunc(m[2], func(r rune) bool { return r == '[' || r == ']' || r == ',' || r == ' ' }) {
			n, _ := strconv.Atoi(f)
			ds = append(ds, n)
		}
		out[m[1]] = ds
	}
	return out
}

// hloConvolution lowers stablehlo.convolution (any dimension numbers,
// strides, padding, lhs and rhs dilation, window reversal, feature and
// batch groups) to a generic over output × kernel-window × input-feature
// loops that reads the input with bounds checks (the padding and the holes
// of lhs dilation read zero).
func (r *rewriter) hloConvolution(b *ir.Builder, op *ir.Operation, rt *ir.RankedTensorType) error {
	dn := convDims(attrText(op, "dimension_numbers"))
	in, w := op.Operands[0], op.Operands[1]
	it, wt := in.Type.(*ir.RankedTensorType), w.Type.(*ir.RankedTensorType)
	isp, ksp, osp := dn["input_spatial_dimensions"], dn["kernel_spatial_dimensions"], dn["output_spatial_dimensions"]
	complete := true
	for _, k := range []string{"input_batch_dimension", "input_feature_dimension", "kernel_input_feature_dimension",
		"kernel_output_feature_dimension", "output_batch_dimension", "output_feature_dimension"} {
		complete = complete && len(dn[k]) == 1
	}
	for _, sp := range [][]int{isp, ksp, osp} {
		for _, d := range sp {
			complete = complete && d >= 0
		}
	}
	if !complete || len(isp) == 0 || len(isp) != len(ksp) || len(isp) != len(osp) || !ir.HasStaticShape(it) || !ir.HasStaticShape(wt) {
		return ir.OpErrorf(op, "has dimension numbers or shapes gree does not support yet")
	}
	batchGroups := int64(1)
	if bg, ok := op.Attr("batch_group_count").(*ir.IntegerAttr); ok && bg.Value > 1 {
		batchGroups = bg.Value
	}
	ns := len(isp)
	strides, dil := fill1(core.IntsOf(op, "window_strides"), ns), fill1(core.IntsOf(op, "rhs_dilation"), ns)
	lhsDil := fill1(core.IntsOf(op, "lhs_dilation"), ns)
	rev := make([]int64, ns)
	if r, ok := core.IntList(op, "window_reversal"); ok {
		copy(rev, r)
	}
	padLow := make([]int64, ns)
	if p, ok := op.Attr("padding").(*ir.DenseElementsAttr); ok {
		for i := 0; i < ns; i++ {
			padLow[i] = p.IntAt(int64(2 * i))
		}
	}
	groups := int64(1)
	if g, ok := op.Attr("feature_group_count").(*ir.IntegerAttr); ok {
		groups = g.Value
	}
	O := len(rt.Dims)
	n := O + ns + 1 // output dims, window dims, input feature (per group)
	its := make([]linalg.Iterator, n)
	for i := O; i < n; i++ {
		its[i] = linalg.Reduction
	}
	kc := n - 1
	of, ob := dn["output_feature_dimension"][0], dn["output_batch_dimension"][0]
	km := &ir.AffineMap{NumDims: n, Results: make([]ir.AffineExpr, len(wt.Dims))}
	for j, d := range ksp {
		km.Results[d] = &ir.AffineDimExpr{Pos: O + j}
	}
	km.Results[dn["kernel_input_feature_dimension"][0]] = &ir.AffineDimExpr{Pos: kc}
	km.Results[dn["kernel_output_feature_dimension"][0]] = &ir.AffineDimExpr{Pos: of}
	coutPerGroup := rt.Dims[of] / groups
	cinPerGroup := wt.Dims[dn["kernel_input_feature_dimension"][0]]
	// 16- and 8-bit float products are summed in f32 and rounded once at
	// the end, as XLA does.
	accT := ir.Tensor(rt.Dims, rt.Elem)
	if ft, ok := rt.Elem.(*ir.FloatType); ok && ft.Kind.Width() < 32 {
		accT = ir.Tensor(rt.Dims, ir.F32)
	}
	acc := accT.Elem
	var zero *ir.Value
	ft, isF := acc.(*ir.FloatType)
	if isF {
		zero = b.Constant(ir.FloatAttrOf(0, ft))
	} else {
		zero = b.Constant(ir.IntAttr(0, acc))
	}
	e := b.Create("tensor.empty", nil, []ir.Type{accT}).Result(0)
	filled := linalg.BuildGeneric(b, []*ir.Value{zero}, []*ir.Value{e}, []*ir.AffineMap{{NumDims: O}, linalg.Identity(O)}, core.Parallel(O), core.YieldArg(0, accT))
	om := linalg.Identity(n)
	om.Results = om.Results[:O]
	g := linalg.BuildGeneric(b, []*ir.Value{w}, filled.Results, []*ir.AffineMap{km, om}, its, func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		c := func(v int64) *ir.Value { return bb.Constant(ir.IntAttr(v, ir.Index)) }
		ix := make([]*ir.Value, len(it.Dims))
		var inside *ir.Value
		ix[dn["input_batch_dimension"][0]] = core.LoopIndex(bb, ob)
		if batchGroups > 1 {
			// Output feature group g reads the g-th slice of the batch.
			grp := core.BinOp(bb, "arith.divui", core.LoopIndex(bb, of), c(rt.Dims[of]/batchGroups))
			ix[dn["input_batch_dimension"][0]] = core.BinOp(bb, "arith.addi", core.BinOp(bb, "arith.muli", grp, c(rt.Dims[ob])), core.LoopIndex(bb, ob))
		}
		feat := core.LoopIndex(bb, kc)
		if groups > 1 {
			grp := core.BinOp(bb, "arith.divui", core.LoopIndex(bb, of), c(coutPerGroup))
			feat = core.BinOp(bb, "arith.addi", core.BinOp(bb, "arith.muli", grp, c(cinPerGroup)), feat)
		}
		ix[dn["input_feature_dimension"][0]] = feat
		for j := 0; j < ns; j++ {
			k := core.LoopIndex(bb, O+j)
			if rev[j] != 0 { // window_reversal: window position k meets kernel element K-1-k
				k = core.BinOp(bb, "arith.subi", c(wt.Dims[ksp[j]]-1), k)
			}
			pos := core.BinOp(bb, "arith.addi", core.BinOp(bb, "arith.muli", core.LoopIndex(bb, osp[j]), c(strides[j])), core.BinOp(bb, "arith.muli", k, c(dil[j])))
			pos = core.BinOp(bb, "arith.subi", pos, c(padLow[j]))
			// With lhs_dilation D the input is read as if D-1 zeros stood
			// between its elements: position pos holds element pos/D when D
			// divides it.
			size := (it.Dims[isp[j]]-1)*lhsDil[j] + 1
			ok := core.BinOp(bb, "arith.andi", core.CmpI(bb, core.PredSGE, pos, c(0)), core.CmpI(bb, core.PredSLT, pos, c(size)))
			if inside == nil {
				inside = ok
			} else {
				inside = core.BinOp(bb, "arith.andi", inside, ok)
			}
			cl := bb.Create("arith.maxsi", []*ir.Value{pos, c(0)}, []ir.Type{ir.Index}).Result(0)
			cl = bb.Create("arith.minsi", []*ir.Value{cl, c(size - 1)}, []ir.Type{ir.Index}).Result(0)
			if lhsDil[j] != 1 {
				onGrid := core.CmpI(bb, core.PredEQ, core.BinOp(bb, "arith.remui", cl, c(lhsDil[j])), c(0))
				inside = core.BinOp(bb, "arith.andi", inside, onGrid)
				cl = core.BinOp(bb, "arith.divui", cl, c(lhsDil[j]))
			}
			ix[isp[j]] = cl
		}
		x := bb.Create("tensor.extract", append([]*ir.Value{in}, ix...), []ir.Type{it.Elem}).Result(0)
		x = core.Cast(bb, x, acc)
		x = bb.Create("arith.select", []*ir.Value{inside, x, zero}, []ir.Type{acc}).Result(0)
		wv := core.Cast(bb, args[0], acc)
		if isF {
			p := bb.Create("arith.mulf", []*ir.Value{x, wv}, []ir.Type{acc}).Result(0)
			return []*ir.Value{bb.Create("arith.addf", []*ir.Value{args[1], p}, []ir.Type{acc}).Result(0)}
		}
		p := core.BinOp(bb, "arith.muli", x, wv)
		return []*ir.Value{core.BinOp(bb, "arith.addi", args[1], p)}
	})
	if !ir.TypesEqual(acc, rt.Elem) {
		id := linalg.Identity(O)
		g = linalg.BuildGeneric(b, g.Results, []*ir.Value{b.Create("tensor.empty", nil, []ir.Type{rt}).Result(0)}, []*ir.AffineMap{id, id}, core.Parallel(O),
			func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
				return []*ir.Value{core.Cast(bb, args[0], rt.Elem)}
			})
	}
	r.Replace(op, g.Results)
	return nil
}

func anyNot1(xs []int64) bool {
	for _, x := range xs {
		if x != 1 {
			return true
		}
	}
	return false
}

func fill1(xs []int64, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = 1
		if i < len(xs) {
			out[i] = xs[i]
		}
	}
	return out
}
