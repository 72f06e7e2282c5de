package onnx

import (
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/gree-ml/gree/go/compiler/onnx/onnxpb"
)

// Field numbers of the messages ParseModelAliased looks into.
const (
	fieldModelGraph       = 7 // ModelProto.graph
	fieldGraphInitializer = 5 // GraphProto.initializer
	fieldTensorRawData    = 9 // TensorProto.raw_data
)

// aliasFromBytes is the model size from which ParseModelAliased aliases
// the weights (below it, the plain decode's copy costs nothing worth a
// second pass).
const aliasFromBytes = 1 << 20

// ParseModelAliased is ParseModel whose main-graph initializers' raw_data
// are slices of data rather than copies (protobuf decoding copies every
// bytes field, which held a model's weights twice while it was imported).
// data must outlive the model and must not change. Malformed input is
// decoded (and reported) as ParseModel does.
func ParseModelAliased(data []byte, name string) (*onnxpb.ModelProto, error) {
	if len(data) < aliasFromBytes {
		return ParseModel(data, name)
	}
	stripped, raws, ok := stripRawData(data)
	if !ok {
		return ParseModel(data, name)
	}
	m, err := ParseModel(stripped, name)
	if err != nil {
		return nil, err
	}
	inits := m.GetGraph().GetInitializer()
	if len(inits) != len(raws) {
		// Not the layout the scan assumed: decode the plain way.
		return ParseModel(data, name)
	}
	for i, raw := range raws {
		if raw != nil {
			inits[i].RawData = raw
		}
	}
	return m, nil
}

// stripRawData returns data without the raw_data fields of the main
// graph's initializers, and those fields' bytes (slices of data; nil for
// an initializer without raw_data) in the order the decoder appends the
// initializers. ok is false when data is not a well-formed message.
func stripRawData(data []byte) (out []byte, raws [][]byte, ok bool) {
	out = make([]byte, 0, 1<<16)
	ok = eachField(data, func(num protowire.Number, typ protowire.Type, field, value []byte) bool {
		if num != fieldModelGraph || typ != protowire.BytesType {
			out = append(out, field...)
			return true
		}
		graph := make([]byte, 0, 1<<16)
		good := eachField(value, func(num protowire.Number, typ protowire.Type, field, value []byte) bool {
			if num != fieldGraphInitializer || typ != protowire.BytesType {
				graph = append(graph, field...)
				return true
			}
			var raw []byte
			tensor := make([]byte, 0, 256)
			good := eachField(value, func(num protowire.Number, typ protowire.Type, field, value []byte) bool {
				if num == fieldTensorRawData && typ == protowire.BytesType {
					raw = value // the last occurrence wins, as in decoding
					return true
				}
				tensor = append(tensor, field...)
				return true
			})
			raws = append(raws, raw)
			graph = protowire.AppendTag(graph, fieldGraphInitializer, protowire.BytesType)
			graph = protowire.AppendBytes(graph, tensor)
			return good
		})
		out = protowire.AppendTag(out, fieldModelGraph, protowire.BytesType)
		out = protowire.AppendBytes(out, graph)
		return good
	})
	return out, raws, ok
}

// eachField calls f for every field of the message in data: its number,
// wire type, whole encoding and (for length-delimited fields) its payload.
// It returns false on malformed input or when f does.
func eachField(data []byte, f func(num protowire.Number, typ protowire.Type, field, value []byte) bool) bool {
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 {
			return false
		}
		m := protowire.ConsumeFieldValue(num, typ, data[n:])
		if m < 0 {
			return false
		}
		var value []byte
		if typ == protowire.BytesType {
			value, _ = protowire.ConsumeBytes(data[n:])
		}
		if !f(num, typ, data[:n+m], value) {
			return false
		}
		data = data[n+m:]
	}
	return true
}
