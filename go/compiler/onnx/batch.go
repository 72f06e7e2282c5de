package onnx

import (
	"fmt"

	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/onnx/onnxpb"
)

// A dynamic batch: a model whose graph inputs share one symbolic
// dimension (torch.onnx's dynamic_axes, e.g. "batch") compiles once as
// the program for one batch item, and the entry function runs it for each
// item (the compiler wraps it in a loop over the run-time batch size).
// That is exact when no op mixes the items: the importer checks it by
// importing the model at two batch sizes (1 and 3), which gives every
// value's batch axis (the dimension that grows threefold), and by asking
// each node whether it keeps the items apart (batchRules). A model that
// fails the check is imported as it is, and its conversion reports the
// dynamic shapes it meets.

// BatchPlan says how the entry function runs a model batch item by item.
type BatchPlan struct {
	Symbol string // the dimension's name in the model
	Func   string // the entry function (the graph's name)
	// Inputs and Outputs are each graph input's (initializers excluded)
	// and output's batch axis, -1 where it has none.
	Inputs, Outputs []int
}

// BatchImport is ImportBatched's result.
type BatchImport struct {
	Text  []byte
	Blobs []*ir.Resource
	// Plan is set when the text is the one-item program of a dynamic
	// batch model.
	Plan *BatchPlan
	// Refused says why a model with dynamic inputs is not compiled item by
	// item (nil otherwise).
	Refused error
}

// batchSamples are the batch sizes the check imports at.
var batchSamples = [2]int64{1, 3}

// ImportBatched imports m as ImportDetached does, except that a model
// whose inputs share one symbolic dimension is imported at batch size 1
// when its items are independent.
func ImportBatched(m *onnxpb.ModelProto, opts Options) (*BatchImport, error) {
	sym, refused := batchSymbol(m)
	if sym == "" && refused == nil {
		out, blobs, err := ImportDetached(m, opts)
		return &BatchImport{Text: out, Blobs: blobs}, err
	}
	if refused == nil {
		res, err := importBatchItem(m, opts, sym)
		if err != nil || res.Plan != nil {
			return res, err
		}
		refused = res.Refused
	}
	out, blobs, err := ImportDetached(m, opts)
	return &BatchImport{Text: out, Blobs: blobs, Refused: refused}, err
}

// batchSymbol finds the one symbolic dimension the graph inputs share
// ("" and nil when they are static).
func batchSymbol(m *onnxpb.ModelProto) (string, error) {
	g := m.GetGraph()
	inits := map[string]bool{}
	for _, t := range g.GetInitializer() {
		inits[t.GetName()] = true
	}
	sym := ""
	for _, in := range g.GetInput() {
		if inits[in.GetName()] {
			continue
		}
		tt := in.GetType().GetTensorType()
		if tt == nil || tt.GetShape() == nil {
			continue
		}
		n := 0
		for _, d := range tt.GetShape().GetDim() {
			if d.GetDimValue() > 0 || d.Value != nil && d.GetDimParam() == "" && d.GetDimValue() == 0 {
				continue
			}
			p := d.GetDimParam()
			if p == "" {
				return "", fmt.Errorf("graph input '%s' has an unnamed dynamic dimension", in.GetName())
			}
			if sym != "" && p != sym {
				return "", fmt.Errorf("graph inputs have two dynamic dimensions ('%s' and '%s'); gree compiles one, a batch size", sym, p)
			}
			sym = p
			n++
		}
		if n > 1 {
			return "", fmt.Errorf("graph input '%s' has %d dimensions '%s'", in.GetName(), n, sym)
		}
	}
	return sym, nil
}

// importBatchItem imports m at the two sample batch sizes and checks that
// its items are independent; the result holds the batch-1 text and the
// plan, or the reason it was refused.
func importBatchItem(m *onnxpb.ModelProto, opts Options, sym string) (*BatchImport, error) {
	var gis [2]*graphImporter
	res := &BatchImport{}
	for i, b := range batchSamples {
		opts := opts
		opts.FoldShapes = true
		out, _, blobs, gi, err := importModelKeep(withDim(m, sym, b), opts, true)
		if err != nil {
			if i == 0 {
				return nil, err
			}
			res.Refused = fmt.Errorf("importing it at batch size %d failed: %v", b, err)
			return res, nil
		}
		if i == 0 {
			res.Text, res.Blobs = out, blobs
		}
		gis[i] = gi
	}
	plan, err := checkBatch(gis[0], gis[1])
	if err != nil {
		return &BatchImport{Refused: err}, nil
	}
	plan.Symbol = sym
	plan.Func = m.GetGraph().GetName()
	res.Plan = plan
	return res, nil
}

