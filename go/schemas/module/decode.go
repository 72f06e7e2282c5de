package module

import (
	"encoding/binary"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/gree-ml/gree/go/status"
)

type reader struct {
	b   []byte
	off int
	err error
	at  string // what is being read, for errors
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%s at metadata byte %d: %s", r.at, r.off, fmt.Sprintf(format, args...))
	}
}

func (r *reader) uv() uint64 {
	if r.err != nil {
		return 0
	}
	x, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.fail("bad or truncated varint")
		return 0
	}
	r.off += n
	return x
}

func (r *reader) sv() int64 {
	if r.err != nil {
		return 0
	}
	x, n := binary.Varint(r.b[r.off:])
	if n <= 0 {
		r.fail("bad or truncated varint")
		return 0
	}
	r.off += n
	return x
}

func (r *reader) u8() uint8 {
	if r.err != nil {
		return 0
	}
	if r.off >= len(r.b) {
		r.fail("truncated")
		return 0
	}
	r.off++
	return r.b[r.off-1]
}

func (r *reader) f64() float64 {
	if r.err != nil {
		return 0
	}
	if len(r.b)-r.off < 8 {
		r.fail("truncated")
		return 0
	}
	r.off += 8
	return math.Float64frombits(binary.LittleEndian.Uint64(r.b[r.off-8:]))
}

// count reads a length and checks that at least min bytes per item remain,
// so a corrupt count cannot make Decode allocate without bound.
func (r *reader) count(min int) int {
	n := r.uv()
	if r.err != nil {
		return 0
	}
	if n > uint64(len(r.b)-r.off)/uint64(max(min, 1)) {
		r.fail("count %d exceeds the remaining data", n)
		return 0
	}
	return int(n)
}

func (r *reader) str() string {
	n := r.count(1)
	if r.err != nil {
		return ""
	}
	s := string(r.b[r.off : r.off+n])
	r.off += n
	if !utf8.ValidString(s) {
		r.fail("string is not valid UTF-8")
		return ""
	}
	return s
}

func (r *reader) kinds() []Kind {
	n := r.count(1)
	ks := make([]Kind, n)
	for i := range ks {
		ks[i] = Kind(r.u8())
		if r.err == nil && (ks[i] < KindI32 || ks[i] > KindRef) {
			r.fail("invalid value kind %d", ks[i])
		}
	}
	return ks
}

func (r *reader) attrs() []Attr {
	n := r.count(2)
	as := make([]Attr, n)
	for i := range as {
		as[i] = Attr{r.str(), r.str()}
	}
	return as
}

func (r *reader) regs() []int32 {
	n := r.count(1)
	rs := make([]int32, n)
	for i := range rs {
		x := r.uv()
		if x > math.MaxInt32 {
			r.fail("register number %d out of range", x)
		}
		rs[i] = int32(x)
	}
	return rs
}

func (r *reader) blob(blobArea []byte) []byte {
	off, n := r.uv(), r.uv()
	if r.err != nil {
		return nil
	}
	if off > uint64(len(blobArea)) || n > uint64(len(blobArea))-off {
		r.fail("data [%d, +%d) lies outside the blob area of %d bytes", off, n, len(blobArea))
		return nil
	}
	if off%Alignment != 0 {
		r.fail("data offset %d is not %d-byte aligned", off, Alignment)
		return nil
	}
	return blobArea[off : off+n : off+n]
}

// Decode parses and verifies a module file. Constants and executables
// alias data. Any inconsistency is a status error (DATA_LOSS for a
// damaged or truncated file, INVALID_ARGUMENT for something that is not a
// module or has the wrong version).
func Decode(data []byte) (*Module, error) {
	if len(data) < headerSize {
		if len(data) >= 8 && string(data[:8]) != Magic {
			return nil, notModule(data)
		}
		return nil, status.Errorf(status.DataLoss, "module file is truncated: %d bytes, smaller than the %d-byte header", len(data), headerSize)
	}
	if string(data[:8]) != Magic {
		return nil, notModule(data)
	}
	version := binary.LittleEndian.Uint32(data[8:])
	if version != Version && version != VersionVariants && version != VersionParameters {
		return nil, status.Errorf(status.InvalidArgument, "module file has format version %d; this runtime reads versions %d to %d (recompile the module with this release's iree-compile)", version, Version, VersionParameters)
	}
	metaOff, metaLen := binary.LittleEndian.Uint64(data[16:]), binary.LittleEndian.Uint64(data[24:])
	blobOff, blobLen := binary.LittleEndian.Uint64(data[32:]), binary.LittleEndian.Uint64(data[40:])
	total := binary.LittleEndian.Uint64(data[48:])
	if total != uint64(len(data)) {
		return nil, status.Errorf(status.DataLoss, "module file is %d bytes but its header says %d: the file is truncated or has extra bytes", len(data), total)
	}
	sig, err := signatureBlock(data)
	if err != nil {
		return nil, err
	}
	n := uint64(len(data))
	if sig != nil {
		n -= SignatureSize // the sections lie before the signature block
	}
	if metaOff > n || metaLen > n-metaOff || blobOff > n || blobLen > n-blobOff || blobOff%Alignment != 0 {
		return nil, status.Errorf(status.DataLoss, "module file header is corrupt: sections lie outside the file")
	}
	r := &reader{b: data[metaOff : metaOff+metaLen], at: "module"}
	m := decodeMeta(r, data[blobOff:blobOff+blobLen], version)
	if r.err == nil && r.off != len(r.b) {
		r.fail("%d unexpected trailing bytes", len(r.b)-r.off)
	}
	if r.err != nil {
		return nil, status.Errorf(status.DataLoss, "module file is corrupt: %v", r.err)
	}
	if err := Verify(m); err != nil {
		return nil, err
	}
	m.Signature = sig
	return m, nil
}

