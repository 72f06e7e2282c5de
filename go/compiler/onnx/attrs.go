package onnx

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/onnx/onnxpb"
)

// hexElementsThreshold: MLIR prints non-splat dense literals with more
// elements than this as a hex string.
const hexElementsThreshold = 100

// namedAttr is one printed attribute: key = value.
type namedAttr struct {
	key, value string
}

func sortAttrs(attrs []namedAttr) {
	sort.SliceStable(attrs, func(i, j int) bool { return attrs[i].key < attrs[j].key })
}

// escapeString quotes s as MLIR's printer does: printable ASCII as is
// except '"' and '\', everything else as \XX.
func escapeString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			b.WriteString(`\\`)
		case c == '"' || c < 0x20 || c >= 0x7F:
			fmt.Fprintf(&b, "\\%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// isBareIdentifier reports whether MLIR prints s unquoted as an attribute
// name or symbol: [a-zA-Z_][a-zA-Z0-9_$.]*.
func isBareIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
		if i == 0 && !letter {
			return false
		}
		if !letter && !(c >= '0' && c <= '9') && c != '$' && c != '.' {
			return false
		}
	}
	return true
}

func keyOrString(s string) string {
	if isBareIdentifier(s) {
		return s
	}
	return escapeString(s)
}

// sanitizeBlobName turns a tensor name into a resource key as IREE's
// importer does: "_" in front of a name that is not an identifier, then
// every character other than a word character or '.' becomes '_'.
func sanitizeBlobName(name string) string {
	ident := name != ""
	for i, r := range name {
		if i == 0 && !(unicode.IsLetter(r) || r == '_') || !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_') {
			ident = false
			break
		}
	}
	if !ident {
		name = "_" + name
	}
	var b strings.Builder
	for _, r := range name {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '.' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// resources collects the dense_resource blobs of a module in creation
// order, uniquing their keys as MLIR's blob manager does (name_1, name_2…).
type resources struct {
	keys []string
	data map[string][]byte
	// detached: write prints nothing; builtin hands the blobs over.
	detached bool
}

// blobAlignment is the alignment the blobs declare ("0x08000000").
const blobAlignment = 8

// builtin returns the blobs as defined builtin resources, in creation
// order, sharing their bytes.
func (r *resources) builtin() []*ir.Resource {
	out := make([]*ir.Resource, len(r.keys))
	for i, k := range r.keys {
		out[i] = &ir.Resource{Dialect: "builtin", Key: k, Blob: r.data[k], Alignment: blobAlignment, Defined: true}
	}
	return out
}

func (r *resources) add(name string, data []byte) string {
	if r.data == nil {
		r.data = map[string][]byte{}
	}
	key := name
	for n := 1; ; n++ {
		if _, used := r.data[key]; !used {
			break
		}
		key = name + "_" + strconv.Itoa(n)
	}
	r.keys = append(r.keys, key)
	r.data[key] = data
	return key
}

// write prints the dialect_resources section (nothing when empty).
func (r *resources) write(b *strings.Builder) {
	if len(r.keys) == 0 || r.detached {
		return
	}
	size := 0
	for _, k := range r.keys {
		size += 2*len(r.data[k]) + len(k) + 32
	}
	b.Grow(size + 64)
	b.WriteString("\n{-#\n  dialect_resources: {\n    builtin: {\n")
	var buf []byte
	for i, k := range r.keys {
		b.WriteString("      ")
		b.WriteString(keyOrString(k))
		b.WriteString(": \"0x08000000")
		buf = upperHex(buf[:0], r.data[k])
		b.Write(buf)
		b.WriteByte('"')
		if i < len(r.keys)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("    }\n  }\n#-}\n")
}

// upperHex appends the upper-case hex digits of data to dst (MLIR's
// spelling of resource blobs), without the copies of hex.EncodeToString
// and strings.ToUpper.
func upperHex(dst, data []byte) []byte {
	const digits = "0123456789ABCDEF"
	n := len(dst)
	dst = slices.Grow(dst, 2*len(data))[:n+2*len(data)]
	for i, c := range data {
		dst[n+2*i], dst[n+2*i+1] = digits[c>>4], digits[c&15]
	}
	return dst
}

// smallFloatSems are the semantics of the narrow float types.
var smallFloatSems = map[int32]*floatSem{
	dtFloat16:    kindSem(ir.KindF16, 11, 16),
	dtBfloat16:   kindSem(ir.KindBF16, 8, 16),
	dtF8E4M3FN:   kindSem(ir.KindF8E4M3FN, 4, 8),
	dtF8E4M3FNUZ: kindSem(ir.KindF8E4M3FNUZ, 4, 8),
	dtF8E5M2:     kindSem(ir.KindF8E5M2, 3, 8),
	dtF8E5M2FNUZ: kindSem(ir.KindF8E5M2FNUZ, 3, 8),
}

var (
	semF4E2M1 = kindSem(ir.KindF4E2M1FN, 2, 4)
	semF8E8M0 = kindSem(ir.KindF8E8M0FNU, 1, 8)
)

// unpackElem reads element i of a packed sub-byte tensor.
func unpackElem(d []byte, i, bits int) byte {
	return (d[i*bits/8] >> ((i * bits) % 8)) & byte(1<<bits-1)
}

func kindSem(k ir.FloatKind, precision, width int) *floatSem {
	return &floatSem{precision, width,
		func(b uint64) float64 { v, _ := ir.FloatFromBits(k, b); return v },
		func(v float64) uint64 { b, _ := ir.FloatToBits(k, v); return b }}
}

// elementStrings prints each element of t as MLIR prints it.
func elementStrings(t *tensor) ([]string, error) {
	n := int(t.numElements())
	out := make([]string, n)
	d := t.data
	switch t.elem {
	case dtFloat:
		for i := range out {
			out[i] = formatMLIRFloat(semF32, uint64(binary.LittleEndian.Uint32(d[4*i:])))
		}
	case dtDouble:
		for i := range out {
			out[i] = formatMLIRFloat(semF64, binary.LittleEndian.Uint64(d[8*i:]))
		}
	case dtComplex64:
		for i := range out {
			out[i] = "(" + formatMLIRFloat(semF32, uint64(binary.LittleEndian.Uint32(d[8*i:]))) + "," + formatMLIRFloat(semF32, uint64(binary.LittleEndian.Uint32(d[8*i+4:]))) + ")"
		}
	case dtComplex128:
		for i := range out {
			out[i] = "(" + formatMLIRFloat(semF64, binary.LittleEndian.Uint64(d[16*i:])) + "," + formatMLIRFloat(semF64, binary.LittleEndian.Uint64(d[16*i+8:])) + ")"
		}
	case dtFloat16, dtBfloat16:
		sem := smallFloatSems[t.elem]
		for i := range out {
			out[i] = formatMLIRFloat(sem, uint64(binary.LittleEndian.Uint16(d[2*i:])))
		}
	case dtF8E4M3FN, dtF8E4M3FNUZ, dtF8E5M2, dtF8E5M2FNUZ:
		sem := smallFloatSems[t.elem]
		for i := range out {
			out[i] = formatMLIRFloat(sem, uint64(d[i]))
		}
	case dtBool:
		for i := range out {
			out[i] = strconv.FormatBool(d[i] != 0)
		}
	case dtInt8:
		for i := range out {
			out[i] = strconv.Itoa(int(int8(d[i])))
		}
	case dtUint8:
		for i := range out {
			out[i] = strconv.Itoa(int(d[i]))
		}
	case dtInt16:
		for i := range out {
			out[i] = strconv.Itoa(int(int16(binary.LittleEndian.Uint16(d[2*i:]))))
		}
	case dtUint16:
		for i := range out {
			out[i] = strconv.Itoa(int(binary.LittleEndian.Uint16(d[2*i:])))
		}
	case dtInt32:
		for i := range out {
			out[i] = strconv.Itoa(int(int32(binary.LittleEndian.Uint32(d[4*i:]))))
		}
	case dtUint32:
		for i := range out {
			out[i] = strconv.FormatUint(uint64(binary.LittleEndian.Uint32(d[4*i:])), 10)
		}
	case dtInt64:
		for i := range out {
			out[i] = strconv.FormatInt(int64(binary.LittleEndian.Uint64(d[8*i:])), 10)
		}
	case dtUint64:
		for i := range out {
			out[i] = strconv.FormatUint(binary.LittleEndian.Uint64(d[8*i:]), 10)
		}
	case dtInt4, dtUint4, dtInt2, dtUint2:
		bits := elemTypes[t.elem].bits
		for i := range out {
			v := int(unpackElem(d, i, bits))
			if (t.elem == dtInt4 || t.elem == dtInt2) && v >= 1<<(bits-1) {
				v -= 1 << bits
			}
			out[i] = strconv.Itoa(v)
		}
	case dtFloat4E2M1:
		for i := range out {
			out[i] = formatMLIRFloat(semF4E2M1, uint64(unpackElem(d, i, 4)))
		}
	case dtF8E8M0:
		for i := range out {
			out[i] = formatMLIRFloat(semF8E8M0, uint64(d[i]))
		}
	default:
		return nil, fmt.Errorf("unhandled ONNX TensorProto data of type %s", elemName(t.elem))
	}
	return out, nil
}

// denseLiteral prints an inline dense<...> literal with its tensor type.
func denseLiteral(t *tensor) (string, error) {
	ty, err := builtinTensorAsm(t.elem, t.dims)
	if err != nil {
		return "", err
	}
	n := int(t.numElements())
	if n == 0 {
		return "dense<> : " + ty, nil
	}
	elems, err := elementStrings(t)
	if err != nil {
		return "", err
	}
	splat := true
	for _, e := range elems[1:] {
		if e != elems[0] {
			splat = false
			break
		}
	}
	if splat {
		// Distinct bit patterns that print alike (NaN payloads) are not a
		// splat in MLIR, but print as one here; harmless.
		return "dense<" + elems[0] + "> : " + ty, nil
	}
	if n > hexElementsThreshold {
		raw := t.data
		if bits := elemTypes[t.elem].bits; bits > 0 {
			// MLIR stores sub-byte elements one per byte.
			raw = make([]byte, n)
			for i := range raw {
				raw[i] = unpackElem(t.data, i, bits)
			}
		}
		return "dense<\"0x" + strings.ToUpper(hex.EncodeToString(raw)) + "\"> : " + ty, nil
	}
	var b strings.Builder
	b.WriteString("dense<")
	var rec func(dim int, off int) int
	rec = func(dim, off int) int {
		if dim == len(t.dims) {
			b.WriteString(elems[off])
			return off + 1
		}
		b.WriteByte('[')
		for i := int64(0); i < t.dims[dim]; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			off = rec(dim+1, off)
		}
		b.WriteByte(']')
		return off
	}
	rec(0, 0)
	b.WriteString("> : ")
	b.WriteString(ty)
	return b.String(), nil
}

// tensorAttr prints a tensor literal: dense_resource for raw_data tensors
// (registering the blob), dense otherwise.
func tensorAttr(t *tensor, res *resources) (string, error) {
	if t.fromRaw {
		ty, err := builtinTensorAsm(t.elem, t.dims)
		if err != nil {
			return "", err
		}
		key := res.add(sanitizeBlobName(t.name), t.data)
		return "dense_resource<" + keyOrString(key) + "> : " + ty, nil
	}
	return denseLiteral(t)
}

func f32Attr(v float32) string {
	return formatMLIRFloat(semF32, uint64(math.Float32bits(v))) + " : f32"
}

// attrValue prints one ONNX node attribute as IREE's importer does; ok is
// false for attributes that are not printed (subgraphs).
func attrValue(a *onnxpb.AttributeProto, res *resources) (string, bool, error) {
	switch a.GetType() {
	case onnxpb.AttributeProto_FLOAT:
		return f32Attr(a.GetF()), true, nil
	case onnxpb.AttributeProto_INT:
		return strconv.FormatInt(a.GetI(), 10) + " : si64", true, nil
	case onnxpb.AttributeProto_STRING:
		return escapeString(string(a.GetS())), true, nil
	case onnxpb.AttributeProto_TENSOR:
		t, err := decodeTensor(a.GetT())
		if err != nil {
			return "", false, err
		}
		s, err := tensorAttr(t, res)
		return s, err == nil, err
	case onnxpb.AttributeProto_GRAPH:
		return "", false, nil
	case onnxpb.AttributeProto_FLOATS:
		parts := make([]string, len(a.GetFloats()))
		for i, f := range a.GetFloats() {
			parts[i] = f32Attr(f)
		}
		return "[" + strings.Join(parts, ", ") + "]", true, nil
	case onnxpb.AttributeProto_INTS:
		parts := make([]string, len(a.GetInts()))
		for i, v := range a.GetInts() {
			parts[i] = strconv.FormatInt(v, 10) + " : si64"
		}
		return "[" + strings.Join(parts, ", ") + "]", true, nil
	case onnxpb.AttributeProto_STRINGS:
		parts := make([]string, len(a.GetStrings()))
		for i, s := range a.GetStrings() {
			parts[i] = escapeString(string(s))
		}
		return "[" + strings.Join(parts, ", ") + "]", true, nil
	case onnxpb.AttributeProto_TENSORS:
		parts := make([]string, len(a.GetTensors()))
		for i, tp := range a.GetTensors() {
			t, err := decodeTensor(tp)
			if err != nil {
				return "", false, err
			}
			if parts[i], err = tensorAttr(t, res); err != nil {
				return "", false, err
			}
		}
		return "[" + strings.Join(parts, ", ") + "]", true, nil
	}
	name := onnxpb.AttributeProto_AttributeType_name[int32(a.GetType())]
	if name == "" {
		name = "UNKNOWN"
	}
	return "", false, fmt.Errorf("ONNX importer does not support generic node attribute type %s with ID %d (attribute '%s')", name, int32(a.GetType()), a.GetName())
}
