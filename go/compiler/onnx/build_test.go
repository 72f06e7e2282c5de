package onnx

import (
	"encoding/binary"
	"math"

	"github.com/gree-ml/gree/go/compiler/onnx/onnxpb"
	"google.golang.org/protobuf/proto"
)

// Helpers building ONNX models in tests (as onnx.helper does in Python).

func tensorVI(name string, elem onnxpb.TensorProto_DataType, dims ...any) *onnxpb.ValueInfoProto {
	shape := &onnxpb.TensorShapeProto{}
	for _, d := range dims {
		switch v := d.(type) {
		case int:
			shape.Dim = append(shape.Dim, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: int64(v)}})
		case string:
			shape.Dim = append(shape.Dim, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimParam{DimParam: v}})
		}
	}
	return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
		TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(int32(elem)), Shape: shape}}}}
}

func node(op string, ins, outs []string, attrs ...*onnxpb.AttributeProto) *onnxpb.NodeProto {
	return &onnxpb.NodeProto{OpType: proto.String(op), Input: ins, Output: outs, Attribute: attrs, Name: proto.String(op + "_" + outs[0])}
}

func attrI(name string, v int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(v)}
}

func attrIs(name string, v ...int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: v}
}

func attrF(name string, v float32) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_FLOAT.Enum(), F: proto.Float32(v)}
}

func attrFs(name string, v ...float32) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_FLOATS.Enum(), Floats: v}
}

func attrS(name, v string) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_STRING.Enum(), S: []byte(v)}
}

func attrT(name string, t *onnxpb.TensorProto) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_TENSOR.Enum(), T: t}
}

func attrG(name string, g *onnxpb.GraphProto) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_GRAPH.Enum(), G: g}
}

// rawF32 is a FLOAT tensor stored as raw_data (printed as a resource).
func rawF32(name string, dims []int64, vals []float32) *onnxpb.TensorProto {
	raw := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	return &onnxpb.TensorProto{Name: proto.String(name), Dims: dims, DataType: proto.Int32(dtFloat), RawData: raw}
}

func f32s(name string, dims []int64, vals ...float32) *onnxpb.TensorProto {
	return &onnxpb.TensorProto{Name: proto.String(name), Dims: dims, DataType: proto.Int32(dtFloat), FloatData: vals}
}

func i64s(name string, dims []int64, vals ...int64) *onnxpb.TensorProto {
	return &onnxpb.TensorProto{Name: proto.String(name), Dims: dims, DataType: proto.Int32(dtInt64), Int64Data: vals}
}

func model(g *onnxpb.GraphProto, opset int64, extra ...*onnxpb.OperatorSetIdProto) *onnxpb.ModelProto {
	ops := append([]*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(opset)}}, extra...)
	return &onnxpb.ModelProto{IrVersion: proto.Int64(8), ProducerName: proto.String("gree-test"), ProducerVersion: proto.String("1"), OpsetImport: ops, Graph: g}
}

func ramp(n int, scale float32) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(i%7-3) * scale
	}
	return out
}

