package params

import (
	"encoding/binary"

	"github.com/gree-ml/gree/go/schemas/irpa"
	"github.com/gree-ml/gree/go/status"
)

// The .irpa layout is go/schemas/irpa's.
const irpaMaxLinkedHeaders = 1 << 16

// Writer builds .irpa archives (go/schemas/irpa's writer).
type Writer = irpa.Writer

// DefaultDataAlignment is the alignment of each data entry in archives
// Writer builds unless told otherwise (IREE's default).
const DefaultDataAlignment = irpa.DefaultDataAlignment

// DefaultFileAlignment is the alignment Writer pads archive files to.
const DefaultFileAlignment = irpa.DefaultFileAlignment

type irpaRange = irpa.Range

func le64(b []byte, at int) uint64 { return binary.LittleEndian.Uint64(b[at:]) }
func le32(b []byte, at int) uint32 { return binary.LittleEndian.Uint32(b[at:]) }

func rangeAt(b []byte, at int) irpaRange { return irpaRange{Off: le64(b, at), N: le64(b, at+8)} }

// parseIRPA indexes every archive in data.
func parseIRPA(data []byte) ([]*Entry, error) {
	size := uint64(len(data))
	var entries []*Entry
	base := uint64(0)
	for archive := 0; ; archive++ {
		if archive >= irpaMaxLinkedHeaders {
			return nil, corrupt("more than %d linked archive headers (a loop?)", irpaMaxLinkedHeaders)
		}
		if !inFile(base, irpa.PrefixSize, size) {
			return nil, corrupt("archive %d: the file is truncated: %d bytes, the header at offset %d needs %d", archive, size, base, irpa.PrefixSize)
		}
		h := data[base:]
		if string(h[:4]) != irpa.Magic {
			return nil, status.Errorf(status.InvalidArgument, "archive %d at offset %d: magic %q is not %q", archive, base, h[:4], irpa.Magic)
		}
		major, minor := binary.LittleEndian.Uint16(h[4:]), binary.LittleEndian.Uint16(h[6:])
		if major != 0 || minor != 0 {
			return nil, status.Errorf(status.Unimplemented, "archive %d: IRPA version %d.%d is newer than the version 0.0 this runtime reads", archive, major, minor)
		}
		if hs := le64(h, 8); hs != irpa.HeaderSize {
			return nil, corrupt("archive %d: IRPA v0 header size is %d, want %d", archive, hs, irpa.HeaderSize)
		}
		if !inFile(base, irpa.HeaderSize, size) {
			return nil, corrupt("archive %d: the file is truncated inside the %d-byte header at offset %d", archive, irpa.HeaderSize, base)
		}
		got, err := parseIRPAArchive(data, base, archive)
		if err != nil {
			return nil, err
		}
		entries = append(entries, got...)
		next := le64(h, 16)
		if next == 0 {
			return entries, nil
		}
		if next%irpa.HeaderAlignment != 0 || next > size-base {
			return nil, corrupt("archive %d: next header offset %d is unaligned or outside the %d-byte file", archive, next, size)
		}
		base += next
	}
}

