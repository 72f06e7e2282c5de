package torchonnx

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// ai.onnx.ml TreeEnsemble (opset 5): every tree of the ensemble is
// unrolled from its attributes into nested selects, evaluated for each
// (row, target) of the result: a node compares X[row, feature] with its
// split (BRANCH_LEQ, LT, GTE, GT, EQ, NEQ, or MEMBER of its set in
// membership_values; NaN goes the true way where
// nodes_missing_value_tracks_true says so), a leaf gives its weight when
// its target is the result's. The trees' leaves are aggregated by SUM,
// AVERAGE, MIN or MAX. Post transforms other than NONE are errors.

func init() {
	onnxReg(onnxTreeEnsemble, "TreeEnsemble")
}

// treeEnsemble holds a TreeEnsemble's attributes.
type treeEnsemble struct {
	splits, weights               []float64
	features, modes, trueIDs      []int64
	falseIDs, trueLeaf, falseLeaf []int64
	targets, roots, missingTrue   []int64
	members                       [][]float64 // per node (MEMBER nodes)
}

// attrNumbers reads a float list or tensor (dense, dense_resource)
// attribute.
func (o *onnxOp) attrNumbers(name string) ([]float64, bool) {
	a := o.attr(name)
	if r, ok := a.(*ir.DenseResourceAttr); ok {
		d, err := r.Elements()
		if err != nil {
			return nil, false
		}
		a = d
	}
	if d, ok := a.(*ir.DenseElementsAttr); ok {
		n, _ := ir.NumElements(d.Type.Shape())
		out := make([]float64, 0, n)
		for k := int64(0); k < n; k++ {
			j := k
			if d.Splat {
				j = 0
			}
			if d.Floats != nil {
				out = append(out, d.Floats[j])
			} else {
				out = append(out, float64(d.Ints[j]))
			}
		}
		return out, true
	}
	return o.attrFloats(name)
}

func (o *onnxOp) treeEnsembleAttrs() (*treeEnsemble, error) {
	te := &treeEnsemble{}
	ints := func(name string, dst *[]int64, n int) error {
		v, ok := o.attrInts(name)
		switch o.attr(name).(type) {
		case *ir.DenseElementsAttr, *ir.DenseResourceAttr:
			ok = false
		}
		if !ok {
			// Dense tensors (splats expanded) and float lists.
			if f, okf := o.attrNumbers(name); okf {
				v = make([]int64, len(f))
				for i, x := range f {
					v[i] = int64(x)
				}
				ok = true
			}
		}
		if !ok || n >= 0 && len(v) != n {
			return o.errorf("needs attribute %s with %d values", name, n)
		}
		*dst = v
		return nil
	}
	var ok bool
	if te.splits, ok = o.attrNumbers("nodes_splits"); !ok {
		return nil, o.errorf("needs attribute nodes_splits")
	}
	n := len(te.splits)
	for _, a := range []struct {
		name string
		dst  *[]int64
	}{{"nodes_featureids", &te.features}, {"nodes_modes", &te.modes}, {"nodes_truenodeids", &te.trueIDs},
		{"nodes_falsenodeids", &te.falseIDs}, {"nodes_trueleafs", &te.trueLeaf}, {"nodes_falseleafs", &te.falseLeaf}} {
		if err := ints(a.name, a.dst, n); err != nil {
			return nil, err
		}
	}
	if te.weights, ok = o.attrNumbers("leaf_weights"); !ok {
		return nil, o.errorf("needs attribute leaf_weights")
	}
	if err := ints("leaf_targetids", &te.targets, len(te.weights)); err != nil {
		return nil, err
	}
	if err := ints("tree_roots", &te.roots, -1); err != nil {
		return nil, err
	}
	if o.attr("nodes_missing_value_tracks_true") != nil {
		if err := ints("nodes_missing_value_tracks_true", &te.missingTrue, n); err != nil {
			return nil, err
		}
	}
	// membership_values: the sets of the MEMBER nodes in node order, each
	// ended by NaN.
	mv, _ := o.attrNumbers("membership_values")
	te.members = make([][]float64, n)
	for k := 0; k < n; k++ {
		if te.modes[k] != 6 {
			continue
		}
		set := []float64{}
		for len(mv) > 0 && !math.IsNaN(mv[0]) {
			set, mv = append(set, mv[0]), mv[1:]
		}
		if len(mv) == 0 {
			return nil, o.errorf("has fewer NaN-delimited sets in membership_values than BRANCH_MEMBER nodes")
		}
		te.members[k], mv = set, mv[1:]
	}
	return te, nil
}

