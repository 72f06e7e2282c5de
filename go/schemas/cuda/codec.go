package cuda

import (
	"bytes"
	"fmt"
	"regexp"

	"github.com/gree-ml/gree/go/schemas/internal/wire"
	"github.com/gree-ml/gree/go/status"
)

// what names the format in errors.
const what = "cuda-nvptx-fb executable"

// Encode checks x against the limits and writes it in the cuda-nvptx-fb
// format.
func Encode(x *Executable) ([]byte, error) {
	if err := Verify(x); err != nil {
		return nil, err
	}
	size := 256
	for _, v := range x.Variants {
		size += len(v.PTX) + 64*len(v.Entries)
	}
	w := wire.NewWriter(size)
	w.Uv(len(x.Variants))
	for _, v := range x.Variants {
		w.Str(v.Arch)
		w.Uv(v.PTXVersion)
		w.Uv(len(v.Entries))
		for _, e := range v.Entries {
			w.Str(e.Name)
			w.Str(e.Symbol)
			for _, n := range e.BlockSize {
				w.Uv(n)
			}
			w.Uv(e.SharedBytes)
			w.Uv(e.NumPushConstants)
			w.Uv(len(e.Bindings))
			for _, a := range e.Bindings {
				w.U8(byte(a))
			}
			w.U8(e.Flags)
		}
		w.Bytes(v.PTX)
	}
	return w.Finish(Magic, Version), nil
}

// Decode parses and verifies a cuda-nvptx-fb executable: DATA_LOSS for
// damaged bytes (truncation, checksum, bad varints, trailing bytes),
// INVALID_ARGUMENT for files that are not cuda-nvptx-fb executables of
// this version or break a rule. It never panics. The PTX texts alias data.
func Decode(data []byte) (*Executable, error) {
	r, err := wire.Open(data, what, Magic, Version)
	if err != nil {
		return nil, err
	}
	x := &Executable{}
	nv := r.Count(MaxVariants)
	for i := 0; i < nv && r.Err() == nil; i++ {
		v := Variant{Arch: r.Str(MaxNameLen), PTXVersion: r.Count(1000)}
		ne := r.Count(MaxEntries)
		for j := 0; j < ne && r.Err() == nil; j++ {
			e := Entry{Name: r.Str(MaxNameLen), Symbol: r.Str(MaxNameLen)}
			for d := range e.BlockSize {
				e.BlockSize[d] = r.Count(MaxBlockSize)
			}
			e.SharedBytes = r.Count(MaxStaticSharedBytes)
			e.NumPushConstants = r.Count(MaxPushConstants)
			nb := r.Count(MaxBindings)
			for b := 0; b < nb && r.Err() == nil; b++ {
				e.Bindings = append(e.Bindings, Access(r.U8()))
			}
			e.Flags = r.U8()
			v.Entries = append(v.Entries, e)
		}
		v.PTX = r.Bytes(MaxPTXBytes)
		x.Variants = append(x.Variants, v)
	}
	if err := r.Done(); err != nil {
		return nil, err
	}
	if err := Verify(x); err != nil {
		return nil, err
	}
	return x, nil
}

// symbolRE is a PTX identifier.
var symbolRE = regexp.MustCompile(`^[A-Za-z_$%][A-Za-z0-9_$]*$`)

// Verify checks x's counts, names and modules against the format's rules.
func Verify(x *Executable) error {
	bad := func(format string, args ...any) error {
		return status.Errorf(status.InvalidArgument, "%s: %s", what, fmt.Sprintf(format, args...))
	}
	if len(x.Variants) == 0 || len(x.Variants) > MaxVariants {
		return bad("%d variants (1 to %d)", len(x.Variants), MaxVariants)
	}
	archs := map[string]bool{}
	for i, v := range x.Variants {
		if _, _, err := ParseArch(v.Arch); err != nil {
			return bad("variant %d: %v", i, err)
		}
		if archs[v.Arch] {
			return bad("variant %d: architecture %s appears twice", i, v.Arch)
		}
		archs[v.Arch] = true
		if v.PTXVersion < 10 || v.PTXVersion > 999 {
			return bad("variant %d (%s): PTX ISA version %d", i, v.Arch, v.PTXVersion)
		}
		if err := verifyEntries(x, i); err != nil {
			return bad("variant %d (%s): %v", i, v.Arch, err)
		}
		if n := len(v.PTX); n == 0 || n > MaxPTXBytes {
			return bad("variant %d (%s): PTX of %d bytes", i, v.Arch, n)
		}
		for j, c := range v.PTX {
			if c == 0 || c >= 0x80 {
				return bad("variant %d (%s): PTX byte %d is %#x (PTX is ASCII text)", i, v.Arch, j, c)
			}
		}
		for _, e := range v.Entries {
			if !bytes.Contains(v.PTX, []byte(".entry "+e.Symbol)) {
				return bad("variant %d (%s): the PTX has no .entry %s", i, v.Arch, e.Symbol)
			}
		}
	}
	return nil
}

// verifyEntries checks variant i's entries, and that they match variant
// 0's names.
func verifyEntries(x *Executable, i int) error {
	v := &x.Variants[i]
	if len(v.Entries) == 0 || len(v.Entries) > MaxEntries {
		return fmt.Errorf("%d entries (1 to %d)", len(v.Entries), MaxEntries)
	}
	if len(v.Entries) != len(x.Variants[0].Entries) {
		return fmt.Errorf("%d entries, variant 0 has %d", len(v.Entries), len(x.Variants[0].Entries))
	}
	names, symbols := map[string]bool{}, map[string]bool{}
	for j, e := range v.Entries {
		if e.Name == "" || len(e.Name) > MaxNameLen || names[e.Name] {
			return fmt.Errorf("entry %d: name %q is empty, too long or repeated", j, e.Name)
		}
		if e.Name != x.Variants[0].Entries[j].Name {
			return fmt.Errorf("entry %d is %q, variant 0's is %q", j, e.Name, x.Variants[0].Entries[j].Name)
		}
		if !symbolRE.MatchString(e.Symbol) || len(e.Symbol) > MaxNameLen || symbols[e.Symbol] {
			return fmt.Errorf("entry %d: symbol %q is not a PTX identifier or repeated", j, e.Symbol)
		}
		names[e.Name], symbols[e.Symbol] = true, true
		threads := 1
		for d, n := range e.BlockSize {
			if n < 1 || n > MaxBlockSize {
				return fmt.Errorf("entry %d: block size %d in dimension %d (1 to %d)", j, n, d, MaxBlockSize)
			}
			threads *= n
		}
		if threads > MaxBlockSize {
			return fmt.Errorf("entry %d: %d threads per block (at most %d)", j, threads, MaxBlockSize)
		}
		if e.SharedBytes < 0 || e.SharedBytes > MaxStaticSharedBytes {
			return fmt.Errorf("entry %d: %d bytes of static shared memory (at most %d)", j, e.SharedBytes, MaxStaticSharedBytes)
		}
		if e.NumPushConstants < 0 || e.NumPushConstants > MaxPushConstants || len(e.Bindings) > MaxBindings {
			return fmt.Errorf("entry %d: %d push constants, %d bindings (limits %d, %d)", j, e.NumPushConstants, len(e.Bindings), MaxPushConstants, MaxBindings)
		}
		for b, a := range e.Bindings {
			if a < Read || a > ReadWrite {
				return fmt.Errorf("entry %d: binding %d has access %d", j, b, a)
			}
		}
		if e.Flags&^FlagErrors != 0 {
			return fmt.Errorf("entry %d: unknown flags %#x", j, e.Flags)
		}
	}
	return nil
}