// withDim is a copy of m whose inputs, outputs and value_info have size b
// for the dimension sym (the rest of the model is shared, not copied).
func withDim(m *onnxpb.ModelProto, sym string, b int64) *onnxpb.ModelProto {
	set := func(vis []*onnxpb.ValueInfoProto) []*onnxpb.ValueInfoProto {
		out := make([]*onnxpb.ValueInfoProto, len(vis))
		for i, vi := range vis {
			tt := vi.GetType().GetTensorType()
			if tt == nil || tt.GetShape() == nil {
				out[i] = vi
				continue
			}
			shape := &onnxpb.TensorShapeProto{}
			for _, d := range tt.GetShape().GetDim() {
				if d.GetDimParam() == sym {
					d = &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: b}}
				}
				shape.Dim = append(shape.Dim, d)
			}
			elem := tt.GetElemType()
			out[i] = &onnxpb.ValueInfoProto{Name: vi.Name, Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
				TensorType: &onnxpb.TypeProto_Tensor{ElemType: &elem, Shape: shape}}}}
		}
		return out
	}
	g := m.GetGraph()
	ng := &onnxpb.GraphProto{
		Name: g.Name, Node: g.Node, Initializer: g.Initializer, SparseInitializer: g.SparseInitializer,
		DocString: g.DocString, Input: set(g.Input), Output: set(g.Output), ValueInfo: set(g.ValueInfo),
		QuantizationAnnotation: g.QuantizationAnnotation, MetadataProps: g.MetadataProps,
	}
	return &onnxpb.ModelProto{
		IrVersion: m.IrVersion, OpsetImport: m.OpsetImport, ProducerName: m.ProducerName,
		ProducerVersion: m.ProducerVersion, Domain: m.Domain, ModelVersion: m.ModelVersion,
		DocString: m.DocString, Graph: ng, MetadataProps: m.MetadataProps, Functions: m.Functions,
	}
}

// bval is what the check knows about one value at the two batch sizes.
type bval struct {
	name  string
	dims  [2][]int64 // static dims at each sample (nil: not a static tensor)
	data  [2][]int64 // propagated integer values, where known
	axis  int        // the batch axis, -1 for none
	inner int64      // the per-item extent of the batch axis below the batch factor
	// varies: integer values that differ with the batch size (shape
	// arithmetic on the batch size).
	varies bool
}

// checkBatch walks the main graph at the two sample batch sizes.
func checkBatch(g1, g3 *graphImporter) (*BatchPlan, error) {
	c := &batchCheck{gi: [2]*graphImporter{g1, g3}, vals: map[string]*bval{}}
	plan := &BatchPlan{}
	g := g1.g
	for _, in := range g.GetInput() {
		if _, ok := g1.inits[in.GetName()]; ok {
			continue
		}
		v, err := c.val(in.GetName())
		if err != nil {
			return nil, err
		}
		if v.axis >= 0 {
			v.inner = v.dims[0][v.axis]
			if v.inner != 1 {
				return nil, fmt.Errorf("graph input '%s' has its batch dimension at size %d for one item", in.GetName(), v.inner)
			}
		}
		plan.Inputs = append(plan.Inputs, v.axis)
	}
	for _, n := range g.GetNode() {
		if err := c.node(n); err != nil {
			what := n.GetName()
			if what == "" {
				what = n.GetOpType()
			}
			return nil, fmt.Errorf("node '%s' (%s) %v", what, n.GetOpType(), err)
		}
	}
	for _, out := range g.GetOutput() {
		v, err := c.val(out.GetName())
		if err != nil {
			return nil, err
		}
		if v.varies {
			return nil, fmt.Errorf("graph output '%s' has values that depend on the batch size", out.GetName())
		}
		if v.axis < 0 {
			return nil, fmt.Errorf("graph output '%s' has no batch dimension", out.GetName())
		}
		if v.dims[0][v.axis] != 1 || v.inner != 1 {
			return nil, fmt.Errorf("graph output '%s' has its batch dimension merged with another (size %d for one item)", out.GetName(), v.dims[0][v.axis])
		}
		plan.Outputs = append(plan.Outputs, v.axis)
	}
	return plan, nil
}

type batchCheck struct {
	gi   [2]*graphImporter
	vals map[string]*bval
}

