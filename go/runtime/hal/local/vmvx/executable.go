package vmvx

import (
	"fmt"

	"github.com/gree-ml/gree/go/schemas/vmvx"
	"github.com/gree-ml/gree/go/status"
)

// Executable is a loaded, verified vmvx executable, prepared for running.
// It is immutable and safe for concurrent use; per-goroutine state lives in
// a State.
type Executable struct {
	progs []*program
}

// BindingInfo describes one binding of an entry point.
type BindingInfo struct {
	Elem   vmvx.Elem   // element type
	Access vmvx.Access // read, write or both
}

// Load verifies data as a vmvx executable (see go/schemas/vmvx) and
// prepares its entry points. Errors are status errors (DATA_LOSS,
// INVALID_ARGUMENT); Load never panics on any input.
func Load(data []byte) (x *Executable, err error) {
	defer func() {
		if r := recover(); r != nil {
			x, err = nil, status.Errorf(status.Internal, "vmvx: load: internal error: %v", r)
		}
	}()
	dec, err := vmvx.Decode(data)
	if err != nil {
		return nil, err
	}
	x = &Executable{progs: make([]*program, len(dec.Entries))}
	for i := range dec.Entries {
		p, err := prepare(&dec.Entries[i])
		if err != nil {
			return nil, fmt.Errorf("vmvx: entry %d (%q): %w", i, dec.Entries[i].Name, err)
		}
		x.progs[i] = p
	}
	return x, nil
}

// NumEntries returns the number of entry points.
func (x *Executable) NumEntries() int { return len(x.progs) }

// EntryName returns the name of entry point i ("" when out of range).
func (x *Executable) EntryName(i int) string {
	if i < 0 || i >= len(x.progs) {
		return ""
	}
	return x.progs[i].entry.Name
}

// EntryBindings returns the bindings of entry point i, in ordinal order.
func (x *Executable) EntryBindings(i int) []BindingInfo {
	if i < 0 || i >= len(x.progs) {
		return nil
	}
	out := make([]BindingInfo, len(x.progs[i].entry.Bindings))
	for j, b := range x.progs[i].entry.Bindings {
		out[j] = BindingInfo{Elem: b.Elem, Access: b.Access}
	}
	return out
}

// EntryPushConstants returns the number of push constants entry point i
// reads.
func (x *Executable) EntryPushConstants(i int) int {
	if i < 0 || i >= len(x.progs) {
		return 0
	}
	return int(x.progs[i].entry.NumPushConstants)
}

// EntryWorkgroupSize returns the workgroup size of entry point i.
func (x *Executable) EntryWorkgroupSize(i int) [3]int {
	if i < 0 || i >= len(x.progs) {
		return [3]int{}
	}
	ws := x.progs[i].entry.WorkgroupSize
	return [3]int{int(ws[0]), int(ws[1]), int(ws[2])}
}

// EntryIndex returns the index of the entry point called name, or -1.
func (x *Executable) EntryIndex(name string) int {
	for i, p := range x.progs {
		if p.entry.Name == name {
			return i
		}
	}
	return -1
}
