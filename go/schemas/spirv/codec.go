package spirv

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"unicode/utf8"

	"github.com/gree-ml/gree/go/status"
)

// Encode checks x against the limits and writes it in the vulkan-spirv
// format.
func Encode(x *Executable) ([]byte, error) {
	if err := Verify(x); err != nil {
		return nil, err
	}
	b := make([]byte, HeaderSize, HeaderSize+1024)
	uv := func(v int) { b = binary.AppendUvarint(b, uint64(v)) }
	str := func(s string) {
		uv(len(s))
		b = append(b, s...)
	}
	str(x.Target)
	uv(len(x.Entries))
	for _, e := range x.Entries {
		str(e.Name)
		for _, n := range e.WorkgroupSize {
			uv(n)
		}
		uv(e.SubgroupSize)
		uv(e.SharedBytes)
		uv(e.NumPushConstants)
		uv(len(e.Bindings))
		for _, a := range e.Bindings {
			b = append(b, byte(a))
		}
		b = append(b, e.Flags)
		uv(len(e.Capabilities))
		for _, c := range e.Capabilities {
			str(c)
		}
		uv(len(e.SPIRV))
		b = append(b, e.SPIRV...)
	}
	body := b[HeaderSize:]
	copy(b, Magic)
	binary.LittleEndian.PutUint16(b[4:], Version)
	binary.LittleEndian.PutUint16(b[6:], 0)
	binary.LittleEndian.PutUint32(b[8:], uint32(len(body)))
	binary.LittleEndian.PutUint32(b[12:], crc32.ChecksumIEEE(body))
	return b, nil
}

// Decode parses and verifies a vulkan-spirv executable: DATA_LOSS for
// damaged bytes (truncation, checksum, bad varints, trailing bytes),
// INVALID_ARGUMENT for files that are not vulkan-spirv executables of this
// version or break a rule. It never panics. The modules alias data.
func Decode(data []byte) (*Executable, error) {
	if len(data) < HeaderSize {
		return nil, status.Errorf(status.DataLoss, "vulkan-spirv executable truncated: %d bytes, the header alone takes %d", len(data), HeaderSize)
	}
	if string(data[:4]) != Magic {
		return nil, status.Errorf(status.InvalidArgument, "not a vulkan-spirv executable (magic %q, want %q)", data[:4], Magic)
	}
	if v := binary.LittleEndian.Uint16(data[4:]); v != Version {
		return nil, status.Errorf(status.InvalidArgument, "vulkan-spirv executable format version %d, this runtime reads version %d", v, Version)
	}
	if f := binary.LittleEndian.Uint16(data[6:]); f != 0 {
		return nil, status.Errorf(status.InvalidArgument, "vulkan-spirv executable: unknown header flags %#x", f)
	}
	if n := binary.LittleEndian.Uint32(data[8:]); uint64(n) != uint64(len(data)-HeaderSize) {
		return nil, status.Errorf(status.DataLoss, "vulkan-spirv executable: header says the body has %d bytes, the file has %d", n, len(data)-HeaderSize)
	}
	body := data[HeaderSize:]
	if got, want := crc32.ChecksumIEEE(body), binary.LittleEndian.Uint32(data[12:]); got != want {
		return nil, status.Errorf(status.DataLoss, "vulkan-spirv executable: body checksum %#08x does not match the header's %#08x", got, want)
	}
	r := &reader{b: body}
	x := &Executable{Target: r.str(MaxNameLen)}
	ne := r.count(MaxEntries)
	for i := 0; i < ne && r.err == nil; i++ {
		e := Entry{Name: r.str(MaxNameLen)}
		for d := range e.WorkgroupSize {
			e.WorkgroupSize[d] = r.count(MaxWorkgroupSize)
		}
		e.SubgroupSize = r.count(MaxWorkgroupSize)
		e.SharedBytes = r.count(MaxSharedBytes)
		e.NumPushConstants = r.count(MaxPushConstants)
		nb := r.count(MaxBindings)
		for j := 0; j < nb && r.err == nil; j++ {
			e.Bindings = append(e.Bindings, Access(r.u8()))
		}
		e.Flags = r.u8()
		nc := r.count(MaxCapabilities)
		for j := 0; j < nc && r.err == nil; j++ {
			e.Capabilities = append(e.Capabilities, r.str(MaxNameLen))
		}
		e.SPIRV = r.bytes(MaxModuleBytes)
		x.Entries = append(x.Entries, e)
	}
	if r.err != nil {
		return nil, r.err
	}
	if r.off != len(r.b) {
		return nil, status.Errorf(status.DataLoss, "vulkan-spirv executable: %d trailing bytes", len(r.b)-r.off)
	}
	if err := Verify(x); err != nil {
		return nil, err
	}
	return x, nil
}

