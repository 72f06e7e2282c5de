package onnx

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/onnx/onnxpb"
)

// unk marks an unknown element of propagated integer data.
const unk = math.MinInt64

// maxDataElems bounds the integer tensors whose values are propagated.
const maxDataElems = 1024

// info is what the importer knows about a value: its type and, for small
// integer tensors (shapes and indices), its elements (unk where not known),
// as ONNX's shape inference with data propagation knows them.
type info struct {
	t    *vtype
	data []int64
	// val is the value's literal when it is a constant (initializers and
	// Constant nodes of any type; folded integer results).
	val *tensor
}

func (i *info) typ() *vtype {
	if i == nil {
		return nil
	}
	return i.t
}

// known reports whether every element of the value is known.
func (i *info) known() bool {
	if i == nil || i.data == nil || !i.t.static() || int64(len(i.data)) != i.t.numElements() {
		return false
	}
	for _, v := range i.data {
		if v == unk {
			return false
		}
	}
	return true
}

func constInfo(t *tensor) *info {
	in := &info{t: tensorType(t.elem, t.dims), val: t}
	if t.numElements() <= maxDataElems {
		if vals, ok := t.int64s(); ok {
			in.data = vals
		}
	}
	return in
}

// env maps value names to what is known about them; a subgraph's env sees
// its parent's.
// With hideOuterValues (ONNX's rules), a subgraph sees the types of outer
// literals but not their values, as ONNX's subgraph inference does.
type env struct {
	parent          *env
	m               map[string]*info
	hideOuterValues bool
}

func newEnv(parent *env) *env { return &env{parent: parent, m: map[string]*info{}} }

func (e *env) get(name string) *info {
	for cur := e; cur != nil; cur = cur.parent {
		if i, ok := cur.m[name]; ok {
			if cur != e && e.hideOuterValues && i != nil && i.val != nil {
				// Outer literals are not inputs' data in ONNX's subgraph
				// inference (propagated values are).
				return &info{t: i.t}
			}
			return i
		}
	}
	return nil
}

func (e *env) set(name string, i *info) { e.m[name] = i }

// dataPropSince is, for each op with an ONNX data propagation function,
// the first opset whose version of the op has it (onnx 1.22). ONNX's shape
// inference propagates values only through these; gree's own pipeline
// (FoldShapes) propagates through every op it can compute.
var dataPropSince = map[string]int64{
	"Add": 14, "Sub": 14, "Mul": 14, "Cast": 13, "Concat": 13, "Size": 13, "Slice": 13,
	"Squeeze": 13, "Unsqueeze": 13, "Gather": 1, "Shape": 1, "Constant": 1,
}

func onnxPropagates(n *onnxpb.NodeProto, opset int64) bool {
	since, ok := dataPropSince[n.GetOpType()]
	return ok && normalizeDomain(n.GetDomain()) == "" && opset >= since
}

// foldable are the ops whose integer results the importer can compute
// (data propagation) and, with FoldShapes, replace by constants.
var foldable = map[string]bool{
	"Shape": true, "Size": true, "Gather": true, "Unsqueeze": true, "Squeeze": true,
	"Concat": true, "Slice": true, "Cast": true, "Add": true, "Sub": true, "Mul": true,
	"Div": true, "Identity": true, "Reshape": true, "ConstantOfShape": true, "Range": true,
	"Constant": true, "Equal": true, "Less": true, "Greater": true, "LessOrEqual": true,
	"GreaterOrEqual": true, "And": true, "Or": true, "Xor": true, "Not": true, "Where": true,
	"Max": true, "Min": true, "Mod": true, "Neg": true, "Abs": true, "Transpose": true,
}

