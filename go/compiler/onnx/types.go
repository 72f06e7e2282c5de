package onnx

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gree-ml/gree/go/compiler/onnx/onnxpb"
)

// ONNX element type codes (TensorProto.DataType).
const (
	dtUndefined  = int32(onnxpb.TensorProto_UNDEFINED)
	dtFloat      = int32(onnxpb.TensorProto_FLOAT)
	dtUint8      = int32(onnxpb.TensorProto_UINT8)
	dtInt8       = int32(onnxpb.TensorProto_INT8)
	dtUint16     = int32(onnxpb.TensorProto_UINT16)
	dtInt16      = int32(onnxpb.TensorProto_INT16)
	dtInt32      = int32(onnxpb.TensorProto_INT32)
	dtInt64      = int32(onnxpb.TensorProto_INT64)
	dtString     = int32(onnxpb.TensorProto_STRING)
	dtBool       = int32(onnxpb.TensorProto_BOOL)
	dtFloat16    = int32(onnxpb.TensorProto_FLOAT16)
	dtDouble     = int32(onnxpb.TensorProto_DOUBLE)
	dtUint32     = int32(onnxpb.TensorProto_UINT32)
	dtUint64     = int32(onnxpb.TensorProto_UINT64)
	dtComplex64  = int32(onnxpb.TensorProto_COMPLEX64)
	dtComplex128 = int32(onnxpb.TensorProto_COMPLEX128)
	dtBfloat16   = int32(onnxpb.TensorProto_BFLOAT16)
	dtF8E4M3FN   = int32(onnxpb.TensorProto_FLOAT8E4M3FN)
	dtF8E4M3FNUZ = int32(onnxpb.TensorProto_FLOAT8E4M3FNUZ)
	dtF8E5M2     = int32(onnxpb.TensorProto_FLOAT8E5M2)
	dtF8E5M2FNUZ = int32(onnxpb.TensorProto_FLOAT8E5M2FNUZ)
	dtUint4      = int32(onnxpb.TensorProto_UINT4)
	dtInt4       = int32(onnxpb.TensorProto_INT4)
	dtFloat4E2M1 = int32(onnxpb.TensorProto_FLOAT4E2M1)
	dtF8E8M0     = int32(onnxpb.TensorProto_FLOAT8E8M0)
	dtUint2      = int32(onnxpb.TensorProto_UINT2)
	dtInt2       = int32(onnxpb.TensorProto_INT2)
)

// elemInfo describes one ONNX element type: its MLIR spelling (as IREE's
// importer maps it, or MLIR's name for the types IREE's importer does not
// map), its storage size in bytes (0 for types without a byte layout), and
// for packed sub-byte types the bits per element.
type elemInfo struct {
	mlir  string
	bytes int
	bits  int
}

var elemTypes = map[int32]elemInfo{
	dtFloat:      {"f32", 4, 0},
	dtUint8:      {"ui8", 1, 0},
	dtInt8:       {"si8", 1, 0},
	dtUint16:     {"ui16", 2, 0},
	dtInt16:      {"si16", 2, 0},
	dtInt32:      {"si32", 4, 0},
	dtInt64:      {"si64", 8, 0},
	dtBool:       {"i1", 1, 0},
	dtFloat16:    {"f16", 2, 0},
	dtDouble:     {"f64", 8, 0},
	dtUint32:     {"ui32", 4, 0},
	dtUint64:     {"ui64", 8, 0},
	dtComplex64:  {"complex<f32>", 8, 0},
	dtComplex128: {"complex<f64>", 16, 0},
	dtBfloat16:   {"bf16", 2, 0},
	dtF8E4M3FN:   {"f8E4M3FN", 1, 0},
	dtF8E4M3FNUZ: {"f8E4M3FNUZ", 1, 0},
	dtF8E5M2:     {"f8E5M2", 1, 0},
	dtF8E5M2FNUZ: {"f8E5M2FNUZ", 1, 0},
	dtString:     {"!torch.str", 0, 0},
	dtUint4:      {"ui4", 0, 4},
	dtInt4:       {"si4", 0, 4},
	// Not mapped by IREE's importer (which rejects them); MLIR's types.
	dtFloat4E2M1: {"f4E2M1FN", 0, 4},
	dtF8E8M0:     {"f8E8M0FNU", 1, 0},
	dtUint2:      {"ui2", 0, 2},
	dtInt2:       {"si2", 0, 2},
}

