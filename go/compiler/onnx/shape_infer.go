package onnx

import (
	"github.com/gree-ml/gree/go/compiler/onnx/onnxpb"
)

// inferNode infers the types of a node's outputs from its inputs (nil
// entries: unknown), as ONNX shape inference with data propagation does
// for the ops listed here; other ops give no information (their outputs
// then need declared types). Inference never fails the import: an
// inconsistent node just gets no inferred type.
func (imp *importer) inferNode(n *onnxpb.NodeProto, in []*info) (out []*info) {
	defer func() {
		if recover() != nil {
			out = nil
		}
		// Where the shape is not known, ONNX still knows the element type
		// of ops whose results take their first input's: unranked results.
		if !sameElemOps[n.GetOpType()] || normalizeDomain(n.GetDomain()) != "" {
			return
		}
		e := elemOf(in, 0)
		if e == 0 {
			return
		}
		outputs := 1
		if n.GetOpType() == "Split" {
			outputs = len(n.GetOutput())
		}
		for len(out) < outputs {
			out = append(out, nil)
		}
		for i := 0; i < outputs; i++ {
			if out[i] == nil || out[i].t == nil {
				out[i] = &info{t: &vtype{kind: kindTensor, elem: e, dims: []int64{}}}
			}
		}
	}()
	if normalizeDomain(n.GetDomain()) != "" {
		return nil
	}
	opset := imp.opsets[""]
	switch n.GetOpType() {
	case "Relu", "Sigmoid", "Tanh", "Exp", "Log", "Abs", "Neg", "Sqrt", "Reciprocal", "Floor", "Ceil",
		"Round", "Erf", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh",
		"Atanh", "Softplus", "Softsign", "HardSigmoid", "HardSwish", "Elu", "Selu", "LeakyRelu",
		"ThresholdedRelu", "Celu", "Gelu", "Mish", "Sign", "Clip", "Softmax", "LogSoftmax", "Hardmax",
		"LRN", "InstanceNormalization", "CumSum", "Trilu", "Shrink", "BitwiseNot", "MeanVarianceNormalization",
		"ReverseSequence", "Swish":
		return unaryLike(in)
	case "Identity":
		o := unaryLike(in)
		if len(o) == 1 && in[0] != nil {
			o[0].data = in[0].data
		}
		return o
	case "Dropout":
		o := unaryLike(in)
		if len(o) == 1 && len(n.GetOutput()) > 1 {
			m := unaryLike(in)[0]
			m.t.elem = dtBool
			o = append(o, m)
		}
		return o
	case "RMSNormalization", "LpNormalization", "CumProd", "ScatterElements", "ScatterND", "Scatter":
		return unaryLike(in)
	case "LayerNormalization":
		o := unaryLike(in)
		t := ranked(in, 0)
		if t == nil || len(o) != 1 {
			return o
		}
		axis, ok := normAxis(attrInt(n, "axis", -1), len(t.dims))
		if !ok {
			return o
		}
		stat := append([]int64{}, t.dims...)
		for i := axis; i < len(stat); i++ {
			stat[i] = 1
		}
		se := int32(attrInt(n, "stash_type", int64(dtFloat)))
		for len(o) < len(n.GetOutput()) && len(o) < 3 {
			o = append(o, &info{t: tensorType(se, append([]int64{}, stat...))})
		}
		return o
	case "BatchNormalization":
		o := unaryLike(in)
		if s := ranked(in, 1); s != nil && len(o) == 1 {
			for len(o) < len(n.GetOutput()) && len(o) < 3 {
				o = append(o, &info{t: tensorType(s.elem, append([]int64{}, s.dims...))})
			}
		}
		return o
	case "GridSample":
		x, g := ranked(in, 0), ranked(in, 1)
		if x == nil || g == nil || len(g.dims) != len(x.dims) || len(x.dims) < 3 {
			return nil
		}
		dims := append([]int64{x.dims[0], x.dims[1]}, g.dims[1:len(g.dims)-1]...)
		return []*info{{t: tensorType(x.elem, dims)}}
	case "IsNaN", "IsInf", "Not":
		return withElem(unaryLike(in), dtBool)
	case "Add", "Sub", "Mul", "Div":
		o := broadcastOp(in, 0)
		if len(o) == 1 {
			// ONNX propagates Add, Sub and Mul; Div only when folding.
			if n.GetOpType() != "Div" || imp.opts.FoldShapes {
				o[0].data = arith(n.GetOpType(), in, o[0].t)
			}
		}
		return o
	case "Pow", "Mod", "BitShift", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Max", "Min", "Sum",
		"Mean", "PRelu":
		return broadcastOp(in, 0)
	case "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor":
		return broadcastOp(in, dtBool)
	case "Where":
		if len(in) != 3 {
			return nil
		}
		o := broadcastOp(in, elemOf(in, 1))
		return o
	case "Cast":
		o := unaryLike(in)
		to := int32(attrInt(n, "to", 0))
		if len(o) == 1 && to != 0 {
			o[0].t.elem = to
			if (to == dtInt64 || to == dtInt32) && in[0] != nil && in[0].data != nil {
				o[0].data = in[0].data
			}
		}
		return o
	case "CastLike":
		if e := elemOf(in, 1); e != 0 {
			return withElem(unaryLike(in), e)
		}
		return nil
	case "Shape":
		return inferShape(n, in, opset)
	case "Size":
		if t := ranked(in, 0); t != nil {
			return []*info{dataInfo(dtInt64, []int64{}, []int64{orUnk(prod(t.dims))})}
		}
		return []*info{{t: tensorType(dtInt64, []int64{})}}
	case "Conv", "ConvInteger":
		return inferConv(n, in, false)
	case "ConvTranspose":
		return inferConv(n, in, true)
	case "MaxPool", "AveragePool", "LpPool":
		return inferPool(n, in)
	case "GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool":
		t := ranked(in, 0)
		if t == nil || len(t.dims) < 2 {
			return unaryLike(in)
		}
		dims := append([]int64{}, t.dims...)
		for i := 2; i < len(dims); i++ {
			dims[i] = 1
		}
		return []*info{{t: tensorType(t.elem, dims)}}
	case "Gemm":
		return inferGemm(n, in)
	case "MatMul", "MatMulInteger":
		return inferMatMul(in)
	case "QLinearMatMul":
		if len(in) != 8 {
			return nil
		}
		o := inferMatMul([]*info{in[0], in[3]})
		if e := elemOf(in, 7); e != 0 {
			o = withElem(o, e)
		}
		return o
	case "Flatten":
		t := ranked(in, 0)
		if t == nil {
			return nil
		}
		axis := attrInt(n, "axis", 1)
		if axis < 0 {
			axis += int64(len(t.dims))
		}
		if axis < 0 || axis > int64(len(t.dims)) {
			return nil
		}
		return []*info{{t: tensorType(t.elem, []int64{prod(t.dims[:axis]), prod(t.dims[axis:])})}}
	case "Reshape":
		return inferReshape(n, in, opset, imp.opts.FoldShapes)
	case "Transpose":
		t := ranked(in, 0)
		if t == nil {
			return nil
		}
		perm, ok := attrInts(n, "perm")
		if !ok {
			for i := len(t.dims) - 1; i >= 0; i-- {
				perm = append(perm, int64(i))
			}
		}
		if len(perm) != len(t.dims) {
			return nil
		}
		dims := make([]int64, len(perm))
		for i, p := range perm {
			dims[i] = t.dims[p]
		}
		return []*info{{t: tensorType(t.elem, dims)}}
	case "Concat":
		return inferConcat(n, in)
	case "Split":
		return inferSplit(n, in, opset, imp.opts.FoldShapes)
	case "Slice":
		return inferSlice(n, in, opset)
	case "Squeeze":
		return inferSqueeze(n, in, opset)
	case "Unsqueeze":
		return inferUnsqueeze(n, in, opset)
	case "Gather":
		return inferGather(n, in)
	case "If":
		return inferIf(n)
	case "Loop":
		return inferLoop(n, in)
	case "Einsum":
		return inferEinsum(n, in)
	case "RNN", "GRU", "LSTM":
		return inferRNN(n, in, opset)
	case "SequenceEmpty":
		elem := int32(attrInt(n, "dtype", int64(dtFloat)))
		return []*info{{t: &vtype{kind: kindSequence, inner: &vtype{kind: kindTensor, elem: elem, dims: []int64{}}}}}
	case "SplitToSequence":
		t := ranked(in, 0)
		if t == nil {
			return nil
		}
		axis, ok := normAxis(attrInt(n, "axis", 0), len(t.dims))
		if !ok {
			return nil
		}
		dims := append([]int64{}, t.dims...)
		if present(in, 1) {
			dims[axis] = unknownDim
		} else if attrInt(n, "keepdims", 1) == 1 {
			dims[axis] = 1
		} else {
			dims = append(dims[:axis], dims[axis+1:]...)
		}
		return []*info{{t: &vtype{kind: kindSequence, inner: tensorType(t.elem, dims)}}}
	case "OptionalHasElement":
		return []*info{{t: tensorType(dtBool, []int64{})}}
	case "OptionalGetElement":
		if t := in[0].typ(); t != nil {
			if t.kind == kindOptional {
				return []*info{{t: t.inner}}
			}
			return []*info{{t: t}}
		}
		return nil
	case "SequenceLength":
		return []*info{{t: tensorType(dtInt64, []int64{})}}
	case "GatherElements":
		if t := ranked(in, 1); t != nil && elemOf(in, 0) != 0 {
			return []*info{{t: tensorType(elemOf(in, 0), append([]int64{}, t.dims...))}}
		}
		return nil
	case "Expand":
		t := ranked(in, 0)
		shape, ok := partialData(in, 1)
		if st := ranked(in, 1); !ok && st != nil && len(st.dims) == 1 && st.dims[0] >= 0 {
			// Unknown values of a known count: the rank is known.
			shape, ok = make([]int64, st.dims[0]), true
			for i := range shape {
				shape[i] = unk
			}
		}
		if t == nil || !ok {
			return nil
		}
		dims, ok := broadcastDims(t.dims, dimsOfData(shape))
		if !ok {
			return nil
		}
		return []*info{{t: tensorType(t.elem, dims)}}
	case "Tile":
		t := ranked(in, 0)
		reps, ok := intData(in, 1)
		if t == nil || !ok || len(reps) != len(t.dims) {
			return unaryRankOnly(in)
		}
		dims := make([]int64, len(t.dims))
		for i, d := range t.dims {
			dims[i] = mulDim(d, reps[i])
		}
		return []*info{{t: tensorType(t.elem, dims)}}
	case "Pad":
		return inferPad(n, in, opset, imp.opts.FoldShapes)
	case "ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
		"ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare", "ArgMax", "ArgMin":
		return inferReduce(n, in, opset, imp.opts.FoldShapes)
	case "ConstantOfShape":
		var shape []int64
		if d, ok := partialData(in, 0); ok {
			shape = d
		} else if t := ranked(in, 0); t != nil && len(t.dims) == 1 && t.dims[0] >= 0 {
			shape = make([]int64, t.dims[0])
			for i := range shape {
				shape[i] = unk
			}
		} else {
			elem := dtFloat
			if a := findAttr(n, "value"); a != nil && a.GetT() != nil {
				elem = a.GetT().GetDataType()
			}
			return []*info{{t: &vtype{kind: kindTensor, elem: elem, dims: []int64{}}}}
		}
		elem := dtFloat
		var tv *tensor
		if a := findAttr(n, "value"); a != nil && a.GetT() != nil {
			elem = a.GetT().GetDataType()
			tv, _ = decodeTensor(a.GetT())
		}
		o := &info{t: tensorType(elem, dimsOfData(shape))}
		if _, err := checkedNumElements(o.t.dims); err == nil && o.t.static() && o.t.numElements() <= maxDataElems && (elem == dtInt64 || elem == dtInt32) {
			v := int64(0)
			if tv != nil {
				if vs, ok := tv.int64s(); ok && len(vs) == 1 {
					v = vs[0]
				}
			}
			o.data = make([]int64, o.t.numElements())
			for i := range o.data {
				o.data[i] = v
			}
		}
		return []*info{o}
	case "Constant":
		return inferConstant(n)
	case "Range":
		return inferRange(in, imp.opts.FoldShapes)
	case "Resize", "Upsample":
		return inferResize(n, in, opset)
	case "TopK":
		t := ranked(in, 0)
		k, ok := intData(in, 1)
		if t == nil {
			return nil
		}
		axis, aok := normAxis(attrInt(n, "axis", -1), len(t.dims))
		if !aok {
			return nil
		}
		dims := append([]int64{}, t.dims...)
		dims[axis] = unknownDim
		if ok && len(k) == 1 {
			dims[axis] = k[0]
		}
		return []*info{{t: tensorType(t.elem, dims)}, {t: tensorType(dtInt64, append([]int64{}, dims...))}}
	case "NonZero":
		if t := ranked(in, 0); t != nil {
			return []*info{{t: tensorType(dtInt64, []int64{int64(len(t.dims)), unknownDim})}}
		}
	case "DepthToSpace", "SpaceToDepth":
		t := ranked(in, 0)
		if t == nil || len(t.dims) != 4 {
			return nil
		}
		b := attrInt(n, "blocksize", 1)
		d := append([]int64{}, t.dims...)
		if n.GetOpType() == "DepthToSpace" {
			d[1], d[2], d[3] = divDim(d[1], b*b), mulDim(d[2], b), mulDim(d[3], b)
		} else {
			d[1], d[2], d[3] = mulDim(d[1], b*b), divDim(d[2], b), divDim(d[3], b)
		}
		return []*info{{t: tensorType(t.elem, d)}}
	case "EyeLike", "RandomNormalLike", "RandomUniformLike":
		o := unaryLike(in)
		if dt := attrInt(n, "dtype", 0); dt != 0 {
			o = withElem(o, int32(dt))
		}
		return o
	case "QuantizeLinear":
		e := elemOf(in, 2)
		if e == 0 {
			e = dtUint8
		}
		return withElem(unaryLike(in), e)
	case "DequantizeLinear":
		e := elemOf(in, 1)
		if e == 0 {
			e = dtFloat
		}
		return withElem(unaryLike(in), e)
	}
	return nil
}

