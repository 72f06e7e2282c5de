package onnx

import "fmt"

// batchRules say, per op type, whether a node keeps batch items apart
// given where the batch axis of each input and result is (from the two
// sample imports), and set the inner extent of the results' batch axes:
// the per-item extent below the batch factor (a batch axis merged with
// others, as torch's attention merges batch and heads, holds B blocks of
// the per-item rows, or per-item blocks of B rows).
var batchRules = map[string]func(b *batchNode) error{}

func init() {
	for _, op := range []string{"Add", "Sub", "Mul", "Div", "Pow", "Mod", "Max", "Min", "Sum", "Mean",
		"Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual", "And", "Or", "Xor", "Not", "Where",
		"Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Reciprocal", "Neg", "Abs", "Sign", "Floor", "Ceil",
		"Round", "Erf", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh",
		"LeakyRelu", "Elu", "Selu", "Celu", "ThresholdedRelu", "PRelu", "Gelu", "HardSigmoid", "HardSwish",
		"Softplus", "Softsign", "Mish", "Swish", "Clip", "Shrink", "IsNaN", "IsInf", "Cast", "CastLike",
		"Identity", "BitShift", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot",
		"QuantizeLinear", "DequantizeLinear", "Dropout"} {
		batchRules[op] = elementwiseBatch
	}
	for _, op := range []string{"Conv", "ConvTranspose", "ConvInteger", "AveragePool", "GlobalAveragePool",
		"GlobalMaxPool", "LpPool", "GlobalLpPool", "InstanceNormalization", "LRN", "DepthToSpace",
		"SpaceToDepth", "GroupNormalization", "Resize", "Upsample", "MaxPool", "BatchNormalization"} {
		batchRules[op] = itemsAlongAxis0
	}
	for _, op := range []string{"Reshape", "Flatten", "Squeeze", "Unsqueeze"} {
		batchRules[op] = reshapeBatch
	}
	for _, op := range []string{"Slice", "Split", "Pad", "Tile"} {
		batchRules[op] = uncutBatch
	}
	for _, op := range []string{"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd",
		"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"} {
		batchRules[op] = reduceBatch
	}
	for _, op := range []string{"Softmax", "LogSoftmax", "Hardmax", "LayerNormalization", "ArgMax", "ArgMin",
		"LpNormalization", "RMSNormalization", "TopK", "CumSum"} {
		batchRules[op] = axisBatch
	}
	for _, op := range []string{"LSTM", "GRU", "RNN"} {
		batchRules[op] = recurrentBatch
	}
	batchRules["Shape"] = func(*batchNode) error { return nil } // its result's values vary
	batchRules["Size"] = batchRules["Shape"]
	batchRules["Transpose"] = transposeBatch
	batchRules["MatMul"] = matmulBatch
	batchRules["Gemm"] = gemmBatch
	batchRules["Concat"] = concatBatch
	batchRules["Gather"] = gatherBatch
	batchRules["Expand"] = expandBatch
	batchRules["ConstantOfShape"] = expandBatch
}

// folded reports results that are all small integer values known at both
// batch sizes without a batch axis: shape arithmetic, folded at import.
func (b *batchNode) folded() bool {
	if !b.shapeArith() {
		return false
	}
	for _, o := range b.outs {
		if o != nil && o.axis >= 0 {
			return false
		}
	}
	return true
}

// batchFreeParams checks that every input after the first (weights,
// bounds, axes, pads) neither carries the batch nor varies with it.
func (b *batchNode) batchFreeParams() error {
	for _, v := range b.ins[1:] {
		if v != nil && (v.axis >= 0 || v.varies) {
			return fmt.Errorf("has a parameter '%s' that depends on the batch", v.name)
		}
	}
	return nil
}

// carrying are the inputs with a batch axis.
func (b *batchNode) carrying() []*bval {
	var out []*bval
	for _, v := range b.ins {
		if v != nil && v.axis >= 0 {
			out = append(out, v)
		}
	}
	return out
}

func (b *batchNode) attrInt(name string, def int64) int64 { return attrInt(b.n, name, def) }

// elementwiseBatch: numpy broadcasting keeps items apart when every input
// with a batch axis has it at the result's axis, with the same layout.
func elementwiseBatch(b *batchNode) error {
	if b.folded() {
		return nil
	}
	if b.n.GetOpType() == "Dropout" && len(b.ins) > 2 && b.ins[2] != nil {
		if d := b.ins[2].data[0]; d == nil || len(d) != 1 || d[0] != 0 {
			return fmt.Errorf("may run in training mode (random across items)")
		}
	}
	var inner int64
	for _, o := range b.outs {
		if o == nil {
			continue
		}
		for _, v := range b.carrying() {
			if v.axis+len(o.dims[0])-len(v.dims[0]) != o.axis {
				return fmt.Errorf("broadcasts '%s' (batch axis %d) to batch axis %d", v.name, v.axis, o.axis)
			}
			if inner != 0 && v.inner != inner {
				return fmt.Errorf("combines inputs whose batch dimensions are laid out differently")
			}
			inner = v.inner
		}
		if o.axis >= 0 && inner == 0 {
			return fmt.Errorf("gives '%s' a batch dimension no input has", o.name)
		}
		o.inner = inner
	}
	return nil
}

