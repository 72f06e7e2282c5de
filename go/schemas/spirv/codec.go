package spirv

import (
	"encoding/binary"
	"fmt"
	"unicode/utf8"

	"github.com/gree-ml/gree/go/schemas/internal/wire"
	"github.com/gree-ml/gree/go/status"
)

// what names the format in errors.
const what = "vulkan-spirv executable"

// Encode checks x against the limits and writes it in the vulkan-spirv
// format.
func Encode(x *Executable) ([]byte, error) {
	if err := Verify(x); err != nil {
		return nil, err
	}
	w := wire.NewWriter(1024)
	w.Str(x.Target)
	w.Uv(len(x.Entries))
	for _, e := range x.Entries {
		w.Str(e.Name)
		for _, n := range e.WorkgroupSize {
			w.Uv(n)
		}
		w.Uv(e.SubgroupSize)
		w.Uv(e.SharedBytes)
		w.Uv(e.NumPushConstants)
		w.Uv(len(e.Bindings))
		for _, a := range e.Bindings {
			w.U8(byte(a))
		}
		w.U8(e.Flags)
		w.Uv(len(e.Capabilities))
		for _, c := range e.Capabilities {
			w.Str(c)
		}
		w.Bytes(e.SPIRV)
	}
	return w.Finish(Magic, Version), nil
}

// Decode parses and verifies a vulkan-spirv executable: DATA_LOSS for
// damaged bytes (truncation, checksum, bad varints, trailing bytes),
// INVALID_ARGUMENT for files that are not vulkan-spirv executables of this
// version or break a rule. It never panics. The modules alias data.
func Decode(data []byte) (*Executable, error) {
	r, err := wire.Open(data, what, Magic, Version)
	if err != nil {
		return nil, err
	}
	x := &Executable{Target: r.Str(MaxNameLen)}
	ne := r.Count(MaxEntries)
	for i := 0; i < ne && r.Err() == nil; i++ {
		e := Entry{Name: r.Str(MaxNameLen)}
		for d := range e.WorkgroupSize {
			e.WorkgroupSize[d] = r.Count(MaxWorkgroupSize)
		}
		e.SubgroupSize = r.Count(MaxWorkgroupSize)
		e.SharedBytes = r.Count(MaxSharedBytes)
		e.NumPushConstants = r.Count(MaxPushConstants)
		nb := r.Count(MaxBindings)
		for j := 0; j < nb && r.Err() == nil; j++ {
			e.Bindings = append(e.Bindings, Access(r.U8()))
		}
		e.Flags = r.U8()
		nc := r.Count(MaxCapabilities)
		for j := 0; j < nc && r.Err() == nil; j++ {
			e.Capabilities = append(e.Capabilities, r.Str(MaxNameLen))
		}
		e.SPIRV = r.Bytes(MaxModuleBytes)
		x.Entries = append(x.Entries, e)
	}
	if err := r.Done(); err != nil {
		return nil, err
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
