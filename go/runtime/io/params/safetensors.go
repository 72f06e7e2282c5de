package params

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/gree-ml/gree/go/status"
)

// Safetensors layout: a u64 little-endian header length N, N bytes of
// JSON — an object mapping each tensor's name to {"dtype", "shape",
// "data_offsets": [begin, end)} and an optional "__metadata__" object of
// strings — then the data, offsets relative to its start (byte 8+N).

// SafetensorsDTypeSizes gives the byte size of each safetensors dtype.
var SafetensorsDTypeSizes = map[string]uint64{
	"BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1, "F8_E4M3FN": 1, "F8_E8M0": 1,
	"I16": 2, "U16": 2, "F16": 2, "BF16": 2,
	"I32": 4, "U32": 4, "F32": 4,
	"I64": 8, "U64": 8, "F64": 8,
}

type safetensorsInfo struct {
	DType       string    `json:"dtype"`
	Shape       []int64   `json:"shape"`
	DataOffsets [2]uint64 `json:"data_offsets"`
}

func parseSafetensors(data []byte) ([]*Entry, map[string]string, error) {
	if len(data) < 8 {
		return nil, nil, corrupt("the file is truncated: %d bytes, smaller than the 8-byte header length", len(data))
	}
	n := binary.LittleEndian.Uint64(data)
	if n > uint64(len(data)-8) {
		return nil, nil, corrupt("the JSON header is %d bytes but only %d follow the length (truncated?)", n, len(data)-8)
	}
	start := 8 + n
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data[8:start]))
	if err := dec.Decode(&raw); err != nil {
		return nil, nil, corrupt("the JSON header does not parse: %v", err)
	}
	var meta map[string]string
	if m, ok := raw["__metadata__"]; ok {
		if err := json.Unmarshal(m, &meta); err != nil {
			return nil, nil, corrupt("__metadata__ is not an object of strings: %v", err)
		}
		delete(raw, "__metadata__")
	}
	body := uint64(len(data)) - start
	entries := make([]*Entry, 0, len(raw))
	for name, msg := range raw {
		var ti safetensorsInfo
		d := json.NewDecoder(bytes.NewReader(msg))
		d.DisallowUnknownFields()
		if err := d.Decode(&ti); err != nil {
			return nil, nil, corrupt("tensor '%s': %v", name, err)
		}
		es, ok := SafetensorsDTypeSizes[ti.DType]
		if !ok {
			return nil, nil, status.Errorf(status.Unimplemented, "tensor '%s': unknown dtype %q", name, ti.DType)
		}
		count := uint64(1)
		for _, d := range ti.Shape {
			if d < 0 || (d > 0 && count > (1<<62)/uint64(d)/es) {
				return nil, nil, corrupt("tensor '%s': invalid shape %v", name, ti.Shape)
			}
			count *= uint64(d)
		}
		b, e := ti.DataOffsets[0], ti.DataOffsets[1]
		if b > e || e > body {
			return nil, nil, corrupt("tensor '%s': data_offsets [%d, %d) lie outside the %d bytes of data (truncated?)", name, b, e, body)
		}
		if e-b != count*es {
			return nil, nil, corrupt("tensor '%s': data_offsets [%d, %d) hold %d bytes, but %s%v needs %d", name, b, e, e-b, ti.DType, ti.Shape, count*es)
		}
		entries = append(entries, &Entry{Key: name, Kind: StorageFile, Offset: start + b, Length: e - b, DType: ti.DType, Shape: ti.Shape})
	}
	sort.Slice(entries, func(i, j int) bool {
		if entries[i].Offset != entries[j].Offset {
			return entries[i].Offset < entries[j].Offset
		}
		return entries[i].Key < entries[j].Key
	})
	return entries, meta, nil
}

// SafetensorsTensor is one tensor for WriteSafetensors.
type SafetensorsTensor struct {
	Name  string
	DType string
	Shape []int64
	Data  []byte
}

// EncodeSafetensors returns a .safetensors file holding tensors in order
// (the header padded with spaces to 8 bytes, as the reference writer does).
func EncodeSafetensors(tensors []SafetensorsTensor, metadata map[string]string) ([]byte, error) {
	var hdr bytes.Buffer
	hdr.WriteByte('{')
	first := true
	if len(metadata) > 0 {
		m, _ := json.Marshal(metadata)
		fmt.Fprintf(&hdr, "%q:%s", "__metadata__", m)
		first = false
	}
	off := uint64(0)
	for _, t := range tensors {
		if !first {
			hdr.WriteByte(',')
		}
		first = false
		name, _ := json.Marshal(t.Name)
		shape := t.Shape
		if shape == nil {
			shape = []int64{}
		}
		info, _ := json.Marshal(safetensorsInfo{DType: t.DType, Shape: shape, DataOffsets: [2]uint64{off, off + uint64(len(t.Data))}})
		fmt.Fprintf(&hdr, "%s:%s", name, info)
		off += uint64(len(t.Data))
	}
	hdr.WriteByte('}')
	for hdr.Len()%8 != 0 {
		hdr.WriteByte(' ')
	}
	out := binary.LittleEndian.AppendUint64(nil, uint64(hdr.Len()))
	out = append(out, hdr.Bytes()...)
	for _, t := range tensors {
		out = append(out, t.Data...)
	}
	if _, _, err := parseSafetensors(out); err != nil {
		return nil, err
	}
	return out, nil
}