func unaryRankOnly(in []*info) []*info {
	t := ranked(in, 0)
	if t == nil {
		return nil
	}
	dims := make([]int64, len(t.dims))
	for i := range dims {
		dims[i] = unknownDim
	}
	return []*info{{t: tensorType(t.elem, dims)}}
}

func orUnk(v int64) int64 {
	if v < 0 {
		return unk
	}
	return v
}

func mulDim(a, b int64) int64 {
	if a < 0 || b < 0 {
		return unknownDim
	}
	return a * b
}

func divDim(a, b int64) int64 {
	if a < 0 || b <= 0 {
		return unknownDim
	}
	return a / b
}

// inferIf gives an If the types of its then_branch outputs.
func inferIf(n *onnxpb.NodeProto) []*info {
	g := findAttr(n, "then_branch").GetG()
	var out []*info
	for _, o := range g.GetOutput() {
		t, err := fromTypeProto(o.GetType())
		if err != nil {
			return nil
		}
		out = append(out, &info{t: t})
	}
	return out
}

// inferLoop types a Loop's results as ONNX does: loop-carried values keep
// their element type (their shape may change between iterations); scan
// outputs get a leading dimension of unknown size.
func inferLoop(n *onnxpb.NodeProto, in []*info) []*info {
	g := findAttr(n, "body").GetG()
	outs := g.GetOutput()
	carried := len(in) - 2
	if carried < 0 || len(outs) < 1+carried {
		return nil
	}
	var res []*info
	for i, o := range outs[1:] {
		t, err := fromTypeProto(o.GetType())
		if err != nil || !t.isTensor() {
			res = append(res, nil)
			continue
		}
		if i < carried {
			res = append(res, &info{t: &vtype{kind: kindTensor, elem: t.elem, dims: []int64{}}})
			continue
		}
		if !t.ranked {
			res = append(res, &info{t: &vtype{kind: kindTensor, elem: t.elem, dims: []int64{}}})
			continue
		}
		res = append(res, &info{t: tensorType(t.elem, append([]int64{unknownDim}, t.dims...))})
	}
	return res
}