// testModels are the golden-test models: name → model (and whether to
// fold shapes).
func testModels() map[string]struct {
	m    *onnxpb.ModelProto
	fold bool
} {
	type entry = struct {
		m    *onnxpb.ModelProto
		fold bool
	}
	out := map[string]entry{}

	// A small CNN: types of every intermediate value come from inference.
	cnn := &onnxpb.GraphProto{
		Name:  proto.String("torch-jit-export"),
		Input: []*onnxpb.ValueInfoProto{tensorVI("input", onnxpb.TensorProto_FLOAT, 1, 3, 16, 16)},
		Initializer: []*onnxpb.TensorProto{
			rawF32("conv1.weight", []int64{8, 3, 3, 3}, ramp(8*3*3*3, 0.05)),
			rawF32("conv1.bias", []int64{8}, ramp(8, 0.1)),
			rawF32("fc.weight", []int64{10, 8}, ramp(80, 0.02)),
			f32s("fc.bias", []int64{10}, ramp(10, 0.5)...),
		},
		Node: []*onnxpb.NodeProto{
			node("Conv", []string{"input", "conv1.weight", "conv1.bias"}, []string{"c1"}, attrIs("kernel_shape", 3, 3), attrIs("pads", 1, 1, 1, 1), attrIs("strides", 2, 2), attrI("group", 1), attrIs("dilations", 1, 1)),
			node("Clip", []string{"c1", "", ""}, []string{"r1"}),
			node("MaxPool", []string{"r1"}, []string{"p1"}, attrIs("kernel_shape", 2, 2), attrIs("strides", 2, 2)),
			node("GlobalAveragePool", []string{"p1"}, []string{"g1"}),
			node("Flatten", []string{"g1"}, []string{"f1"}, attrI("axis", 1)),
			node("Gemm", []string{"f1", "fc.weight", "fc.bias"}, []string{"output"}, attrF("alpha", 1), attrF("beta", 1), attrI("transB", 1)),
		},
		Output: []*onnxpb.ValueInfoProto{tensorVI("output", onnxpb.TensorProto_FLOAT, 1, 10)},
	}
	out["cnn"] = entry{model(cnn, 13), false}

	// A shape computation feeding a Reshape, imported as is and folded.
	shapes := func() *onnxpb.GraphProto {
		return &onnxpb.GraphProto{
			Name:        proto.String("shapes"),
			Input:       []*onnxpb.ValueInfoProto{tensorVI("x", onnxpb.TensorProto_FLOAT, 2, 3, 4)},
			Initializer: []*onnxpb.TensorProto{i64s("zero", nil, 0), i64s("axes", []int64{1}, 0), i64s("minus1", []int64{1}, -1)},
			Node: []*onnxpb.NodeProto{
				node("Shape", []string{"x"}, []string{"s"}),
				node("Gather", []string{"s", "zero"}, []string{"d0"}, attrI("axis", 0)),
				node("Unsqueeze", []string{"d0", "axes"}, []string{"u"}),
				node("Concat", []string{"u", "minus1"}, []string{"shape"}, attrI("axis", 0)),
				node("Reshape", []string{"x", "shape"}, []string{"y"}),
				node("Relu", []string{"y"}, []string{"z"}),
			},
			Output: []*onnxpb.ValueInfoProto{tensorVI("z", onnxpb.TensorProto_FLOAT, "a", "b")},
		}
	}
	out["shapes"] = entry{model(shapes(), 17), false}
	out["shapes_folded"] = entry{model(shapes(), 17), true}

	// Attributes and literals of many kinds; a multi-result op; an
	// omitted optional input; another domain's opset.
	hex := make([]float32, 120)
	for i := range hex {
		hex[i] = float32(i) * 0.25
	}
	lit := &onnxpb.GraphProto{
		Name:  proto.String("literals"),
		Input: []*onnxpb.ValueInfoProto{tensorVI("x", onnxpb.TensorProto_FLOAT, 4, "N")},
		Node: []*onnxpb.NodeProto{
			node("Constant", nil, []string{"big"}, attrT("value", f32s("big", []int64{120}, hex...))),
			node("Constant", nil, []string{"splat"}, attrT("value", f32s("", []int64{2, 2}, 1.5, 1.5, 1.5, 1.5))),
			node("Constant", nil, []string{"ints"}, attrT("value", i64s("", []int64{2, 2}, 1, -2, 3, 9000000000))),
			node("Constant", nil, []string{"b"}, attrT("value", &onnxpb.TensorProto{Dims: []int64{3}, DataType: proto.Int32(dtBool), Int32Data: []int32{1, 0, 1}})),
			node("Constant", nil, []string{"d"}, attrT("value", &onnxpb.TensorProto{Dims: []int64{3}, DataType: proto.Int32(dtDouble), DoubleData: []float64{0.1, 1e20, math.Copysign(0, -1)}})),
			node("Constant", nil, []string{"fl"}, attrFs("value_floats", 0.5, 1e-3, 0.1)),
			node("Split", []string{"x"}, []string{"s0", "s1"}, attrI("axis", 0), attrI("num_outputs", 2)),
			node("LeakyRelu", []string{"s0"}, []string{"y"}, attrF("alpha", 0.1)),
			node("Resize", []string{"x", "", "scales"}, []string{"r"}, attrS("mode", "nearest"), attrS("coordinate_transformation_mode", "asym\"metric\n")),
			node("Add", []string{"y", "s1"}, []string{"z"}),
		},
		Initializer: []*onnxpb.TensorProto{f32s("scales", []int64{2}, 1, 2), rawF32("w-0", []int64{2}, []float32{1, 2}), rawF32("w 0", []int64{1}, []float32{3})},
		Output: []*onnxpb.ValueInfoProto{tensorVI("z", onnxpb.TensorProto_FLOAT, "a", "b"), tensorVI("r", onnxpb.TensorProto_FLOAT, "c", "d"),
			tensorVI("big", onnxpb.TensorProto_FLOAT, 120), tensorVI("splat", onnxpb.TensorProto_FLOAT, 2, 2), tensorVI("ints", onnxpb.TensorProto_INT64, 2, 2),
			tensorVI("b", onnxpb.TensorProto_BOOL, 3), tensorVI("d", onnxpb.TensorProto_DOUBLE, 3), tensorVI("fl", onnxpb.TensorProto_FLOAT, 3)},
	}
	out["literals"] = entry{model(lit, 18, &onnxpb.OperatorSetIdProto{Domain: proto.String("com.microsoft"), Version: proto.Int64(1)}), false}

	// Literals IREE's importer rejects (float16 in int32_data), which gree
	// prints as MLIR prints them.
	half := &onnxpb.GraphProto{
		Name: proto.String("literals_f16"),
		Node: []*onnxpb.NodeProto{
			node("Constant", nil, []string{"h"}, attrT("value", &onnxpb.TensorProto{Dims: []int64{4}, DataType: proto.Int32(dtFloat16), Int32Data: []int32{0x3C00, 0x3555, 0x7C00, 0x8000}})),
			node("Constant", nil, []string{"bf"}, attrT("value", &onnxpb.TensorProto{Dims: []int64{2}, DataType: proto.Int32(dtBfloat16), Int32Data: []int32{0x3F80, 0x4049}})),
			// Sub-byte types: one element per int32_data entry, and packed.
			node("Constant", nil, []string{"i4"}, attrT("value", &onnxpb.TensorProto{Dims: []int64{3}, DataType: proto.Int32(dtInt4), Int32Data: []int32{-8, 7, -1}})),
			node("Constant", nil, []string{"i2"}, attrT("value", &onnxpb.TensorProto{Dims: []int64{5}, DataType: proto.Int32(dtInt2), Int32Data: []int32{0b11100100, 0b01}})),
			node("Constant", nil, []string{"u2"}, attrT("value", &onnxpb.TensorProto{Dims: []int64{3}, DataType: proto.Int32(dtUint2), Int32Data: []int32{3, 0, 2}})),
			node("Constant", nil, []string{"f4"}, attrT("value", &onnxpb.TensorProto{Dims: []int64{4}, DataType: proto.Int32(dtFloat4E2M1), Int32Data: []int32{0x2, 0x7, 0x9, 0xF}})),
			node("Constant", nil, []string{"e8"}, attrT("value", &onnxpb.TensorProto{Dims: []int64{3}, DataType: proto.Int32(dtF8E8M0), Int32Data: []int32{127, 130, 120}})),
		},
		Output: []*onnxpb.ValueInfoProto{tensorVI("h", onnxpb.TensorProto_FLOAT16, 4), tensorVI("bf", onnxpb.TensorProto_BFLOAT16, 2),
			tensorVI("i4", onnxpb.TensorProto_INT4, 3), tensorVI("i2", onnxpb.TensorProto_INT2, 5), tensorVI("u2", onnxpb.TensorProto_UINT2, 3),
			tensorVI("f4", onnxpb.TensorProto_FLOAT4E2M1, 4), tensorVI("e8", onnxpb.TensorProto_FLOAT8E8M0, 3)},
	}
	out["literals_f16"] = entry{model(half, 18), false}

	// Unknown ranks: "[]" as IREE prints them, "*" in gree's pipeline.
	unr := func() *onnxpb.GraphProto {
		return &onnxpb.GraphProto{
			Name:  proto.String("unranked"),
			Input: []*onnxpb.ValueInfoProto{tensorVI("x", onnxpb.TensorProto_FLOAT, 2, 3, 4), tensorVI("axes", onnxpb.TensorProto_INT64, "n")},
			Node: []*onnxpb.NodeProto{
				node("ReduceSum", []string{"x", "axes"}, []string{"r"}, attrI("keepdims", 0)),
				node("ReduceSum", []string{"x", "axes"}, []string{"k"}, attrI("keepdims", 1)),
				node("Shape", []string{"r"}, []string{"rs"}),
				node("Shape", []string{"k"}, []string{"ks"}),
			},
			Output: []*onnxpb.ValueInfoProto{tensorVI("rs", onnxpb.TensorProto_INT64, "a"), tensorVI("ks", onnxpb.TensorProto_INT64, "b")},
		}
	}
	out["unranked"] = entry{model(unr(), 18), false}
	out["unranked_folded"] = entry{model(unr(), 18), true}

	// Subgraphs: If branches reading an outer value, a Loop body with
	// block arguments, an op after them (value numbering across regions).
	branch := func(name string, v float32) *onnxpb.GraphProto {
		return &onnxpb.GraphProto{Name: proto.String(name),
			Node:   []*onnxpb.NodeProto{node("Constant", nil, []string{name + "_c"}, attrT("value", rawF32("", []int64{2}, []float32{v, v + 1}))), node("Add", []string{name + "_c", "x"}, []string{name + "_o"})},
			Output: []*onnxpb.ValueInfoProto{tensorVI(name+"_o", onnxpb.TensorProto_FLOAT, 2)}}
	}
	body := &onnxpb.GraphProto{Name: proto.String("body"),
		Input:  []*onnxpb.ValueInfoProto{tensorVI("i", onnxpb.TensorProto_INT64), tensorVI("cond", onnxpb.TensorProto_BOOL), tensorVI("acc", onnxpb.TensorProto_FLOAT, 2)},
		Node:   []*onnxpb.NodeProto{node("Identity", []string{"cond"}, []string{"cond_out"}), node("Add", []string{"acc", "x"}, []string{"acc_out"})},
		Output: []*onnxpb.ValueInfoProto{tensorVI("cond_out", onnxpb.TensorProto_BOOL), tensorVI("acc_out", onnxpb.TensorProto_FLOAT, 2)}}
	sub := &onnxpb.GraphProto{
		Name:        proto.String("subgraphs"),
		Input:       []*onnxpb.ValueInfoProto{tensorVI("p", onnxpb.TensorProto_BOOL), tensorVI("x", onnxpb.TensorProto_FLOAT, 2)},
		Initializer: []*onnxpb.TensorProto{i64s("trips", nil, 3), {Name: proto.String("true"), DataType: proto.Int32(dtBool), Int32Data: []int32{1}}},
		Node: []*onnxpb.NodeProto{
			node("If", []string{"p"}, []string{"sel"}, attrG("then_branch", branch("then", 1)), attrG("else_branch", branch("else", 5))),
			node("Loop", []string{"trips", "true", "sel"}, []string{"sum"}, attrG("body", body)),
			node("Neg", []string{"sum"}, []string{"out"}),
		},
		Output: []*onnxpb.ValueInfoProto{tensorVI("out", onnxpb.TensorProto_FLOAT, 2)},
	}
	out["subgraphs"] = entry{model(sub, 16), false}
	for name, e := range shapeFoldModels() {
		out[name] = e
	}
	return out
}
