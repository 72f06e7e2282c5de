package params

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/gree-ml/gree/go/status"
)

// GGUF (v2 and v3) layout, little-endian: "GGUF", u32 version, u64 tensor
// count, u64 key/value count; each key/value is a string key, a u32 value
// type and the value; each tensor info is a string name, u32 rank, u64
// dims (innermost first), u32 ggml type and u64 offset from the start of
// the data, which begins at the end of the tensor infos rounded up to the
// alignment (the general.alignment value, default 32). A string is a u64
// length and bytes.
const (
	ggufMagic            = "GGUF"
	ggufDefaultAlignment = 32
)

// GGUF metadata value types.
const (
	ggufU8 = iota
	ggufI8
	ggufU16
	ggufI16
	ggufU32
	ggufI32
	ggufF32
	ggufBool
	ggufString
	ggufArray
	ggufU64
	ggufI64
	ggufF64
)

var ggufScalarSizes = [...]int{ggufU8: 1, ggufI8: 1, ggufU16: 2, ggufI16: 2, ggufU32: 4, ggufI32: 4, ggufF32: 4, ggufBool: 1, ggufU64: 8, ggufI64: 8, ggufF64: 8}

// GGMLType describes a ggml tensor type: elements per block and bytes per
// block.
type GGMLType struct {
	Name         string
	Block, Bytes uint64
}

// GGMLTypes are the ggml tensor types GGUF files use, by number.
var GGMLTypes = map[uint32]GGMLType{
	0: {"F32", 1, 4}, 1: {"F16", 1, 2}, 2: {"Q4_0", 32, 18}, 3: {"Q4_1", 32, 20},
	6: {"Q5_0", 32, 22}, 7: {"Q5_1", 32, 24}, 8: {"Q8_0", 32, 34}, 9: {"Q8_1", 32, 36},
	10: {"Q2_K", 256, 84}, 11: {"Q3_K", 256, 110}, 12: {"Q4_K", 256, 144}, 13: {"Q5_K", 256, 176},
	14: {"Q6_K", 256, 210}, 15: {"Q8_K", 256, 292}, 16: {"IQ2_XXS", 256, 66}, 17: {"IQ2_XS", 256, 74},
	18: {"IQ3_XXS", 256, 98}, 19: {"IQ1_S", 256, 50}, 20: {"IQ4_NL", 32, 18}, 21: {"IQ3_S", 256, 110},
	22: {"IQ2_S", 256, 82}, 23: {"IQ4_XS", 256, 136}, 24: {"I8", 1, 1}, 25: {"I16", 1, 2},
	26: {"I32", 1, 4}, 27: {"I64", 1, 8}, 28: {"F64", 1, 8}, 29: {"IQ1_M", 256, 56},
	30: {"BF16", 1, 2}, 34: {"TQ1_0", 256, 54}, 35: {"TQ2_0", 256, 66},
}

type ggufReader struct {
	b   []byte
	off uint64
	err error
}

func (r *ggufReader) take(n uint64, what string) []byte {
	if r.err != nil {
		return nil
	}
	if !inFile(r.off, n, uint64(len(r.b))) {
		r.err = corrupt("the file is truncated reading %s at offset %d (%d bytes wanted, %d left)", what, r.off, n, uint64(len(r.b))-min(r.off, uint64(len(r.b))))
		return nil
	}
	s := r.b[r.off : r.off+n]
	r.off += n
	return s
}

func (r *ggufReader) u32(what string) uint32 {
	if s := r.take(4, what); s != nil {
		return binary.LittleEndian.Uint32(s)
	}
	return 0
}

func (r *ggufReader) u64(what string) uint64 {
	if s := r.take(8, what); s != nil {
		return binary.LittleEndian.Uint64(s)
	}
	return 0
}

func (r *ggufReader) str(what string) string {
	n := r.u64(what)
	return string(r.take(n, what))
}