// sameElemOps are the ops whose (first) result has their first input's
// element type.
var sameElemOps = map[string]bool{
	"Relu": true, "Sigmoid": true, "Tanh": true, "Exp": true, "Log": true, "Abs": true, "Neg": true,
	"Sqrt": true, "Reciprocal": true, "Floor": true, "Ceil": true, "Round": true, "Erf": true,
	"Sin": true, "Cos": true, "Softplus": true, "Elu": true, "LeakyRelu": true, "Gelu": true,
	"Clip": true, "Softmax": true, "LogSoftmax": true, "Identity": true, "Dropout": true,
	"Add": true, "Sub": true, "Mul": true, "Div": true, "Pow": true, "Max": true, "Min": true,
	"Sum": true, "Mean": true, "MatMul": true, "Gemm": true, "Conv": true, "ConvTranspose": true,
	"MaxPool": true, "AveragePool": true, "GlobalAveragePool": true, "GlobalMaxPool": true,
	"BatchNormalization": true, "LayerNormalization": true, "InstanceNormalization": true,
	"Reshape": true, "Transpose": true, "Concat": true, "Split": true, "Slice": true,
	"Squeeze": true, "Unsqueeze": true, "Gather": true, "GatherElements": true, "Expand": true,
	"Tile": true, "Pad": true, "Flatten": true, "Resize": true, "Upsample": true,
	"ReduceMean": true, "ReduceSum": true, "ReduceMax": true, "ReduceMin": true, "ReduceProd": true,
	"ReduceL1": true, "ReduceL2": true, "ReduceLogSum": true, "ReduceLogSumExp": true,
	"ReduceSumSquare": true, "CumSum": true, "Trilu": true, "DepthToSpace": true, "SpaceToDepth": true,
}