// analyze infers the types (and small integer values) of every node
// output of the graph and, with FoldShapes, decides which nodes become
// constants and which shape computations are then dead.
func (gi *graphImporter) analyze() error {
	gi.skip = map[*onnxpb.NodeProto]bool{}
	gi.folded = map[*onnxpb.NodeProto]bool{}
	nodes := gi.g.GetNode()
	for _, n := range nodes {
		outs := []*info(nil)
		if !gi.imp.opts.NoInference {
			ins := make([]*info, len(n.GetInput()))
			for i, name := range n.GetInput() {
				if name != "" {
					ins[i] = gi.env.get(name)
				}
			}
			outs = gi.imp.inferNode(n, ins)
			if gi.imp.opts.FoldShapes {
				propagateExtra(n, ins, outs)
			}
			if normalizeDomain(n.GetDomain()) == "" {
				switch n.GetOpType() {
				case "If":
					outs = gi.inferIf(n, outs)
				case "Scan":
					outs = gi.inferScan(n, ins)
				case "Loop":
					outs = gi.inferLoopBody(n, ins, outs)
				}
			}
			if !gi.imp.opts.FoldShapes && (gi.imp.opts.NoDataProp || !onnxPropagates(n, gi.imp.opsets[""])) {
				for _, o := range outs {
					if o != nil && o.val == nil {
						o.data = nil
					}
				}
			}
		}
		for i, name := range n.GetOutput() {
			if name == "" {
				continue
			}
			var o *info
			if i < len(outs) && outs[i] != nil {
				o = outs[i]
			} else {
				o = &info{}
			}
			if d, ok := gi.declared[name]; ok {
				o.t = mergeTypes(d, o.t)
			}
			gi.env.set(name, o)
		}
	}
	if !gi.imp.opts.FoldShapes {
		return nil
	}
	for _, n := range nodes {
		if !foldable[n.GetOpType()] || normalizeDomain(n.GetDomain()) != "" || n.GetOpType() == "Constant" {
			continue
		}
		ok := len(n.GetOutput()) > 0
		for _, out := range n.GetOutput() {
			i := gi.env.get(out)
			if out == "" || !i.known() || (i.t.elem != dtInt64 && i.t.elem != dtInt32) {
				ok = false
				break
			}
		}
		if ok {
			gi.folded[n] = true
			for _, out := range n.GetOutput() {
				i := gi.env.get(out)
				t := int64Tensor(i.t.dims, i.data)
				if i.t.elem == dtInt32 {
					t = int32Tensor(i.t.dims, i.data)
				}
				t.name = out
				i.val = t
			}
		}
	}
	// Liveness from the graph outputs; only foldable ops are dropped.
	need := map[string]bool{}
	for _, out := range gi.g.GetOutput() {
		need[out.GetName()] = true
	}
	for k := len(nodes) - 1; k >= 0; k-- {
		n := nodes[k]
		live := !foldable[n.GetOpType()] || normalizeDomain(n.GetDomain()) != ""
		for _, out := range n.GetOutput() {
			if need[out] {
				live = true
			}
		}
		if !live {
			gi.skip[n] = true
			continue
		}
		if gi.folded[n] {
			continue
		}
		for _, in := range n.GetInput() {
			need[in] = true
		}
		for _, a := range n.GetAttribute() {
			markSubgraphInputs(a.GetG(), need)
			for _, g := range a.GetGraphs() {
				markSubgraphInputs(g, need)
			}
		}
	}
	return nil
}

func markSubgraphInputs(g *onnxpb.GraphProto, need map[string]bool) {
	if g == nil {
		return
	}
	for _, n := range g.GetNode() {
		for _, in := range n.GetInput() {
			need[in] = true
		}
		for _, a := range n.GetAttribute() {
			markSubgraphInputs(a.GetG(), need)
		}
	}
	for _, o := range g.GetOutput() {
		need[o.GetName()] = true
	}
}