// itemsAlongAxis0: convolutions, pools and normalizations over N×C×…
// treat each of the N rows alone; the weights must not depend on the batch.
func itemsAlongAxis0(b *batchNode) error {
	x := b.ins[0]
	if x == nil || x.axis != 0 {
		return fmt.Errorf("needs the batch on axis 0 of its first input")
	}
	if err := b.batchFreeParams(); err != nil {
		return err
	}
	op := b.n.GetOpType()
	if op == "BatchNormalization" && (b.attrInt("training_mode", 0) != 0 || len(b.outs) > 1) {
		return fmt.Errorf("runs in training mode (statistics over the batch)")
	}
	if op == "MaxPool" && len(b.outs) > 1 && b.outs[1] != nil {
		return fmt.Errorf("gives indices that count across the batch")
	}
	for _, o := range b.outs {
		if o == nil {
			continue
		}
		if o.axis != 0 || o.dims[0][0] != x.dims[0][0] {
			return fmt.Errorf("changes the batch axis")
		}
		o.inner = x.inner
	}
	return nil
}

// linearStride is the per-item number of elements below v's batch factor
// in row-major order (invariant under reshapes).
func linearStride(v *bval) int64 {
	s := v.inner
	for _, d := range v.dims[0][v.axis+1:] {
		s *= d
	}
	return s
}

// reshapeBatch: a reshape keeps the row-major order, so the batch factor
// keeps its stride; the result's batch axis (from the samples) must have
// that stride.
func reshapeBatch(b *batchNode) error {
	if b.folded() {
		return nil
	}
	x, o := b.ins[0], b.outs[0]
	if x.axis < 0 {
		if o.axis >= 0 {
			return fmt.Errorf("gives '%s' a batch dimension its input does not have", o.name)
		}
		return nil
	}
	if o.axis < 0 {
		return fmt.Errorf("merges the batch away")
	}
	s := linearStride(x)
	below := int64(1)
	for _, d := range o.dims[0][o.axis+1:] {
		below *= d
	}
	if below == 0 || s%below != 0 || o.dims[0][o.axis]%(s/below) != 0 {
		return fmt.Errorf("moves the batch factor within its dimensions (%v → %v)", x.dims[0], o.dims[0])
	}
	o.inner = s / below
	return nil
}

// uncutBatch: slicing, splitting, padding and tiling along other axes.
func uncutBatch(b *batchNode) error {
	if b.folded() {
		return nil
	}
	x := b.ins[0]
	if err := b.batchFreeParams(); err != nil {
		return err
	}
	for _, o := range b.outs {
		if o == nil {
			continue
		}
		if x.axis < 0 || o.axis != x.axis || o.dims[0][o.axis] != x.dims[0][x.axis] || o.dims[1][o.axis] != x.dims[1][x.axis] {
			return fmt.Errorf("cuts or repeats along the batch axis")
		}
		o.inner = x.inner
	}
	return nil
}

// keepAxis sets the results' inner extents from x for ops that keep the
// batch axis where it is (after removing reduced axes before it).
func keepAxis(b *batchNode, x *bval) error {
	for _, o := range b.outs {
		if o == nil {
			continue
		}
		if o.axis < 0 {
			return fmt.Errorf("reduces over the batch")
		}
		if o.dims[0][o.axis] != x.dims[0][x.axis] {
			return fmt.Errorf("changes the batch axis")
		}
		o.inner = x.inner
	}
	return nil
}

// reduceBatch: reductions over axes that exclude the batch axis.
func reduceBatch(b *batchNode) error {
	x := b.ins[0]
	if x == nil || x.axis < 0 {
		return fmt.Errorf("reduces a value that depends on the batch")
	}
	rank := len(x.dims[0])
	var axes []int64
	fromInput := b.n.GetOpType() == "ReduceSum" && b.c.gi[0].imp.opsets[""] >= 13 || b.c.gi[0].imp.opsets[""] >= 18
	if fromInput {
		if len(b.ins) > 1 && b.ins[1] != nil {
			if axes = b.ins[1].data[0]; axes == nil {
				return fmt.Errorf("reduces over run-time axes")
			}
		}
	} else {
		axes, _ = attrInts(b.n, "axes")
	}
	if len(axes) == 0 {
		if b.attrInt("noop_with_empty_axes", 0) != 0 {
			return keepAxis(b, x)
		}
		return fmt.Errorf("reduces over every axis, the batch included")
	}
	for _, a := range axes {
		if k, ok := normAxis(a, rank); !ok || k == x.axis {
			return fmt.Errorf("reduces over the batch axis")
		}
	}
	return keepAxis(b, x)
}