func parseIRPAArchive(data []byte, base uint64, archive int) ([]*Entry, error) {
	size := uint64(len(data))
	h := data[base:]
	count := le64(h, 32)
	segs := [3]irpaRange{rangeAt(h, 40), rangeAt(h, 56), rangeAt(h, 72)}
	// A storage segment cut short by the file's end is checked per entry,
	// so that the error names the first entry whose data is missing.
	storeN := segs[2].N
	if s := segs[2]; s.N != 0 && s.Off <= size-base && !inFile(base+s.Off, s.N, size) {
		segs[2].N = size - base - s.Off
	}
	for i, name := range [3]string{"entry table", "metadata segment", "storage segment"} {
		s := segs[i]
		if s.N != 0 && (s.Off > size-base || !inFile(base+s.Off, s.N, size)) {
			return nil, corrupt("archive %d: the %s [%d, +%d) lies outside the %d-byte file (truncated?)", archive, name, base+s.Off, s.N, size)
		}
	}
	table, meta, store := segs[0], segs[1], segs[2]
	if count > table.N/irpa.EntryHeaderSize {
		return nil, corrupt("archive %d: %d entries cannot fit in a %d-byte entry table", archive, count, table.N)
	}
	metaRef := func(r irpaRange) ([]byte, bool) {
		if r.N == 0 {
			return nil, true
		}
		if !inFile(r.Off, r.N, meta.N) {
			return nil, false
		}
		at := base + meta.Off + r.Off
		return data[at : at+r.N : at+r.N], true
	}
	entries := make([]*Entry, 0, count)
	pos, left := base+table.Off, table.N
	for i := uint64(0); i < count; i++ {
		if left < irpa.EntryHeaderSize {
			return nil, corrupt("archive %d: entry %d: the entry table is truncated", archive, i)
		}
		eh := data[pos:]
		esize, typ := le64(eh, 0), le32(eh, 8)
		if esize < irpa.EntryHeaderSize || esize > left {
			return nil, corrupt("archive %d: entry %d: entry size %d is outside [%d, %d]", archive, i, esize, irpa.EntryHeaderSize, left)
		}
		name, ok := metaRef(rangeAt(eh, 20))
		if !ok {
			return nil, corrupt("archive %d: entry %d: its name lies outside the %d-byte metadata segment", archive, i, meta.N)
		}
		md, ok := metaRef(rangeAt(eh, 36))
		if !ok {
			return nil, corrupt("archive %d: entry %d ('%s'): its metadata lies outside the %d-byte metadata segment", archive, i, name, meta.N)
		}
		e := &Entry{Key: string(name), Metadata: md}
		switch typ {
		case irpa.EntryTypeSkip:
			e = nil
		case irpa.EntryTypeSplat:
			if esize < irpa.SplatEntrySize {
				return nil, corrupt("archive %d: entry %d ('%s'): a splat entry needs %d bytes, has %d", archive, i, name, irpa.SplatEntrySize, esize)
			}
			e.Kind, e.Length = StorageSplat, le64(eh, 60)
			pl := uint64(eh[84])
			if !irpa.ValidPattern(pl, e.Length) {
				return nil, corrupt("archive %d: entry %d ('%s'): splat pattern length %d is not 1, 2, 4, 8 or 16 dividing the length %d", archive, i, name, pl, e.Length)
			}
			e.Pattern = append([]byte(nil), eh[68:68+pl]...)
		case irpa.EntryTypeData:
			if esize < irpa.DataEntrySize {
				return nil, corrupt("archive %d: entry %d ('%s'): a data entry needs %d bytes, has %d", archive, i, name, irpa.DataEntrySize, esize)
			}
			r := rangeAt(eh, 60)
			if !inFile(r.Off, r.N, store.N) && inFile(r.Off, r.N, storeN) {
				return nil, corrupt("archive %d: entry %d ('%s'): its data [%d, +%d) lies past the end of the %d-byte file (truncated?)", archive, i, name, base+store.Off+r.Off, r.N, size)
			}
			if !inFile(r.Off, r.N, store.N) {
				return nil, corrupt("archive %d: entry %d ('%s'): its data [%d, +%d) lies outside the %d-byte storage segment", archive, i, name, r.Off, r.N, store.N)
			}
			e.Kind, e.Offset, e.Length = StorageFile, base+store.Off+r.Off, r.N
		case irpa.EntryTypeExtern:
			return nil, status.Errorf(status.Unimplemented, "archive %d: entry %d ('%s') refers to an external file, which gree does not load yet (repack it with iree-convert-parameters)", archive, i, name)
		default:
			return nil, status.Errorf(status.Unimplemented, "archive %d: entry %d ('%s') has unknown type %d", archive, i, name, typ)
		}
		if e != nil {
			entries = append(entries, e)
		}
		step := alignUp(esize, irpa.EntryAlignment)
		if step > left {
			step = left
		}
		pos, left = pos+step, left-step
	}
	return entries, nil
}

func alignUp(x, a uint64) uint64 { return irpa.AlignUp(x, a) }