// value reads a value of type t as text (arrays of more than 8 elements
// are summarized).
func (r *ggufReader) value(t uint32, what string, depth int) string {
	switch {
	case t == ggufString:
		return r.str(what)
	case t == ggufArray:
		if depth > 4 {
			r.err = corrupt("%s: arrays nest too deeply", what)
			return ""
		}
		et, n := r.u32(what), r.u64(what)
		if r.err != nil {
			return ""
		}
		if et < uint32(len(ggufScalarSizes)) && et != ggufString && et != ggufArray {
			sz := uint64(ggufScalarSizes[et])
			if n > (uint64(len(r.b))-r.off)/sz {
				r.err = corrupt("%s: an array of %d elements runs past the end of the file", what, n)
				return ""
			}
		} else if et != ggufString && et != ggufArray {
			r.err = corrupt("%s: unknown array element type %d", what, et)
			return ""
		} else if n > (uint64(len(r.b))-r.off)/8 {
			r.err = corrupt("%s: an array of %d elements runs past the end of the file", what, n)
			return ""
		}
		var parts []string
		for i := uint64(0); i < n && r.err == nil; i++ {
			v := r.value(et, what, depth+1)
			if i < 8 {
				parts = append(parts, v)
			}
		}
		if n > 8 {
			parts = append(parts, fmt.Sprintf("… (%d elements)", n))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case t < uint32(len(ggufScalarSizes)):
		s := r.take(uint64(ggufScalarSizes[t]), what)
		if s == nil {
			return ""
		}
		switch t {
		case ggufU8:
			return fmt.Sprint(s[0])
		case ggufI8:
			return fmt.Sprint(int8(s[0]))
		case ggufU16:
			return fmt.Sprint(binary.LittleEndian.Uint16(s))
		case ggufI16:
			return fmt.Sprint(int16(binary.LittleEndian.Uint16(s)))
		case ggufU32:
			return fmt.Sprint(binary.LittleEndian.Uint32(s))
		case ggufI32:
			return fmt.Sprint(int32(binary.LittleEndian.Uint32(s)))
		case ggufF32:
			return fmt.Sprint(math.Float32frombits(binary.LittleEndian.Uint32(s)))
		case ggufBool:
			return fmt.Sprint(s[0] != 0)
		case ggufU64:
			return fmt.Sprint(binary.LittleEndian.Uint64(s))
		case ggufI64:
			return fmt.Sprint(int64(binary.LittleEndian.Uint64(s)))
		case ggufF64:
			return fmt.Sprint(math.Float64frombits(binary.LittleEndian.Uint64(s)))
		}
	}
	r.err = corrupt("%s: unknown value type %d", what, t)
	return ""
}

func parseGGUF(data []byte) ([]*Entry, map[string]string, error) {
	r := &ggufReader{b: data}
	if string(r.take(4, "the magic")) != ggufMagic {
		if r.err != nil {
			return nil, nil, r.err
		}
		return nil, nil, status.Errorf(status.InvalidArgument, "magic is not %q", ggufMagic)
	}
	version := r.u32("the version")
	if r.err == nil && version != 2 && version != 3 {
		return nil, nil, status.Errorf(status.Unimplemented, "GGUF version %d; gree reads versions 2 and 3", version)
	}
	nt, nkv := r.u64("the tensor count"), r.u64("the key/value count")
	if r.err != nil {
		return nil, nil, r.err
	}
	// Each key/value needs at least 12 bytes and each tensor info 24.
	if nkv > uint64(len(data))/12 || nt > uint64(len(data))/24 {
		return nil, nil, corrupt("%d keys and %d tensors cannot fit in a %d-byte file", nkv, nt, len(data))
	}
	meta := make(map[string]string, nkv)
	align := uint64(ggufDefaultAlignment)
	for i := uint64(0); i < nkv && r.err == nil; i++ {
		key := r.str(fmt.Sprintf("key %d", i))
		t := r.u32(fmt.Sprintf("key '%s'", key))
		if r.err != nil {
			break
		}
		at := r.off
		meta[key] = r.value(t, fmt.Sprintf("key '%s'", key), 0)
		if key == "general.alignment" && r.err == nil {
			if t != ggufU32 {
				return nil, nil, corrupt("general.alignment has value type %d, want u32", t)
			}
			align = uint64(binary.LittleEndian.Uint32(data[at:]))
			if align == 0 || align&(align-1) != 0 {
				return nil, nil, corrupt("general.alignment %d is not a power of two", align)
			}
		}
	}
	if r.err != nil {
		return nil, nil, r.err
	}
	type info struct {
		e   *Entry
		off uint64
	}
	infos := make([]info, 0, nt)
	for i := uint64(0); i < nt && r.err == nil; i++ {
		name := r.str(fmt.Sprintf("tensor %d's name", i))
		what := fmt.Sprintf("tensor %d ('%s')", i, name)
		rank := r.u32(what)
		if r.err == nil && rank > 8 {
			return nil, nil, corrupt("%s has rank %d (at most 8)", what, rank)
		}
		shape := make([]int64, rank)
		count := uint64(1)
		for j := range shape {
			d := r.u64(what)
			if d > math.MaxInt64 || (d > 0 && count > (1<<62)/d) {
				return nil, nil, corrupt("%s: dimension %d is too large", what, d)
			}
			count *= d
			shape[rank-1-uint32(j)] = int64(d) // GGUF lists the innermost first
		}
		gt := r.u32(what)
		off := r.u64(what)
		if r.err != nil {
			break
		}
		ty, ok := GGMLTypes[gt]
		if !ok {
			return nil, nil, status.Errorf(status.Unimplemented, "%s has unknown ggml type %d", what, gt)
		}
		if count%ty.Block != 0 {
			return nil, nil, corrupt("%s: %d elements are not whole %s blocks of %d", what, count, ty.Name, ty.Block)
		}
		if off%align != 0 {
			return nil, nil, corrupt("%s: data offset %d is not %d-byte aligned", what, off, align)
		}
		infos = append(infos, info{&Entry{Key: name, Kind: StorageFile, Length: count / ty.Block * ty.Bytes, DType: ty.Name, Shape: shape}, off})
	}
	if r.err != nil {
		return nil, nil, r.err
	}
	start := alignUp(r.off, align)
	size := uint64(len(data))
	entries := make([]*Entry, len(infos))
	for i, in := range infos {
		e := in.e
		if start > size || !inFile(in.off, e.Length, size-start) {
			return nil, nil, corrupt("tensor %d ('%s'): data [%d, +%d) lies outside the file's %d bytes of data (truncated?)", i, e.Key, in.off, e.Length, size-min(start, size))
		}
		e.Offset = start + in.off
		entries[i] = e
	}
	return entries, meta, nil
}

// GGUFTensor is one tensor for EncodeGGUF: Shape outermost first, as the
// tensor is used (EncodeGGUF writes it innermost first).
type GGUFTensor struct {
	Name  string
	Type  uint32 // a GGMLTypes number
	Shape []int64
	Data  []byte
}

// EncodeGGUF returns a GGUF v3 file with string metadata and tensors.
func EncodeGGUF(metadata map[string]string, tensors []GGUFTensor) ([]byte, error) {
	var b []byte
	str := func(s string) {
		b = binary.LittleEndian.AppendUint64(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = append(b, ggufMagic...)
	b = binary.LittleEndian.AppendUint32(b, 3)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(tensors)))
	b = binary.LittleEndian.AppendUint64(b, uint64(len(metadata)))
	for _, k := range sortedKeys(metadata) {
		str(k)
		b = binary.LittleEndian.AppendUint32(b, ggufString)
		str(metadata[k])
	}
	off := uint64(0)
	var offs []uint64
	for _, t := range tensors {
		str(t.Name)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(t.Shape)))
		for i := len(t.Shape) - 1; i >= 0; i-- {
			b = binary.LittleEndian.AppendUint64(b, uint64(t.Shape[i]))
		}
		b = binary.LittleEndian.AppendUint32(b, t.Type)
		off = alignUp(off, ggufDefaultAlignment)
		b = binary.LittleEndian.AppendUint64(b, off)
		offs = append(offs, off)
		off += uint64(len(t.Data))
	}
	start := alignUp(uint64(len(b)), ggufDefaultAlignment)
	out := make([]byte, start+off)
	copy(out, b)
	for i, t := range tensors {
		copy(out[start+offs[i]:], t.Data)
	}
	if _, _, err := parseGGUF(out); err != nil {
		return nil, err
	}
	return out, nil
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
