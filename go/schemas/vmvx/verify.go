package vmvx

import (
	"fmt"

	"github.com/gree-ml/gree/go/status"
)

// Verify checks every rule of the format on a decoded or hand-built
// executable: limits, element types and accesses, register indices and
// types for every instruction, immediates, binding and shared-allocation
// indices and accesses, jump targets, and structured control flow
// (verifyFlow: the only backward jumps are counted loops). Errors are
// INVALID_ARGUMENT status errors naming the entry, the instruction and the
// rule. A verified executable can be run without further checks except the
// run-time ones (buffer bounds, loop steps).
func Verify(x *Executable) error {
	if x == nil {
		return status.New(status.InvalidArgument, "vmvx: nil executable")
	}
	if len(x.Entries) > MaxEntries {
		return status.Errorf(status.InvalidArgument, "vmvx: %d entries, at most %d", len(x.Entries), MaxEntries)
	}
	names := map[string]int{}
	for i := range x.Entries {
		e := &x.Entries[i]
		if j, ok := names[e.Name]; ok {
			return status.Errorf(status.InvalidArgument, "vmvx: entries %d and %d are both named %q", j, i, e.Name)
		}
		names[e.Name] = i
		if err := verifyEntry(i, e); err != nil {
			return err
		}
	}
	return nil
}

func entryErr(i int, e *Entry, format string, args ...any) error {
	return status.Errorf(status.InvalidArgument, "vmvx: entry %d (%q): %s", i, e.Name, fmt.Sprintf(format, args...))
}

func verifyEntry(i int, e *Entry) error {
	if e.Name == "" || len(e.Name) > MaxNameLen {
		return entryErr(i, e, "name must have 1 to %d bytes", MaxNameLen)
	}
	threads := uint64(1)
	for d, n := range e.WorkgroupSize {
		if n < 1 || n > MaxWorkgroupSize {
			return entryErr(i, e, "workgroup size %v: dimension %d must be 1..%d", e.WorkgroupSize, d, MaxWorkgroupSize)
		}
		threads *= uint64(n)
	}
	if threads > MaxWorkgroupSize {
		return entryErr(i, e, "workgroup size %v has %d threads, at most %d", e.WorkgroupSize, threads, MaxWorkgroupSize)
	}
	if e.NumPushConstants > MaxPushConstants {
		return entryErr(i, e, "%d push constants, at most %d", e.NumPushConstants, MaxPushConstants)
	}
	if len(e.Bindings) > MaxBindings {
		return entryErr(i, e, "%d bindings, at most %d", len(e.Bindings), MaxBindings)
	}
	for j, b := range e.Bindings {
		if !b.Elem.Valid() {
			return entryErr(i, e, "binding %d has invalid element type %d", j, uint8(b.Elem))
		}
		if b.Access < Read || b.Access > ReadWrite {
			return entryErr(i, e, "binding %d has invalid access %d", j, uint8(b.Access))
		}
	}
	if len(e.Shared) > MaxShared {
		return entryErr(i, e, "%d shared allocations, at most %d", len(e.Shared), MaxShared)
	}
	var shared uint64
	for j, s := range e.Shared {
		if !s.Elem.Valid() || s.Count > MaxSharedBytes {
			return entryErr(i, e, "shared allocation %d has invalid type %d or count %d", j, uint8(s.Elem), s.Count)
		}
		shared += s.Count * uint64(s.Elem.ByteSize())
	}
	if shared > MaxSharedBytes {
		return entryErr(i, e, "shared allocations take %d bytes, at most %d", shared, MaxSharedBytes)
	}
	if len(e.Regs) > MaxRegisters {
		return entryErr(i, e, "%d registers, at most %d", len(e.Regs), MaxRegisters)
	}
	for j, r := range e.Regs {
		if !r.Elem.Valid() || r.Lanes < 1 || r.Lanes > MaxLanes {
			return entryErr(i, e, "register %d has invalid type %d×%d", j, r.Lanes, uint8(r.Elem))
		}
	}
	if rb := e.RegisterBytes(); rb > MaxRegisterBytes || rb*threads > MaxRegisterBytes {
		return entryErr(i, e, "registers take %d bytes per thread for %d threads, at most %d in all", rb, threads, MaxRegisterBytes)
	}
	if len(e.Code) > MaxInstrs {
		return entryErr(i, e, "%d instructions, at most %d", len(e.Code), MaxInstrs)
	}
	v := &instrVerifier{e: e}
	for j := range e.Code {
		if err := v.instr(&e.Code[j]); err != nil {
			return entryErr(i, e, "instruction %d (%s): %v", j, e.Code[j].Op, err)
		}
	}
	if err := verifyFlow(e.Code); err != nil {
		return entryErr(i, e, "%v", err)
	}
	return nil
}

type instrVerifier struct{ e *Entry }

// operands checks the register, target and binding indices of in against
// its layout.
func (v *instrVerifier) operands(in *Instr) error {
	if !in.Op.Valid() {
		return fmt.Errorf("invalid opcode %d", uint8(in.Op))
	}
	nregs, nargs, binds := uint32(len(v.e.Regs)), 0, 0
	for _, c := range in.Op.Layout() {
		switch c {
		case 'd':
			if in.Dst >= nregs {
				return fmt.Errorf("destination register %d of %d", in.Dst, nregs)
			}
		case 'r':
			if nargs >= len(in.Args) {
				return fmt.Errorf("has %d register operands, want more", len(in.Args))
			}
			if in.Args[nargs] >= nregs {
				return fmt.Errorf("operand register %d of %d", in.Args[nargs], nregs)
			}
			nargs++
		case 't':
			if uint64(in.Target) > uint64(len(v.e.Code)) {
				return fmt.Errorf("jump target %d outside 0..%d", in.Target, len(v.e.Code))
			}
		case 'b':
			binds++
		}
	}
	if nargs != len(in.Args) {
		return fmt.Errorf("has %d register operands, want %d", len(in.Args), nargs)
	}
	for j := binds; j < len(in.Bindings); j++ {
		if in.Bindings[j] != 0 {
			return fmt.Errorf("binding slot %d set but unused", j)
		}
	}
	return nil
}
