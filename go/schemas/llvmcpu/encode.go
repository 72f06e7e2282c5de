package llvmcpu

import (
	"fmt"
	"unicode/utf8"

	"github.com/gree-ml/gree/go/schemas/internal/wire"
	"github.com/gree-ml/gree/go/status"
)

// Encode checks x against the limits and writes it in the llvm-cpu format.
func Encode(x *Executable) ([]byte, error) {
	if err := Verify(x); err != nil {
		return nil, err
	}
	w := wire.NewWriter(len(x.Object) + 256)
	w.Str(x.Triple)
	w.Str(x.CPU)
	w.Str(x.Features)
	w.Uv(len(x.Required))
	for _, f := range x.Required {
		w.Str(f)
	}
	w.Uv(len(x.Entries))
	for _, e := range x.Entries {
		w.Str(e.Name)
		w.Str(e.Symbol)
		w.Uv(e.NumPushConstants)
		w.Uv(e.NumBindings)
	}
	w.Bytes(x.Object)
	return w.Finish(Magic, Version), nil
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