func int32Tensor(dims []int64, vals []int64) *tensor {
	t := int64Tensor(dims, nil)
	t.elem = dtInt32
	t.data = make([]byte, 4*len(vals))
	for i, v := range vals {
		u := uint32(int32(v))
		t.data[4*i], t.data[4*i+1], t.data[4*i+2], t.data[4*i+3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
	}
	return t
}

// inferIf completes the If's result types from its branches as ONNX's
// inference does: each branch's outputs typed by inference over its nodes,
// then the union of the two (dimensions that differ become dynamic, ranks
// that differ leave the rank unknown).
func (gi *graphImporter) inferIf(n *onnxpb.NodeProto, outs []*info) []*info {
	then := gi.branchTypes(findAttr(n, "then_branch").GetG())
	els := gi.branchTypes(findAttr(n, "else_branch").GetG())
	if then == nil || els == nil || len(then) != len(els) {
		return outs
	}
	res := make([]*info, len(then))
	for i := range then {
		a, b := then[i], els[i]
		if a != nil && b != nil && a.kind == kindSequence && b.kind == kindSequence {
			if u := unionTensor(a.inner, b.inner); u != nil {
				res[i] = &info{t: &vtype{kind: kindSequence, inner: u}}
			}
			continue
		}
		switch {
		case a == nil || b == nil || !a.isTensor() || !b.isTensor():
			continue
		case !a.ranked || !b.ranked || len(a.dims) != len(b.dims):
			res[i] = &info{t: &vtype{kind: kindTensor, elem: a.elem, dims: []int64{}}}
		default:
			dims := make([]int64, len(a.dims))
			for k := range dims {
				dims[k] = a.dims[k]
				if a.dims[k] != b.dims[k] {
					dims[k] = unknownDim
				}
			}
			res[i] = &info{t: tensorType(a.elem, dims)}
		}
	}
	return res
}

// branchTypes infers the output types of a subgraph (nil entries: unknown)
// whose inputs have the given types (merged with their declared ones).
func (gi *graphImporter) branchTypes(g *onnxpb.GraphProto, inTypes ...*vtype) []*vtype {
	if g == nil {
		return nil
	}
	sub, err := newGraphImporter(gi.imp, g, gi)
	if err != nil {
		return nil
	}
	for i, in := range g.GetInput() {
		t, err := fromTypeProto(in.GetType())
		if err != nil {
			return nil
		}
		if i < len(inTypes) && inTypes[i] != nil {
			t = mergeTypes(t, inTypes[i])
		}
		sub.env.set(in.GetName(), &info{t: t})
	}
	for _, t := range g.GetInitializer() {
		if dt, err := decodeTensor(t); err == nil {
			sub.env.set(t.GetName(), constInfo(dt))
		}
	}
	opts := gi.imp.opts
	gi.imp.opts.FoldShapes = false // analysis only: no folding decisions
	err = sub.analyze()
	gi.imp.opts = opts
	if err != nil {
		return nil
	}
	res := make([]*vtype, len(g.GetOutput()))
	for i, o := range g.GetOutput() {
		if t := sub.typeFor(o.GetName()); t.kind != kindNone {
			res[i] = t
		}
	}
	return res
}

// bodyInputTypes types a Loop or Scan body's inputs from the op's operands
// as ONNX's inference does (nil: unknown): Loop gets the iteration number,
// the condition and the loop-carried values; Scan (opset 9 and newer) the
// state values and one slice of each scan input.
func (gi *graphImporter) bodyInputTypes(n *onnxpb.NodeProto) []*vtype {
	in := make([]*info, len(n.GetInput()))
	for i, name := range n.GetInput() {
		if name != "" {
			in[i] = gi.env.get(name)
		}
	}
	switch n.GetOpType() {
	case "Loop":
		out := []*vtype{tensorType(dtInt64, []int64{}), tensorType(dtBool, []int64{})}
		for i := 2; i < len(in); i++ {
			out = append(out, in[i].typ())
		}
		return out
	case "Scan":
		if gi.imp.opsets[""] < 9 {
			return nil
		}
		m := int(attrInt(n, "num_scan_inputs", 0))
		nstate := len(in) - m
		if m <= 0 || nstate < 0 {
			return nil
		}
		axes, _ := attrInts(n, "scan_input_axes")
		var out []*vtype
		for i := 0; i < nstate; i++ {
			out = append(out, in[i].typ())
		}
		for j := 0; j < m; j++ {
			t := ranked(in, nstate+j)
			if t == nil {
				out = append(out, nil)
				continue
			}
			axis := int64(0)
			if j < len(axes) {
				axis = axes[j]
			}
			a, ok := normAxis(axis, len(t.dims))
			if !ok {
				out = append(out, nil)
				continue
			}
			dims := append(append([]int64{}, t.dims[:a]...), t.dims[a+1:]...)
			out = append(out, tensorType(t.elem, dims))
		}
		return out
	}
	return nil
}

// inferScan types a Scan's results: the final state values as the state
// inputs, each scan output as the body's output with the sequence length
// inserted at its scan_output_axes position.
func (gi *graphImporter) inferScan(n *onnxpb.NodeProto, in []*info) []*info {
	body := findAttr(n, "body").GetG()
	inTypes := gi.bodyInputTypes(n)
	if body == nil || inTypes == nil {
		return nil
	}
	m := int(attrInt(n, "num_scan_inputs", 0))
	nstate := len(in) - m
	bodyOut := gi.branchTypes(body, inTypes...)
	seqLen := unknownDim
	if t := ranked(in, nstate); t != nil {
		axes, _ := attrInts(n, "scan_input_axes")
		axis := int64(0)
		if len(axes) > 0 {
			axis = axes[0]
		}
		if a, ok := normAxis(axis, len(t.dims)); ok {
			seqLen = t.dims[a]
		}
	}
	outAxes, _ := attrInts(n, "scan_output_axes")
	var res []*info
	for i := 0; i < len(n.GetOutput()); i++ {
		if i < nstate {
			res = append(res, &info{t: in[i].typ()})
			continue
		}
		var bt *vtype
		if i < len(bodyOut) {
			bt = bodyOut[i]
		}
		if bt == nil || !bt.isTensor() {
			res = append(res, nil)
			continue
		}
		if !bt.ranked {
			res = append(res, &info{t: &vtype{kind: kindTensor, elem: bt.elem, dims: []int64{}}})
			continue
		}
		axis := int64(0)
		if k := i - nstate; k < len(outAxes) {
			axis = outAxes[k]
		}
		a, ok := normAxis(axis, len(bt.dims)+1)
		if !ok {
			res = append(res, nil)
			continue
		}
		dims := append(append(append([]int64{}, bt.dims[:a]...), seqLen), bt.dims[a:]...)
		res = append(res, &info{t: tensorType(bt.elem, dims)})
	}
	return res
}

// inferLoopBody completes a Loop's scan outputs from the body's inferred
// output types (a leading dimension of unknown length).
func (gi *graphImporter) inferLoopBody(n *onnxpb.NodeProto, in []*info, outs []*info) []*info {
	body := findAttr(n, "body").GetG()
	if body == nil {
		return outs
	}
	bodyOut := gi.branchTypes(body, gi.bodyInputTypes(n)...)
	carried := len(in) - 2
	for i := range n.GetOutput() {
		k := 1 + i
		if i < carried {
			// Loop-carried values: the element type (shapes may change
			// between iterations).
			for len(outs) <= i {
				outs = append(outs, nil)
			}
			if gi.imp.opts.FoldShapes && k < len(bodyOut) {
				// gree's pipeline: the dimensions the body keeps.
				a, b := in[2+i].typ(), bodyOut[k]
				if a.isTensor() && b.isTensor() && a.ranked && b.ranked && len(a.dims) == len(b.dims) {
					dims := make([]int64, len(a.dims))
					for d := range dims {
						dims[d] = a.dims[d]
						if a.dims[d] != b.dims[d] {
							dims[d] = unknownDim
						}
					}
					outs[i] = &info{t: tensorType(b.elem, dims)}
					continue
				}
			}
			if outs[i] == nil || outs[i].t == nil {
				e := elemOf(in, 2+i)
				if k < len(bodyOut) && bodyOut[k].isTensor() {
					e = bodyOut[k].elem
				}
				if e != 0 {
					outs[i] = &info{t: &vtype{kind: kindTensor, elem: e, dims: []int64{}}}
				}
			}
			continue
		}
		if k >= len(bodyOut) || bodyOut[k] == nil || !bodyOut[k].isTensor() {
			continue
		}
		if i < len(outs) && outs[i] != nil && outs[i].t.isTensor() && outs[i].t.ranked {
			continue
		}
		for len(outs) <= i {
			outs = append(outs, nil)
		}
		bt := bodyOut[k]
		if !bt.ranked {
			outs[i] = &info{t: &vtype{kind: kindTensor, elem: bt.elem, dims: []int64{}}}
		} else {
			outs[i] = &info{t: tensorType(bt.elem, append([]int64{unknownDim}, bt.dims...))}
		}
	}
	return outs
}

// unionTensor is the type of a value that is either a or b (nil: unknown).
func unionTensor(a, b *vtype) *vtype {
	if !a.isTensor() || !b.isTensor() || a.elem != b.elem {
		return nil
	}
	if !a.ranked || !b.ranked || len(a.dims) != len(b.dims) {
		return &vtype{kind: kindTensor, elem: a.elem, dims: []int64{}}
	}
	dims := make([]int64, len(a.dims))
	for k := range dims {
		dims[k] = a.dims[k]
		if a.dims[k] != b.dims[k] {
			dims[k] = unknownDim
		}
	}
	return tensorType(a.elem, dims)
}