// axisBatch: ops along one axis (Softmax, LayerNormalization from its axis
// on, ArgMax, TopK, CumSum, …) that is not the batch axis.
func axisBatch(b *batchNode) error {
	x := b.ins[0]
	if x == nil || x.axis < 0 {
		return fmt.Errorf("needs its first input to carry the batch")
	}
	if err := b.batchFreeParams(); err != nil {
		return err
	}
	rank := len(x.dims[0])
	op := b.n.GetOpType()
	def := int64(-1)
	if (op == "Softmax" || op == "LogSoftmax" || op == "Hardmax") && b.c.gi[0].imp.opsets[""] < 13 {
		def = 1
	}
	if op == "ArgMax" || op == "ArgMin" {
		def = 0
	}
	a := b.attrInt("axis", def)
	if op == "CumSum" {
		if len(b.ins) < 2 || b.ins[1] == nil || len(b.ins[1].data[0]) != 1 {
			return fmt.Errorf("has a run-time axis")
		}
		a = b.ins[1].data[0][0]
	}
	k, ok := normAxis(a, rank)
	if !ok {
		return fmt.Errorf("has axis %d out of range", a)
	}
	from := false // the op covers axes k.. (flattened or normalized)
	switch op {
	case "LayerNormalization", "RMSNormalization":
		from = true
	case "Softmax", "LogSoftmax", "Hardmax":
		from = b.c.gi[0].imp.opsets[""] < 13
	}
	if k == x.axis || from && x.axis >= k {
		return fmt.Errorf("works along the batch axis")
	}
	for _, o := range b.outs {
		if o != nil && o.axis >= 0 {
			if o.dims[0][o.axis] != x.dims[0][x.axis] {
				return fmt.Errorf("changes the batch axis")
			}
			o.inner = x.inner
		}
	}
	return nil
}

// transposeBatch: the batch axis moves with its layout.
func transposeBatch(b *batchNode) error {
	if b.folded() {
		return nil
	}
	x, o := b.ins[0], b.outs[0]
	perm, ok := attrInts(b.n, "perm")
	if !ok {
		perm = make([]int64, len(x.dims[0]))
		for i := range perm {
			perm[i] = int64(len(perm) - 1 - i)
		}
	}
	if o.axis < 0 || o.axis >= len(perm) || int(perm[o.axis]) != x.axis {
		return fmt.Errorf("moves the batch axis where the samples do not")
	}
	o.inner = x.inner
	return nil
}

// matmulBatch: the batch may be in rows of A, columns of B or a
// broadcast batch dimension, never in the contracted one.
func matmulBatch(b *batchNode) error {
	a, w, o := b.ins[0], b.ins[1], b.outs[0]
	ra, rb, ro := len(a.dims[0]), len(w.dims[0]), len(o.dims[0])
	var inner int64
	for _, v := range []*bval{a, w} {
		if v.axis < 0 {
			if v.varies {
				return fmt.Errorf("multiplies by values that depend on the batch")
			}
			continue
		}
		r := len(v.dims[0])
		var want int
		switch {
		case v == a && (ra == 1 || v.axis == ra-1), v == w && (rb == 1 || v.axis == rb-2):
			return fmt.Errorf("contracts over the batch axis of '%s'", v.name)
		case v == a && v.axis == ra-2:
			want = ro - 2
		case v == w && v.axis == rb-1:
			want = ro - 1
		default:
			want = v.axis + ro - r
		}
		if o.axis != want {
			return fmt.Errorf("puts the batch of '%s' at axis %d where the samples have %d", v.name, want, o.axis)
		}
		if inner != 0 && inner != v.inner {
			return fmt.Errorf("multiplies operands whose batch dimensions are laid out differently")
		}
		inner = v.inner
	}
	if o.axis >= 0 && inner == 0 {
		return fmt.Errorf("gives '%s' a batch dimension no input has", o.name)
	}
	o.inner = inner
	return nil
}