// elemName is an ONNX element type's name for messages ("FLOAT", "INT64").
func elemName(dt int32) string {
	if n, ok := onnxpb.TensorProto_DataType_name[dt]; ok {
		return n
	}
	return fmt.Sprintf("data type %d", dt)
}

// mlirElem maps an ONNX element type to its MLIR spelling.
func mlirElem(dt int32) (string, error) {
	if e, ok := elemTypes[dt]; ok {
		return e.mlir, nil
	}
	return "", elemError(dt)
}

// elemError reports an element type the importer has no MLIR type for.
func elemError(dt int32) error {
	if n, ok := onnxpb.TensorProto_DataType_name[dt]; ok {
		return fmt.Errorf("unsupported ONNX tensor element type %s (%d)", n, dt)
	}
	return fmt.Errorf("unsupported ONNX tensor element type %d (not an ONNX type)", dt)
}

// typeKind distinguishes the value types the importer handles.
type typeKind uint8

const (
	kindNone     typeKind = iota // no type information (!torch.none)
	kindTensor                   // !torch.vtensor<[dims],elem>
	kindSequence                 // !torch.list<vtensor<...>>
	kindOptional                 // !torch.optional<...>
)

// unknownDim marks a dynamic dimension ("?").
const unknownDim = int64(-1)

// vtype is a value's type: for tensors the element type and the dimensions
// (unknownDim for dynamic ones); ranked is false when the rank is unknown.
type vtype struct {
	kind   typeKind
	elem   int32
	dims   []int64
	ranked bool
	// inner is the element type of sequences and optionals.
	inner *vtype
}

func tensorType(elem int32, dims []int64) *vtype {
	return &vtype{kind: kindTensor, elem: elem, dims: dims, ranked: true}
}

func (t *vtype) isTensor() bool { return t != nil && t.kind == kindTensor }

// static reports whether every dimension is known.
func (t *vtype) static() bool {
	if !t.isTensor() || !t.ranked {
		return false
	}
	for _, d := range t.dims {
		if d < 0 {
			return false
		}
	}
	return true
}

func (t *vtype) numElements() int64 {
	n := int64(1)
	for _, d := range t.dims {
		n *= d
	}
	return n
}

func dimsAsm(dims []int64) string {
	parts := make([]string, len(dims))
	for i, d := range dims {
		if d < 0 {
			parts[i] = "?"
		} else {
			parts[i] = strconv.FormatInt(d, 10)
		}
	}
	return strings.Join(parts, ",")
}

// innerAsm spells a type without the "!torch." prefix, as IREE's importer
// spells sequence and optional element types.
func (t *vtype) innerAsm() (string, error) {
	switch t.kind {
	case kindTensor:
		e, err := mlirElem(t.elem)
		if err != nil {
			return "", err
		}
		return "vtensor<[" + dimsAsm(t.dims) + "]," + e + ">", nil
	case kindSequence:
		s, err := t.inner.innerAsm()
		if err != nil {
			return "", err
		}
		return "list<" + s + ">", nil
	}
	return "", fmt.Errorf("unsupported ONNX type inside a sequence or optional")
}

// asm spells the type as IREE's importer prints it. An unranked tensor
// prints with no dimensions, as IREE's importer prints it.
func (t *vtype) asm() (string, error) {
	if t == nil {
		return "!torch.none", nil
	}
	switch t.kind {
	case kindNone:
		return "!torch.none", nil
	case kindTensor:
		e, err := mlirElem(t.elem)
		if err != nil {
			return "", err
		}
		return "!torch.vtensor<[" + dimsAsm(t.dims) + "]," + e + ">", nil
	case kindSequence:
		s, err := t.inner.innerAsm()
		if err != nil {
			return "", err
		}
		return "!torch.list<" + s + ">", nil
	case kindOptional:
		s, err := t.inner.innerAsm()
		if err != nil {
			return "", err
		}
		return "!torch.optional<" + s + ">", nil
	}
	return "", fmt.Errorf("unsupported ONNX type")
}

