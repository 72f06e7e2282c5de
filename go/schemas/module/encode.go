package module

import (
	"encoding/binary"
	"io"
	"math"
)

// File layout (all integers little-endian):
//
//	offset 0   magic "GREEVMFB" (8 bytes)
//	offset 8   u32 format version
//	offset 12  u32 flags (0; FlagSigned in a signed file, see sign.go)
//	offset 16  u64 metadata offset, u64 metadata length
//	offset 32  u64 blob area offset, u64 blob area length
//	offset 48  u64 total file length
//	...        metadata (varint-encoded, see writeMeta), blob area at a
//	           64-byte aligned offset; each blob is 64-byte aligned inside.
const headerSize = 56

type writer struct{ b []byte }

func (w *writer) uv(x uint64)   { w.b = binary.AppendUvarint(w.b, x) }
func (w *writer) sv(x int64)    { w.b = binary.AppendVarint(w.b, x) }
func (w *writer) u8(x uint8)    { w.b = append(w.b, x) }
func (w *writer) f64(x float64) { w.b = binary.LittleEndian.AppendUint64(w.b, math.Float64bits(x)) }
func (w *writer) str(s string)  { w.uv(uint64(len(s))); w.b = append(w.b, s...) }
func (w *writer) kinds(ks []Kind) {
	w.uv(uint64(len(ks)))
	for _, k := range ks {
		w.u8(uint8(k))
	}
}
func (w *writer) attrs(as []Attr) {
	w.uv(uint64(len(as)))
	for _, a := range as {
		w.str(a.Key)
		w.str(a.Value)
	}
}
func (w *writer) regs(rs []int32) {
	w.uv(uint64(len(rs)))
	for _, r := range rs {
		w.uv(uint64(r))
	}
}

// blobs lays out byte blobs at aligned offsets relative to the blob area.
// It only records them: Encode copies each once, into the output sized up
// front (appending to a growing area copied a module's weights two to
// three times over).
type blobs struct {
	parts [][]byte
	offs  []uint64
	size  uint64
}

func (bl *blobs) add(b []byte) (off, n uint64) {
	off = (bl.size + Alignment - 1) / Alignment * Alignment
	bl.parts = append(bl.parts, b)
	bl.offs = append(bl.offs, off)
	bl.size = off + uint64(len(b))
	return off, uint64(len(b))
}

// writeAt copies the blobs into area, which is bl.size bytes long.
func (bl *blobs) writeAt(area []byte) {
	for i, b := range bl.parts {
		copy(area[bl.offs[i]:], b)
	}
}

// Encode serializes m.
func Encode(m *Module) []byte {
	l := layout(m)
	out := make([]byte, l.size())
	l.header(out)
	copy(out[headerSize:], l.meta)
	l.blobs.writeAt(out[l.blobOff:])
	return out
}

// EncodeTo writes the bytes Encode returns to w, each blob written from
// where it lies (a module's weights are not gathered into one buffer
// first). It returns the number of bytes written.
func EncodeTo(w io.Writer, m *Module) (int64, error) {
	l := layout(m)
	head := make([]byte, l.blobOff)
	l.header(head)
	copy(head[headerSize:], l.meta)
	n, err := w.Write(head)
	total := int64(n)
	var pad [Alignment]byte
	end := uint64(0)
	for i, b := range l.blobs.parts {
		if err != nil {
			return total, err
		}
		n, err = w.Write(pad[:l.blobs.offs[i]-end])
		total += int64(n)
		if err == nil {
			n, err = w.Write(b)
			total += int64(n)
		}
		end = l.blobs.offs[i] + uint64(len(b))
	}
	return total, err
}

// fileLayout is a module's encoding before it is written: the metadata,
// the blobs it places, and where the blob area starts.
type fileLayout struct {
	version uint32
	meta    []byte
	blobs   blobs
	blobOff uint64
}

func (l *fileLayout) size() uint64 { return l.blobOff + l.blobs.size }

