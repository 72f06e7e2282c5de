package onnx

import (
	"github.com/gree-ml/gree/go/compiler/onnx/onnxpb"
	"github.com/gree-ml/gree/go/status"
)

// opChanges lists, for ops of the default domain, the opset versions that
// introduced a new version of the op (from the ONNX operator changelog for
// the ops whose semantics or signature changed after opset 7). Upgrading a
// model across one of these versions needs ONNX's version converter;
// across none of them the model means the same at the newer opset and is
// re-stamped.
var opChanges = map[string][]int64{
	"Abs": {13}, "Add": {13, 14}, "ArgMax": {11, 12, 13}, "ArgMin": {11, 12, 13},
	"AveragePool": {10, 11, 19, 22}, "BatchNormalization": {9, 14, 15},
	"Cast": {9, 13, 19, 21, 23, 24, 25}, "Ceil": {13}, "Clip": {11, 12, 13}, "Concat": {11, 13},
	"Constant": {9, 11, 12, 13, 19, 21, 23, 24, 25}, "ConstantOfShape": {20, 21, 23, 24, 25}, "Conv": {11, 22},
	"ConvTranspose": {11, 22}, "Div": {13, 14}, "Dropout": {10, 12, 13, 22}, "Elu": {22}, "Equal": {11, 13, 19},
	"Erf": {13}, "Exp": {13}, "Expand": {13}, "Flatten": {9, 11, 13, 21, 23, 24, 25}, "Floor": {13},
	"Gather": {11, 13}, "Gemm": {9, 11, 13}, "GlobalAveragePool": {22}, "GlobalMaxPool": {22},
	"Greater": {9, 13}, "HardSigmoid": {22}, "Identity": {13, 14, 16, 19, 21, 23, 24, 25},
	"If": {11, 13, 16, 19, 21, 23, 24, 25}, "InstanceNormalization": {22}, "LeakyRelu": {16},
	"Less": {9, 13}, "Log": {13}, "LogSoftmax": {11, 13}, "Loop": {11, 13, 16, 19, 21, 23, 24, 25},
	"LRN": {13}, "MatMul": {9, 13}, "Max": {8, 12, 13}, "MaxPool": {8, 10, 11, 12, 22},
	"Mean": {8, 13}, "Min": {8, 12, 13}, "Mul": {13, 14}, "Neg": {13}, "Pad": {11, 13, 18, 19, 21, 23, 24, 25},
	"Pow": {12, 13, 15}, "PRelu": {9, 16}, "Reciprocal": {13}, "ReduceL1": {11, 13, 18},
	"ReduceL2": {11, 13, 18}, "ReduceLogSum": {11, 13, 18}, "ReduceLogSumExp": {11, 13, 18},
	"ReduceMax": {11, 12, 13, 18, 20}, "ReduceMean": {11, 13, 18}, "ReduceMin": {11, 12, 13, 18, 20},
	"ReduceProd": {11, 13, 18}, "ReduceSum": {11, 13}, "ReduceSumSquare": {11, 13, 18},
	"Relu": {13, 14}, "Reshape": {13, 14, 19, 21, 23, 24, 25}, "Resize": {11, 13, 18, 19},
	"Shape": {13, 15, 19, 21, 23, 24, 25}, "Sigmoid": {13}, "Size": {13, 19, 21, 23, 24, 25}, "Slice": {10, 11, 13},
	"Softmax": {11, 13}, "Split": {11, 13, 18}, "Sqrt": {13}, "Squeeze": {11, 13, 21, 23, 24, 25},
	"Sub": {13, 14}, "Sum": {8, 13}, "Tanh": {13}, "Tile": {13}, "TopK": {10, 11},
	"Transpose": {13, 21, 23, 24, 25}, "Unsqueeze": {11, 13, 21, 23, 24, 25}, "Upsample": {9, 10},
	"Where": {16}, "Sin": {22}, "Cos": {22}, "Softplus": {22}, "Softsign": {22}, "Selu": {22},
}

// upgradeOpset re-stamps the model's default-domain opset to target when
// no op of the model (subgraphs included) changed between the versions;
// otherwise it is an error naming the op (IREE runs ONNX's version
// converter there, which gree does not have). A target at or below the
// model's opset leaves the model as it is, as IREE does.
func upgradeOpset(m *onnxpb.ModelProto, target int64) error {
	var cur *onnxpb.OperatorSetIdProto
	for _, o := range m.GetOpsetImport() {
		if normalizeDomain(o.GetDomain()) == "" {
			cur = o
		}
	}
	if cur == nil || target <= cur.GetVersion() {
		return nil
	}
	from := cur.GetVersion()
	var check func(g *onnxpb.GraphProto) error
	check = func(g *onnxpb.GraphProto) error {
		for _, n := range g.GetNode() {
			if normalizeDomain(n.GetDomain()) == "" {
				changes, known := opChanges[n.GetOpType()]
				if !known {
					return status.Errorf(status.Unimplemented, "--opset-version=%d: gree has no changelog for op %s (node '%s') to tell whether it changed between opset %d and %d; convert the model with onnx.version_converter first", target, n.GetOpType(), n.GetName(), from, target)
				}
				for _, v := range changes {
					if v > from && v <= target {
						return status.Errorf(status.Unimplemented, "--opset-version=%d: op %s (node '%s') changed at opset %d, between the model's opset %d and %d; converting it needs ONNX's version converter, which gree does not have (convert the model with onnx.version_converter first)", target, n.GetOpType(), n.GetName(), v, from, target)
					}
				}
			}
			for _, a := range n.GetAttribute() {
				if a.G != nil {
					if err := check(a.G); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	if err := check(m.GetGraph()); err != nil {
		return err
	}
	if target > maxOpset {
		return status.Errorf(status.InvalidArgument, "--opset-version=%d is newer than the newest opset gree knows (%d)", target, maxOpset)
	}
	cur.Version = &target
	return nil
}

// maxOpset is the newest default-domain opset (onnx 1.22).
const maxOpset = 25