// builtinTensorAsm spells the builtin tensor type of a literal:
// tensor<2x3xf32>, tensor<si64> for a scalar.
func builtinTensorAsm(elem int32, dims []int64) (string, error) {
	e, err := mlirElem(elem)
	if err != nil {
		return "", err
	}
	return "tensor<" + builtinDims(dims) + e + ">", nil
}

// builtinDims spells static dimensions as a builtin shaped type's prefix:
// "2x3x" ("" for a scalar).
func builtinDims(dims []int64) string {
	var b strings.Builder
	for _, d := range dims {
		b.WriteString(strconv.FormatInt(d, 10))
		b.WriteByte('x')
	}
	return b.String()
}

// fromTypeProto converts an ONNX TypeProto (nil: no information).
func fromTypeProto(tp *onnxpb.TypeProto) (*vtype, error) {
	if tp == nil {
		return nil, nil
	}
	if tt := tp.GetTensorType(); tt != nil && tt.GetElemType() != 0 {
		t := &vtype{kind: kindTensor, elem: tt.GetElemType()}
		if _, err := mlirElem(t.elem); err != nil {
			return nil, err
		}
		if tt.Shape != nil {
			t.ranked = true
		}
		for _, d := range tt.GetShape().GetDim() {
			if v, ok := d.GetValue().(*onnxpb.TensorShapeProto_Dimension_DimValue); ok {
				t.dims = append(t.dims, v.DimValue)
			} else {
				t.dims = append(t.dims, unknownDim)
			}
		}
		if t.dims == nil {
			t.dims = []int64{}
		}
		return t, nil
	}
	if st := tp.GetSequenceType(); st != nil {
		inner, err := fromTypeProto(st.GetElemType())
		if err != nil {
			return nil, err
		}
		if !inner.isTensor() {
			return nil, fmt.Errorf("unsupported list element type")
		}
		return &vtype{kind: kindSequence, inner: inner}, nil
	}
	if ot := tp.GetOptionalType(); ot != nil {
		inner, err := fromTypeProto(ot.GetElemType())
		if err != nil {
			return nil, err
		}
		if inner == nil || (inner.kind != kindTensor && inner.kind != kindSequence) {
			return nil, fmt.Errorf("unsupported optional element type")
		}
		return &vtype{kind: kindOptional, inner: inner}, nil
	}
	if tp.GetValue() == nil {
		return &vtype{kind: kindNone}, nil
	}
	return nil, fmt.Errorf("unsupported ONNX TypeProto (map and sparse tensor types are not supported)")
}

// mergeTypes merges a declared type with an inferred one, as ONNX shape
// inference does: declared dimensions win, unknown ones take the inferred
// value; a declared type of unknown rank takes the inferred shape.
func mergeTypes(declared, inferred *vtype) *vtype {
	if declared == nil || declared.kind == kindNone {
		return inferred
	}
	if inferred != nil && declared.kind == kindSequence && inferred.kind == kindSequence {
		if in := mergeTypes(declared.inner, inferred.inner); in != nil {
			return &vtype{kind: kindSequence, inner: in}
		}
		return declared
	}
	if inferred == nil || !declared.isTensor() || !inferred.isTensor() {
		return declared
	}
	if !declared.ranked {
		if inferred.ranked {
			return &vtype{kind: kindTensor, elem: declared.elem, dims: inferred.dims, ranked: true}
		}
		return declared
	}
	if !inferred.ranked || len(inferred.dims) != len(declared.dims) {
		return declared
	}
	out := &vtype{kind: kindTensor, elem: declared.elem, ranked: true, dims: make([]int64, len(declared.dims))}
	for i, d := range declared.dims {
		if d < 0 {
			d = inferred.dims[i]
		}
		out.dims[i] = d
	}
	return out
}