// header fills the first headerSize bytes of out.
func (l *fileLayout) header(out []byte) {
	copy(out, Magic)
	binary.LittleEndian.PutUint32(out[8:], l.version)
	binary.LittleEndian.PutUint64(out[16:], headerSize)
	binary.LittleEndian.PutUint64(out[24:], uint64(len(l.meta)))
	binary.LittleEndian.PutUint64(out[32:], l.blobOff)
	binary.LittleEndian.PutUint64(out[40:], l.blobs.size)
	binary.LittleEndian.PutUint64(out[48:], l.size())
}

// layout encodes m's metadata and places its blobs.
func layout(m *Module) *fileLayout {
	var w writer
	var bl blobs
	w.str(m.Name)
	w.uv(uint64(m.Version))
	w.attrs(m.Attrs)
	w.uv(uint64(len(m.Functions)))
	for i := range m.Functions {
		f := &m.Functions[i]
		w.str(f.Name)
		w.kinds(f.Args)
		w.kinds(f.Results)
		w.kinds(f.Regs)
		w.attrs(f.Reflection)
		w.uv(uint64(len(f.ArgTypes)))
		for _, t := range f.ArgTypes {
			w.uv(uint64(t.ElementType))
			w.uv(uint64(len(t.Dims)))
			for _, d := range t.Dims {
				w.sv(d)
			}
		}
		w.uv(uint64(len(f.Code)))
		for _, in := range f.Code {
			w.u8(uint8(in.Op))
			w.u8(in.Sub)
			w.u8(in.Type)
			w.u8(in.Type2)
			w.regs(in.Dst)
			w.regs(in.Src)
			w.sv(in.Imm)
			w.f64(in.F)
			w.sv(int64(in.Index))
			w.sv(int64(in.Index2))
			w.str(in.Str)
		}
	}
	w.uv(uint64(len(m.Exports)))
	for _, e := range m.Exports {
		w.str(e.Name)
		w.uv(uint64(e.Function))
	}
	w.uv(uint64(len(m.Imports)))
	for _, im := range m.Imports {
		w.str(im.Module)
		w.str(im.Name)
		w.kinds(im.Args)
		w.kinds(im.Results)
		if im.Optional {
			w.u8(1)
		} else {
			w.u8(0)
		}
	}
	w.uv(uint64(len(m.Globals)))
	for _, g := range m.Globals {
		w.str(g.Name)
		w.u8(uint8(g.Kind))
		if g.Mutable {
			w.u8(1)
		} else {
			w.u8(0)
		}
		w.sv(int64(g.Init))
		w.sv(g.InitI)
		w.f64(g.InitF)
	}
	w.uv(uint64(len(m.Constants)))
	for _, c := range m.Constants {
		w.uv(uint64(c.ElementType))
		w.uv(uint64(len(c.Shape)))
		for _, d := range c.Shape {
			w.sv(d)
		}
		off, n := bl.add(c.Data)
		w.uv(off)
		w.uv(n)
	}
	// Format 2 adds each executable's variant ordinal; a module without
	// variants stays format 1, which older runtimes read.
	version := uint32(Version)
	if m.HasVariants() {
		version = VersionVariants
	}
	if m.HasParameters() {
		version = VersionParameters
	}
	w.uv(uint64(len(m.Executables)))
	for _, e := range m.Executables {
		w.str(e.Format)
		w.uv(uint64(len(e.Entries)))
		for _, s := range e.Entries {
			w.str(s)
		}
		off, n := bl.add(e.Data)
		w.uv(off)
		w.uv(n)
		if version >= VersionVariants {
			w.uv(uint64(e.Variant))
		}
	}
	if version >= VersionParameters {
		w.parameters(m)
	}

	blobOff := (headerSize + uint64(len(w.b)) + Alignment - 1) / Alignment * Alignment
	return &fileLayout{version: version, meta: w.b, blobs: bl, blobOff: blobOff}
}