func onnxTreeEnsemble(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, rt := o.in(0), o.rts[0]
	xt := tt(x)
	if len(xt.Dims) != 2 || len(rt.Dims) != 2 || !ir.IsFloat(xt.Elem) {
		return nil, o.errorf("needs a 2-D floating-point input and result")
	}
	if pt := o.attrInt("post_transform", 0); pt != 0 {
		return nil, o.errorf("with post_transform %d is not supported by gree yet (only NONE)", pt)
	}
	agg := o.attrInt("aggregate_function", 1)
	if agg < 0 || agg > 3 {
		return nil, o.errorf("has aggregate_function %d; it must be 0 (AVERAGE), 1 (SUM), 2 (MIN) or 3 (MAX)", agg)
	}
	te, err := o.treeEnsembleAttrs()
	if err != nil {
		return nil, err
	}
	nodes, leaves := len(te.splits), len(te.weights)
	for k := 0; k < nodes; k++ {
		if te.modes[k] < 0 || te.modes[k] > 6 {
			return nil, o.errorf("node %d has mode %d; modes are 0 to 6 (BRANCH_LEQ … BRANCH_MEMBER)", k, te.modes[k])
		}
		if te.features[k] < 0 || te.features[k] >= xt.Dims[1] {
			return nil, o.errorf("node %d reads feature %d; X has %d", k, te.features[k], xt.Dims[1])
		}
	}
	for k, t := range te.targets {
		if t < 0 || t >= rt.Dims[1] {
			return nil, o.errorf("leaf %d has target %d; the result has %d targets", k, t, rt.Dims[1])
		}
	}
	elem := rt.Elem
	var buildErr error
	g := linalg.BuildGeneric(o.b, nil, []*ir.Value{empty(o.b, rt)}, []*ir.AffineMap{linalg.Identity(2)}, core.Parallel(2), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
		s := sc{bb, elem}
		row, tgt := core.LoopIndex(bb, 0), core.LoopIndex(bb, 1)
		var eval func(id int64, leaf bool, depth int) (*ir.Value, *ir.Value)
		eval = func(id int64, leaf bool, depth int) (*ir.Value, *ir.Value) {
			if buildErr != nil {
				return nil, nil
			}
			if leaf {
				if id < 0 || int(id) >= leaves {
					buildErr = o.errorf("refers to leaf %d; there are %d", id, leaves)
					return nil, nil
				}
				return s.c(te.weights[id]), core.Cmp(bb, "arith.cmpi", 0, tgt, cIdx(bb, te.targets[id]))
			}
			if id < 0 || int(id) >= nodes || depth > nodes {
				buildErr = o.errorf("has a tree that refers to node %d (out of range or a cycle)", id)
				return nil, nil
			}
			v := extractAt(bb, x, []*ir.Value{row, cIdx(bb, te.features[id])})
			var cond *ir.Value
			if te.modes[id] == 6 {
				cond = bb.Constant(ir.IntAttr(0, ir.I1))
				for _, m := range te.members[id] {
					cond = core.BinOp(bb, "arith.ori", cond, core.Cmp(bb, "arith.cmpf", 1, v, s.c(m)))
				}
			} else {
				// LEQ ole, LT olt, GTE oge, GT ogt, EQ oeq, NEQ une.
				pred := []int64{5, 4, 3, 2, 1, 13}[te.modes[id]]
				cond = core.Cmp(bb, "arith.cmpf", pred, v, s.c(te.splits[id]))
			}
			if te.missingTrue != nil && te.missingTrue[id] != 0 {
				cond = core.BinOp(bb, "arith.ori", cond, core.Cmp(bb, "arith.cmpf", 14, v, v))
			}
			tw, tm := eval(te.trueIDs[id], te.trueLeaf[id] != 0, depth+1)
			fw, fm := eval(te.falseIDs[id], te.falseLeaf[id] != 0, depth+1)
			if buildErr != nil {
				return nil, nil
			}
			return s.sel(cond, tw, fw), sc{bb, ir.I1}.sel(cond, tm, fm)
		}
		var acc *ir.Value
		switch agg {
		case 2:
			acc = s.c(maxFinite(elem))
		case 3:
			acc = s.c(-maxFinite(elem))
		default:
			acc = s.c(0)
		}
		for _, r := range te.roots {
			if r < 0 || int(r) >= nodes {
				buildErr = o.errorf("has tree root %d; there are %d nodes", r, nodes)
				break
			}
			// A root whose branches are the same leaf is that leaf.
			isLeaf := te.trueLeaf[r] != 0 && te.falseLeaf[r] != 0 && te.trueIDs[r] == te.falseIDs[r]
			w, m := eval(r, isLeaf, 0)
			if buildErr != nil {
				break
			}
			switch agg {
			case 0:
				acc = s.sel(m, s.add(acc, s.div(w, s.c(float64(len(te.roots))), false)), acc)
			case 1:
				acc = s.sel(m, s.add(acc, w), acc)
			case 2:
				acc = s.sel(m, s.min(acc, w, false), acc)
			case 3:
				acc = s.sel(m, s.max(acc, w, false), acc)
			}
		}
		return []*ir.Value{acc}
	})
	if buildErr != nil {
		g.Erase()
		return nil, buildErr
	}
	return []*ir.Value{g.Result(0)}, nil
}

// maxFinite is the largest finite value of a float type (numpy's
// finfo(dtype).max, the MIN aggregation's start).
func maxFinite(t ir.Type) float64 {
	switch core.Width(t) {
	case 16:
		if ir.TypesEqual(t, ir.BF16) {
			return 3.3895313892515355e38
		}
		return 65504
	case 32:
		return math.MaxFloat32
	}
	return math.MaxFloat64
}