func notModule(data []byte) error {
	hint := ""
	if len(data) >= 8 && string(data[4:8]) == "IREE" {
		hint = " (it looks like a module built by IREE's own compiler; compile the program with gree's iree-compile)"
	}
	return status.Errorf(status.InvalidArgument, "not a gree module file: bad magic%s", hint)
}

func decodeMeta(r *reader, blobArea []byte, version uint32) *Module {
	m := &Module{}
	m.Name = r.str()
	m.Version = uint32(r.uv())
	m.Attrs = r.attrs()
	m.Functions = make([]Function, r.count(6))
	for i := range m.Functions {
		f := &m.Functions[i]
		r.at = fmt.Sprintf("function %d", i)
		f.Name = r.str()
		f.Args, f.Results, f.Regs = r.kinds(), r.kinds(), r.kinds()
		f.Reflection = r.attrs()
		f.ArgTypes = make([]TensorType, r.count(2))
		for j := range f.ArgTypes {
			t := &f.ArgTypes[j]
			t.ElementType = uint32(r.uv())
			t.Dims = make([]int64, r.count(1))
			for k := range t.Dims {
				t.Dims[k] = r.sv()
			}
		}
		f.Code = make([]Instr, r.count(17))
		for j := range f.Code {
			in := &f.Code[j]
			in.Op, in.Sub, in.Type, in.Type2 = Opcode(r.u8()), r.u8(), r.u8(), r.u8()
			in.Dst, in.Src = r.regs(), r.regs()
			in.Imm, in.F = r.sv(), r.f64()
			in.Index, in.Index2 = int32(r.sv()), int32(r.sv())
			in.Str = r.str()
		}
	}
	r.at = "exports"
	m.Exports = make([]Export, r.count(2))
	for i := range m.Exports {
		m.Exports[i] = Export{Name: r.str(), Function: int(min(r.uv(), math.MaxInt32))}
	}
	r.at = "imports"
	m.Imports = make([]Import, r.count(5))
	for i := range m.Imports {
		m.Imports[i] = Import{Module: r.str(), Name: r.str(), Args: r.kinds(), Results: r.kinds(), Optional: r.u8() != 0}
	}
	r.at = "globals"
	m.Globals = make([]Global, r.count(13))
	for i := range m.Globals {
		g := &m.Globals[i]
		g.Name, g.Kind, g.Mutable = r.str(), Kind(r.u8()), r.u8() != 0
		g.Init, g.InitI, g.InitF = int32(r.sv()), r.sv(), r.f64()
	}
	r.at = "constants"
	m.Constants = make([]Constant, r.count(4))
	for i := range m.Constants {
		c := &m.Constants[i]
		c.ElementType = uint32(r.uv())
		c.Shape = make([]int64, r.count(1))
		for j := range c.Shape {
			c.Shape[j] = r.sv()
		}
		c.Data = r.blob(blobArea)
	}
	r.at = "executables"
	m.Executables = make([]Executable, r.count(4))
	for i := range m.Executables {
		e := &m.Executables[i]
		e.Format = r.str()
		e.Entries = make([]string, r.count(1))
		for j := range e.Entries {
			e.Entries[j] = r.str()
		}
		e.Data = r.blob(blobArea)
		if version >= VersionVariants {
			e.Variant = uint32(min(r.uv(), math.MaxUint32))
		}
	}
	if version >= VersionParameters {
		r.parameters(m)
	}
	return m
}