// val describes a value from the two imports (its inner extent is the
// caller's to set for batch-carrying node results).
func (c *batchCheck) val(name string) (*bval, error) {
	if v, ok := c.vals[name]; ok {
		return v, nil
	}
	v := &bval{name: name, axis: -1}
	for i, gi := range c.gi {
		t := gi.typeFor(name)
		if t.isTensor() && t.static() {
			v.dims[i] = append([]int64{}, t.dims...) // non-nil for scalars too
		}
		if in := gi.env.get(name); in != nil && in.known() {
			v.data[i] = in.data
		}
	}
	if v.dims[0] == nil || v.dims[1] == nil {
		if v.dims[0] == nil && v.dims[1] == nil && c.gi[0].typeFor(name).kind == kindNone {
			c.vals[name] = v // an absent optional output
			return v, nil
		}
		return nil, fmt.Errorf("value '%s' has a shape the importer does not know statically at batch size %d", name, batchSamples[0])
	}
	d1, d3 := v.dims[0], v.dims[1]
	if len(d1) != len(d3) {
		return nil, fmt.Errorf("value '%s' has rank %d at batch size 1 and %d at batch size 3", name, len(d1), len(d3))
	}
	for k := range d1 {
		if d1[k] == d3[k] {
			continue
		}
		if v.axis >= 0 || d3[k] != 3*d1[k] {
			return nil, fmt.Errorf("value '%s' has shape %v at batch size 1 and %v at batch size 3 (not one dimension proportional to the batch)", name, d1, d3)
		}
		v.axis = k
	}
	if v.data[0] != nil && v.data[1] != nil {
		for k := range v.data[0] {
			if k >= len(v.data[1]) || v.data[0][k] != v.data[1][k] {
				v.varies = true
				break
			}
		}
	}
	c.vals[name] = v
	return v, nil
}

// node checks one node and sets the inner extent of its batch-carrying
// results.
func (c *batchCheck) node(n *onnxpb.NodeProto) error {
	var ins, outs []*bval
	for _, name := range n.GetInput() {
		if name == "" {
			ins = append(ins, nil)
			continue
		}
		v, err := c.val(name)
		if err != nil {
			return err
		}
		ins = append(ins, v)
	}
	carries := false
	for _, v := range ins {
		if v != nil && (v.axis >= 0 || v.varies) {
			carries = true
		}
	}
	for _, name := range n.GetOutput() {
		if name == "" {
			outs = append(outs, nil)
			continue
		}
		v, err := c.val(name)
		if err != nil {
			if !carries {
				continue // a batch-free value the check need not know
			}
			return err
		}
		outs = append(outs, v)
		if v.axis >= 0 {
			carries = true
		}
	}
	if !carries {
		return nil // nothing depends on the batch
	}
	if len(n.GetAttribute()) > 0 {
		for _, a := range n.GetAttribute() {
			if a.GetType() == onnxpb.AttributeProto_GRAPH || a.GetType() == onnxpb.AttributeProto_GRAPHS {
				return fmt.Errorf("has a subgraph and values that depend on the batch")
			}
		}
	}
	if normalizeDomain(n.GetDomain()) != "" {
		return fmt.Errorf("is in domain '%s', which the batch check does not know", n.GetDomain())
	}
	r := batchRules[n.GetOpType()]
	if r == nil {
		return fmt.Errorf("is not known to keep batch items apart")
	}
	bn := &batchNode{n: n, c: c, ins: ins, outs: outs}
	for _, v := range ins {
		if v != nil && v.varies && !bn.shapeArith() && !shapeSlot(n.GetOpType(), bn.index(v)) {
			return fmt.Errorf("uses '%s', whose values depend on the batch size, as data", v.name)
		}
	}
	if err := r(bn); err != nil {
		return err
	}
	for _, o := range outs {
		if o != nil && o.axis >= 0 && o.inner == 0 {
			return fmt.Errorf("gives '%s' a batch dimension the check cannot place", o.name)
		}
	}
	return nil
}

// batchNode is one node under check.
type batchNode struct {
	n         *onnxpb.NodeProto
	c         *batchCheck
	ins, outs []*bval
}

func (b *batchNode) index(v *bval) int {
	for i, x := range b.ins {
		if x == v {
			return i
		}
	}
	return -1
}

// shapeArith reports whether every result is a small integer value known
// at both batch sizes (shape arithmetic, which the import folds).
func (b *batchNode) shapeArith() bool {
	for _, o := range b.outs {
		if o != nil && (o.data[0] == nil || o.data[1] == nil) {
			return false
		}
	}
	return len(b.outs) > 0
}

// shapeSlot reports whether input i of op is a shape: batch-dependent
// values are fine there (each item's program has its own, folded).
func shapeSlot(op string, i int) bool {
	switch op {
	case "Reshape", "Expand":
		return i == 1
	case "ConstantOfShape":
		return i == 0
	}
	return false
}
