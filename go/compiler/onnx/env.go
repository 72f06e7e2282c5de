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
type env struct {
	parent *env
	m      map[string]*info
}

func newEnv(parent *env) *env { return &env{parent: parent, m: map[string]*info{}} }

func (e *env) get(name string) *info {
	for ; e != nil; e = e.parent {
		if i, ok := e.m[name]; ok {
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
	"Constant": true,
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
			if n.GetOpType() == "If" && normalizeDomain(n.GetDomain()) == "" {
				outs = gi.inferIf(n, outs)
			}
			if !gi.imp.opts.FoldShapes && !onnxPropagates(n, gi.imp.opsets[""]) {
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

// branchTypes infers the output types of a subgraph (nil entries: unknown).
func (gi *graphImporter) branchTypes(g *onnxpb.GraphProto) []*vtype {
	if g == nil {
		return nil
	}
	sub, err := newGraphImporter(gi.imp, g, gi)
	if err != nil {
		return nil
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
