package llvmcpu

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"unicode/utf8"

	"github.com/gree-ml/gree/go/status"
)

// Encode checks x against the limits and writes it in the llvm-cpu format.
func Encode(x *Executable) ([]byte, error) {
	if err := Verify(x); err != nil {
		return nil, err
	}
	b := make([]byte, HeaderSize, HeaderSize+len(x.Object)+256)
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	str(x.Triple)
	str(x.CPU)
	str(x.Features)
	b = binary.AppendUvarint(b, uint64(len(x.Required)))
	for _, f := range x.Required {
		str(f)
	}
	b = binary.AppendUvarint(b, uint64(len(x.Entries)))
	for _, e := range x.Entries {
		str(e.Name)
		str(e.Symbol)
		b = binary.AppendUvarint(b, uint64(e.NumPushConstants))
		b = binary.AppendUvarint(b, uint64(e.NumBindings))
	}
	b = binary.AppendUvarint(b, uint64(len(x.Object)))
	b = append(b, x.Object...)
	body := b[HeaderSize:]
	copy(b, Magic)
	binary.LittleEndian.PutUint16(b[4:], Version)
	binary.LittleEndian.PutUint16(b[6:], 0)
	binary.LittleEndian.PutUint32(b[8:], uint32(len(body)))
	binary.LittleEndian.PutUint32(b[12:], crc32.ChecksumIEEE(body))
	return b, nil
}

// Verify checks x's counts, names and sizes against the format's rules.
func Verify(x *Executable) error {
	bad := func(format string, args ...any) error {
		return status.Errorf(status.InvalidArgument, "llvm-cpu executable: %s", fmt.Sprintf(format, args...))
	}
	for _, s := range []string{x.Triple, x.CPU, x.Features} {
		if len(s) > MaxStringLen || !utf8.ValidString(s) {
			return bad("header string of %d bytes is too long or not UTF-8", len(s))
		}
	}
	if x.Triple == "" {
		return bad("no target triple")
	}
	if len(x.Required) > MaxFeatures {
		return bad("%d required features (at most %d)", len(x.Required), MaxFeatures)
	}
	for _, f := range x.Required {
		if f == "" || len(f) > MaxNameLen {
			return bad("required feature name of %d bytes", len(f))
		}
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
		if e.Symbol == "" || len(e.Symbol) > MaxNameLen || !isSymbol(e.Symbol) {
			return bad("entry %d: symbol %q is not a C identifier", i, e.Symbol)
		}
		if e.NumPushConstants < 0 || e.NumPushConstants > MaxPushConstants || e.NumBindings < 0 || e.NumBindings > MaxBindings {
			return bad("entry %d: %d push constants, %d bindings (limits %d, %d)", i, e.NumPushConstants, e.NumBindings, MaxPushConstants, MaxBindings)
		}
	}
	if len(x.Object) < 4 || len(x.Object) > MaxObjectBytes || string(x.Object[:4]) != "\x7fELF" {
		return bad("the shared object (%d bytes) is not an ELF file", len(x.Object))
	}
	return nil
}

func isSymbol(s string) bool {
	for i, c := range s {
		ok := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9'
		if !ok {
			return false
		}
	}
	return true
}
