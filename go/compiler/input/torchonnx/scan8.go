package torchonnx

import "github.com/gree-ml/gree/go/compiler/ir"

// onnxScan8 converts opset 8's batched Scan. Its inputs are
// (sequence_lens, states…, scan inputs…), each with a leading batch
// dimension (scan inputs are [batch, sequence, …]), the scan runs along
// dimension 1, and the attribute directions reverses scan inputs. A batch
// of one is the opset-9 Scan on the operands without their batch
// dimension (scanLoop); the results get it back. Larger batches and
// sequence_lens are errors.
func onnxScan8(o *onnxOp) ([]*ir.Value, error) {
	if len(o.ins) == 0 {
		return nil, o.errorf("has no inputs")
	}
	if o.ins[0] != nil {
		return nil, o.errorf("(opset 8) with sequence_lens is not supported by gree yet")
	}
	ins := make([]*ir.Value, 0, len(o.ins)-1)
	for k, v := range o.ins[1:] {
		t := tt(v)
		if t == nil || !ir.HasStaticShape(t) || len(t.Dims) == 0 || t.Dims[0] != 1 {
			return nil, o.errorf("(opset 8) input %d needs a static shape with batch size 1 (larger batches are not supported by gree yet)", k+1)
		}
		ins = append(ins, reshape(o.b, v, ir.Tensor(t.Dims[1:], t.Elem)))
	}
	for k, rt := range o.rts {
		if rt == nil {
			continue
		}
		if len(rt.Dims) == 0 || rt.Dims[0] != 1 && rt.Dims[0] != ir.DynamicSize {
			return nil, o.errorf("(opset 8) result %d needs batch size 1", k)
		}
		o.rts[k] = ir.Tensor(rt.Dims[1:], rt.Elem)
	}
	o.ins = ins
	dirs, _ := o.attrInts("directions")
	res, err := scanLoop(o, dirs)
	if err != nil {
		return nil, err
	}
	out := make([]*ir.Value, len(res))
	for k, v := range res {
		t := tt(v)
		out[k] = reshape(o.b, v, ir.Tensor(append([]int64{1}, t.Dims...), t.Elem))
	}
	return out, nil
}
