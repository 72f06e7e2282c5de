package onnx

import (
	"github.com/gree-ml/gree/go/compiler/onnx/onnxpb"
)

// Shape inference for the recurrent ops (RNN, GRU, LSTM), as ONNX's
// RNNShapeInference: with X of shape [seq_length, batch_size, input_size]
// (layout 0) or [batch_size, seq_length, input_size] (layout 1, opset 14
// and newer),
//
//	Y    [seq_length, num_directions, batch_size, hidden_size]   (layout 0)
//	     [batch_size, seq_length, num_directions, hidden_size]   (layout 1)
//	Y_h  [num_directions, batch_size, hidden_size]               (layout 0)
//	     [batch_size, num_directions, hidden_size]               (layout 1)
//	Y_c  as Y_h (LSTM only)
//
// num_directions is 2 for direction "bidirectional", else 1 ("forward",
// "reverse"; unknown for any other value); hidden_size is the attribute
// (unknown when absent or not positive); seq_length and batch_size are X's
// (unknown when X's shape is). Every output gets X's element type; an
// omitted optional output (an empty name) is skipped by the caller.

func inferRNN(n *onnxpb.NodeProto, in []*info, opset int64) []*info {
	elem := elemOf(in, 0)
	if elem == 0 {
		return nil
	}
	numDir := unknownDim
	switch attrString(n, "direction", "forward") {
	case "forward", "reverse":
		numDir = 1
	case "bidirectional":
		numDir = 2
	}
	hidden := attrInt(n, "hidden_size", -1)
	if hidden <= 0 {
		hidden = unknownDim
	}
	layout := int64(0)
	if opset >= 14 {
		layout = attrInt(n, "layout", 0)
	}
	seq, batch := unknownDim, unknownDim
	if x := ranked(in, 0); x != nil {
		if len(x.dims) != 3 {
			// ONNX fails inference here; the converter reports the rank.
			return nil
		}
		seq, batch = x.dims[0], x.dims[1]
		if layout != 0 {
			seq, batch = x.dims[1], x.dims[0]
		}
	}
	outputs := len(n.GetOutput())
	most := 2
	if n.GetOpType() == "LSTM" {
		most = 3
	}
	outputs = min(outputs, most)
	var out []*info
	for i := 0; i < outputs; i++ {
		var dims []int64
		switch {
		case i == 0 && layout == 0:
			dims = []int64{seq, numDir, batch, hidden}
		case i == 0:
			dims = []int64{batch, seq, numDir, hidden}
		case layout == 0:
			dims = []int64{numDir, batch, hidden}
		default:
			dims = []int64{batch, numDir, hidden}
		}
		out = append(out, &info{t: tensorType(elem, dims)})
	}
	return out
}
