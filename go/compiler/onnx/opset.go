package onnx

import (
	"github.com/gree-ml/gree/go/compiler/onnx/onnxpb"
	"github.com/gree-ml/gree/go/status"
)

// opChanges lists, for every op of the default domain, the opset versions
// after 7 that introduced a new version of the op (onnx 1.22's operator
// schemas, printed by tests/onnx/gen_opset_changes.py). Upgrading a model
// across one of these versions needs ONNX's version converter; across none
// of them the model means the same at the newer opset and is re-stamped.
var opChanges = map[string][]int64{
	"Abs": {13}, "Acos": {22}, "Acosh": {9, 22}, "Add": {13, 14}, "AffineGrid": {20}, "And": {},
	"ArgMax": {11, 12, 13}, "ArgMin": {11, 12, 13}, "Asin": {22}, "Asinh": {9, 22}, "Atan": {22},
	"Atanh": {9, 22}, "Attention": {23, 24}, "AveragePool": {10, 11, 19, 22}, "BatchNormalization": {9, 14, 15},
	"Bernoulli": {15, 22}, "BitCast": {26}, "BitShift": {11}, "BitwiseAnd": {18}, "BitwiseNot": {18},
	"BitwiseOr": {18}, "BitwiseXor": {18}, "BlackmanWindow": {17}, "Cast": {9, 13, 19, 21, 23, 24, 25},
	"CastLike": {15, 19, 21, 23, 24, 25}, "CausalConvWithState": {27}, "Ceil": {13}, "Celu": {12},
	"CenterCropPad": {18}, "Clip": {11, 12, 13}, "Col2Im": {18}, "Compress": {9, 11}, "Concat": {11, 13},
	"ConcatFromSequence": {11}, "Constant": {9, 11, 12, 13, 19, 21, 23, 24, 25},
	"ConstantOfShape": {9, 20, 21, 23, 24, 25}, "Conv": {11, 22}, "ConvInteger": {10},
	"ConvTranspose": {11, 22}, "Cos": {22}, "Cosh": {9, 22}, "CumProd": {26}, "CumSum": {11, 14},
	"DFT": {17, 20}, "DeformConv": {19, 22}, "DepthToSpace": {11, 13},
	"DequantizeLinear": {10, 13, 19, 21, 23, 24, 25}, "Det": {11, 22}, "Div": {13, 14},
	"Dropout": {10, 12, 13, 22}, "DynamicQuantizeLinear": {11}, "Einsum": {12}, "Elu": {22},
	"Equal": {11, 13, 19}, "Erf": {9, 13}, "Exp": {13}, "Expand": {8, 13}, "EyeLike": {9, 22},
	"Flatten": {9, 11, 13, 21, 23, 24, 25}, "Floor": {13}, "GRU": {14, 22}, "Gather": {11, 13},
	"GatherElements": {11, 13}, "GatherND": {11, 12, 13}, "Gelu": {20}, "Gemm": {9, 11, 13},
	"GlobalAveragePool": {22}, "GlobalLpPool": {22}, "GlobalMaxPool": {22}, "Greater": {9, 13},
	"GreaterOrEqual": {12, 16}, "GridSample": {16, 20, 22}, "GroupNormalization": {18, 21},
	"HammingWindow": {17}, "HannWindow": {17}, "HardSigmoid": {22}, "HardSwish": {14, 22}, "Hardmax": {11, 13},
	"Identity": {13, 14, 16, 19, 21, 23, 24, 25}, "If": {11, 13, 16, 19, 21, 23, 24, 25}, "ImageDecoder": {20},
	"InstanceNormalization": {22}, "IsInf": {10, 20}, "IsNaN": {9, 13, 20}, "LRN": {13}, "LSTM": {14, 22},
	"LayerNormalization": {17}, "LeakyRelu": {16}, "Less": {9, 13}, "LessOrEqual": {12, 16},
	"LinearAttention": {27}, "Log": {13}, "LogSoftmax": {11, 13}, "Loop": {11, 13, 16, 19, 21, 23, 24, 25},
	"LpNormalization": {22}, "LpPool": {11, 18, 22}, "MatMul": {9, 13}, "MatMulInteger": {10},
	"Max": {8, 12, 13}, "MaxPool": {8, 10, 11, 12, 22}, "MaxRoiPool": {22}, "MaxUnpool": {9, 11, 22},
	"Mean": {8, 13}, "MeanVarianceNormalization": {9, 13}, "MelWeightMatrix": {17}, "Min": {8, 12, 13},
	"Mish": {18, 22}, "Mod": {10, 13}, "Mul": {13, 14}, "Multinomial": {22}, "Neg": {13},
	"NegativeLogLikelihoodLoss": {12, 13, 22}, "NonMaxSuppression": {10, 11}, "NonZero": {9, 13}, "Not": {},
	"OneHot": {9, 11}, "Optional": {15}, "OptionalGetElement": {15, 18}, "OptionalHasElement": {15, 18},
	"Or": {}, "PRelu": {9, 16}, "Pad": {11, 13, 18, 19, 21, 23, 24, 25}, "Pow": {12, 13, 15},
	"QLinearConv": {10}, "QLinearMatMul": {10, 21}, "QuantizeLinear": {10, 13, 19, 21, 23, 24, 25},
	"RMSNormalization": {23}, "RNN": {14, 22}, "RandomNormal": {22}, "RandomNormalLike": {22},
	"RandomUniform": {22}, "RandomUniformLike": {22}, "Range": {11, 27}, "Reciprocal": {13},
	"ReduceL1": {11, 13, 18}, "ReduceL2": {11, 13, 18}, "ReduceLogSum": {11, 13, 18},
	"ReduceLogSumExp": {11, 13, 18}, "ReduceMax": {11, 12, 13, 18, 20}, "ReduceMean": {11, 13, 18},
	"ReduceMin": {11, 12, 13, 18, 20}, "ReduceProd": {11, 13, 18}, "ReduceSum": {11, 13},
	"ReduceSumSquare": {11, 13, 18}, "RegexFullMatch": {20}, "Relu": {13, 14},
	"Reshape": {13, 14, 19, 21, 23, 24, 25}, "Resize": {10, 11, 13, 18, 19}, "ReverseSequence": {10},
	"RoiAlign": {10, 16, 22}, "RotaryEmbedding": {23}, "Round": {11, 22}, "STFT": {17},
	"Scan": {8, 9, 11, 16, 19, 21, 23, 24, 25}, "Scatter": {9, 11}, "ScatterElements": {11, 13, 16, 18},
	"ScatterND": {11, 13, 16, 18}, "Selu": {22}, "SequenceAt": {11}, "SequenceConstruct": {11},
	"SequenceEmpty": {11}, "SequenceErase": {11}, "SequenceInsert": {11}, "SequenceLength": {11},
	"SequenceMap": {17}, "Shape": {13, 15, 19, 21, 23, 24, 25}, "Shrink": {9}, "Sigmoid": {13}, "Sign": {9, 13},
	"Sin": {22}, "Sinh": {9, 22}, "Size": {13, 19, 21, 23, 24, 25}, "Slice": {10, 11, 13}, "Softmax": {11, 13},
	"SoftmaxCrossEntropyLoss": {12, 13}, "Softplus": {22}, "Softsign": {22}, "SpaceToDepth": {13},
	"Split": {11, 13, 18}, "SplitToSequence": {11, 24}, "Sqrt": {13}, "Squeeze": {11, 13, 21, 23, 24, 25},
	"StringConcat": {20}, "StringNormalizer": {10}, "StringSplit": {20}, "Sub": {13, 14}, "Sum": {8, 13},
	"Swish": {24}, "Tan": {22}, "Tanh": {13}, "TensorScatter": {24}, "TfIdfVectorizer": {9},
	"ThresholdedRelu": {10, 22}, "Tile": {13}, "TopK": {10, 11, 24}, "Transpose": {13, 21, 23, 24, 25},
	"Trilu": {14}, "Unique": {11}, "Unsqueeze": {11, 13, 21, 23, 24, 25}, "Upsample": {9, 10}, "Where": {9, 16},
	"Xor": {},
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