// gemmBatch: rows of A or columns of B; C broadcast.
func gemmBatch(b *batchNode) error {
	a, w, o := b.ins[0], b.ins[1], b.outs[0]
	var inner int64
	if a.axis >= 0 {
		if a.axis != int(b.attrInt("transA", 0)) || o.axis != 0 {
			return fmt.Errorf("contracts over the batch axis of '%s'", a.name)
		}
		inner = a.inner
	}
	if w.axis >= 0 {
		if w.axis != 1-int(b.attrInt("transB", 0)) || o.axis != 1 {
			return fmt.Errorf("contracts over the batch axis of '%s'", w.name)
		}
		inner = w.inner
	}
	if a.varies || w.varies {
		return fmt.Errorf("multiplies values that depend on the batch")
	}
	if len(b.ins) > 2 && b.ins[2] != nil {
		c := b.ins[2]
		if c.varies || c.axis >= 0 && (c.axis+2-len(c.dims[0]) != o.axis || c.inner != inner) {
			return fmt.Errorf("adds a C that depends on the batch differently")
		}
	}
	if o.axis >= 0 && inner == 0 {
		return fmt.Errorf("gives '%s' a batch dimension no input has", o.name)
	}
	o.inner = inner
	return nil
}

// concatBatch: along another axis, every input carrying the batch alike.
func concatBatch(b *batchNode) error {
	if b.folded() {
		return nil
	}
	o := b.outs[0]
	for _, v := range b.ins {
		if v == nil {
			continue
		}
		if v.axis != o.axis || v.dims[0][v.axis] != o.dims[0][o.axis] {
			return fmt.Errorf("joins '%s' whose batch dimension differs from the result's", v.name)
		}
		if o.inner != 0 && o.inner != v.inner {
			return fmt.Errorf("joins inputs whose batch dimensions are laid out differently")
		}
		o.inner = v.inner
	}
	return nil
}

// gatherBatch: gathering along another axis of a batch-carrying tensor, or
// batch-carrying indices into a batch-free table (embeddings).
func gatherBatch(b *batchNode) error {
	if b.folded() {
		return nil
	}
	data, idx, o := b.ins[0], b.ins[1], b.outs[0]
	k, ok := normAxis(b.attrInt("axis", 0), len(data.dims[0]))
	if !ok {
		return fmt.Errorf("has an axis out of range")
	}
	if idx.varies {
		return fmt.Errorf("gathers at indices that depend on the batch")
	}
	switch {
	case data.axis >= 0 && idx.axis >= 0:
		return fmt.Errorf("gathers from and at the batch")
	case data.axis == k:
		return fmt.Errorf("gathers along the batch axis")
	case data.axis >= 0:
		want := data.axis
		if data.axis > k {
			want += len(idx.dims[0]) - 1
		}
		if o.axis != want {
			return fmt.Errorf("puts the batch at axis %d where the samples have %d", want, o.axis)
		}
		o.inner = data.inner
	case idx.axis >= 0:
		if data.varies || o.axis != k+idx.axis {
			return fmt.Errorf("puts the batch of its indices where the samples do not")
		}
		o.inner = idx.inner
	}
	return nil
}

// expandBatch: Expand and ConstantOfShape to a shape that holds the batch
// size give every item the same values (or x's own).
func expandBatch(b *batchNode) error {
	o := b.outs[0]
	if b.folded() {
		return nil
	}
	if b.n.GetOpType() == "Expand" && b.ins[0].axis >= 0 {
		x := b.ins[0]
		if x.axis+len(o.dims[0])-len(x.dims[0]) != o.axis || x.dims[0][x.axis] != o.dims[0][o.axis] {
			return fmt.Errorf("broadcasts along the batch axis")
		}
		o.inner = x.inner
		return nil
	}
	if o.axis < 0 {
		return nil
	}
	if o.dims[0][o.axis] != 1 {
		return fmt.Errorf("gives '%s' a batch dimension merged with another", o.name)
	}
	o.inner = 1
	return nil
}

// recurrentBatch: RNN, GRU and LSTM run each sequence of the batch alone.
func recurrentBatch(b *batchNode) error {
	xAxis, yAxis, hAxis := 1, 2, 1
	if b.attrInt("layout", 0) != 0 {
		xAxis, yAxis, hAxis = 0, 0, 0
	}
	want := map[int]int{0: xAxis, 4: 0, 5: hAxis, 6: hAxis}
	for i, v := range b.ins {
		if v == nil {
			continue
		}
		w, ok := want[i]
		if !ok {
			w = -1
		}
		if v.varies || v.axis != w || w >= 0 && v.dims[0][v.axis] != 1 {
			return fmt.Errorf("has input %d ('%s') whose batch axis is not the op's batch axis", i, v.name)
		}
	}
	for i, o := range b.outs {
		if o == nil {
			continue
		}
		w := hAxis
		if i == 0 {
			w = yAxis
		}
		if o.axis != w || o.dims[0][o.axis] != 1 {
			return fmt.Errorf("gives output %d a batch axis where the op has none", i)
		}
		o.inner = 1
	}
	return nil
}