// Verify checks x's counts, names and modules against the format's rules.
func Verify(x *Executable) error {
	bad := func(format string, args ...any) error {
		return status.Errorf(status.InvalidArgument, "vulkan-spirv executable: %s", fmt.Sprintf(format, args...))
	}
	if x.Target == "" || len(x.Target) > MaxNameLen || !utf8.ValidString(x.Target) {
		return bad("target name %q is empty, too long or not UTF-8", x.Target)
	}
	if len(x.Entries) == 0 || len(x.Entries) > MaxEntries {
		return bad("%d entries (1 to %d)", len(x.Entries), MaxEntries)
	}
	seen := map[string]bool{}
	for i, e := range x.Entries {
		if e.Name == "" || len(e.Name) > MaxNameLen || !utf8.ValidString(e.Name) || seen[e.Name] {
			return bad("entry %d: name %q is empty, too long, not UTF-8 or repeated", i, e.Name)
		}
		seen[e.Name] = true
		for d, n := range e.WorkgroupSize {
			if n < 1 || n > MaxWorkgroupSize {
				return bad("entry %d: workgroup size %d in dimension %d (1 to %d)", i, n, d, MaxWorkgroupSize)
			}
		}
		if e.SubgroupSize < 0 || e.SubgroupSize > MaxWorkgroupSize || e.SharedBytes < 0 || e.SharedBytes > MaxSharedBytes {
			return bad("entry %d: subgroup size %d, shared bytes %d out of range", i, e.SubgroupSize, e.SharedBytes)
		}
		if e.NumPushConstants < 0 || e.NumPushConstants > MaxPushConstants || len(e.Bindings) > MaxBindings {
			return bad("entry %d: %d push constants, %d bindings (limits %d, %d)", i, e.NumPushConstants, len(e.Bindings), MaxPushConstants, MaxBindings)
		}
		for j, a := range e.Bindings {
			if a < Read || a > ReadWrite {
				return bad("entry %d: binding %d has access %d", i, j, a)
			}
		}
		if e.Flags&^FlagErrors != 0 {
			return bad("entry %d: unknown flags %#x", i, e.Flags)
		}
		if len(e.Capabilities) > MaxCapabilities {
			return bad("entry %d: %d capabilities (at most %d)", i, len(e.Capabilities), MaxCapabilities)
		}
		for _, c := range e.Capabilities {
			if c == "" || len(c) > MaxNameLen || !utf8.ValidString(c) {
				return bad("entry %d: capability name %q", i, c)
			}
		}
		if n := len(e.SPIRV); n < 20 || n%4 != 0 || n > MaxModuleBytes || binary.LittleEndian.Uint32(e.SPIRV) != SPIRVMagic {
			return bad("entry %d: the module (%d bytes) is not little-endian SPIR-V", i, n)
		}
	}
	return nil
}

type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = status.Errorf(status.DataLoss, "vulkan-spirv executable: body byte %d: %s", r.off, fmt.Sprintf(format, args...))
	}
}

func (r *reader) count(limit int) int {
	if r.err != nil {
		return 0
	}
	x, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.fail("bad or truncated varint")
		return 0
	}
	r.off += n
	if x > uint64(limit) {
		r.fail("count %d exceeds the limit %d", x, limit)
		return 0
	}
	return int(x)
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

func (r *reader) bytes(limit int) []byte {
	n := r.count(limit)
	if r.err != nil {
		return nil
	}
	if n > len(r.b)-r.off {
		r.fail("%d bytes wanted, %d left", n, len(r.b)-r.off)
		return nil
	}
	out := r.b[r.off : r.off+n : r.off+n]
	r.off += n
	return out
}

func (r *reader) str(limit int) string { return string(r.bytes(limit)) }
