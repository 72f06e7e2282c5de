package torchonnx

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// ONNX Scan (opset 9 and later) becomes scf.while over (iteration,
// states…, scan-output accumulators…): each iteration reads row i (or
// the last row first, for reverse scan directions) of every scan input
// along axis 0, runs the body, and writes its scan outputs at row i (or
// from the end). Scan axes other than 0 are errors. Opset 8's batched
// form is onnxScan8.

func init() {
	onnxReg(onnxScan, "Scan")
}

func onnxScan(o *onnxOp) ([]*ir.Value, error) {
	if o.c.opset < 9 {
		return onnxScan8(o)
	}
	return scanLoop(o, nil)
}

// scanLoop builds the scf.while of a Scan whose operands are o.ins
// (states, then scan inputs) and results o.rts; inDirs gives the scan
// input directions (nil: the scan_input_directions attribute).
func scanLoop(o *onnxOp, inDirs []int64) ([]*ir.Value, error) {
	if len(o.op.Regions) != 1 || len(o.op.Regions[0].Blocks) != 1 {
		return nil, o.errorf("needs one single-block body")
	}
	body := o.op.Regions[0].Blocks[0]
	nin := int(o.attrInt("num_scan_inputs", 0))
	ns := len(o.ins) - nin // states
	nout := len(o.rts) - ns
	if nin <= 0 || ns < 0 || nout < 0 || len(body.Args) != ns+nin {
		return nil, o.errorf("has a body whose arguments do not match its inputs")
	}
	ints := func(name string, n int) []int64 {
		v, ok := o.attrInts(name)
		if !ok {
			v = make([]int64, n)
		}
		return v
	}
	inAxes := ints("scan_input_axes", nin)
	if inDirs == nil {
		inDirs = ints("scan_input_directions", nin)
	}
	outAxes, outDirs := ints("scan_output_axes", nout), ints("scan_output_directions", nout)
	for _, a := range append(append([]int64{}, inAxes...), outAxes...) {
		if a != 0 {
			return nil, o.errorf("with scan axes other than 0 is not supported by gree yet")
		}
	}
	var trip int64 = -1
	for k := 0; k < nin; k++ {
		t := tt(o.ins[ns+k])
		if t == nil || !ir.HasStaticShape(t) || len(t.Dims) == 0 || trip >= 0 && t.Dims[0] != trip {
			return nil, o.errorf("needs static scan inputs of one length")
		}
		trip = t.Dims[0]
	}
	b := o.b
	inits := []*ir.Value{b.Constant(ir.IntAttr(0, ir.I64))}
	types := []ir.Type{ir.I64}
	for k := 0; k < ns; k++ {
		v := o.ins[k]
		if v == nil || tt(v) == nil || !ir.HasStaticShape(tt(v)) {
			return nil, o.errorf("state %d needs a static shape", k)
		}
		inits = append(inits, v)
		types = append(types, v.Type)
	}
	revOut := make([]bool, nout)
	term := body.Terminator()
	for k := 0; k < nout; k++ {
		t := o.rts[ns+k]
		bad := t == nil || !ir.HasStaticShape(t) || len(t.Dims) == 0 || t.Dims[0] != trip
		if bad && term != nil && ns+k < len(term.Operands) {
			// The importer may not know the stacked shape; the body's
			// per-iteration output type gives it.
			if et, _, err := builtinType(term.Operands[ns+k].Type); err == nil {
				if e, ok := et.(*ir.RankedTensorType); ok && ir.HasStaticShape(e) {
					t = ir.Tensor(append([]int64{trip}, e.Dims...), e.Elem)
					o.rts[ns+k] = t
				}
			}
		}
		if t == nil || !ir.HasStaticShape(t) || len(t.Dims) == 0 || t.Dims[0] != trip {
			return nil, o.errorf("scan output %d needs a static shape with %d rows", k, trip)
		}
		inits = append(inits, empty(b, t))
		types = append(types, t)
		revOut[k] = k < len(outDirs) && outDirs[k] != 0
	}
	w := b.CreateWithRegions("scf.while", inits, types, 2)
	before := ir.NewBlock(types...)
	w.Regions[0].AddBlock(before)
	bb := ir.AtEnd(before, o.op.Loc)
	goOn := core.Cmp(bb, "arith.cmpi", 2, before.Args[0], bb.Constant(ir.IntAttr(trip, ir.I64)))
	bb.Create("scf.condition", append([]*ir.Value{goOn}, before.Args...), nil)
	after := ir.NewBlock(types...)
	w.Regions[1].AddBlock(after)
	ab := ir.AtEnd(after, o.op.Loc)
	ii := ab.Create("arith.index_cast", []*ir.Value{after.Args[0]}, []ir.Type{ir.Index}).Result(0)
	for k := 0; k < ns; k++ {
		ir.ReplaceAllUsesWith(o.c.r.Fn, body.Args[k], after.Args[1+k])
	}
	for k := 0; k < nin; k++ {
		in := o.ins[ns+k]
		it := tt(in)
		row := ii
		if k < len(inDirs) && inDirs[k] != 0 {
			row = core.BinOp(ab, "arith.subi", cIdx(ab, trip-1), ii)
		}
		et := ir.Tensor(it.Dims[1:], it.Elem)
		n := len(et.Dims)
		elt := linalg.BuildGeneric(ab, nil, []*ir.Value{empty(ab, et)}, []*ir.AffineMap{linalg.Identity(n)}, core.Parallel(n), func(g *ir.Builder, _ []*ir.Value) []*ir.Value {
			ix := []*ir.Value{row}
			for d := 0; d < n; d++ {
				ix = append(ix, core.LoopIndex(g, d))
			}
			return []*ir.Value{extractAt(g, in, ix)}
		}).Result(0)
		ir.ReplaceAllUsesWith(o.c.r.Fn, body.Args[ns+k], elt)
	}
	moved := append([]*ir.Operation{}, body.Ops...)
	for _, op := range moved {
		body.Remove(op)
		after.Append(op)
	}
	o.op.Regions[0].Blocks = nil
	o.c.loops[after] = loopInfo{values: ns, trip: trip, revOut: revOut}
	return w.Results[1:], nil
}
