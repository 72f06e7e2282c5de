package vmvx

import "strconv"

// Magic starts every vmvx executable.
const Magic = "GVMX"

// Version is the format version this package reads and writes.
const Version = 1

// HeaderSize is the size of the fixed header: magic, version, flags, body
// length and body CRC-32.
const HeaderSize = 16

// Limits a valid executable stays within. They bound what a loader
// allocates for untrusted input.
const (
	MaxEntries        = 1 << 16
	MaxNameLen        = 1024
	MaxBindings       = 1024
	MaxPushConstants  = 1 << 16
	MaxShared         = 64
	MaxSharedBytes    = 64 << 20 // per entry, all allocations together
	MaxWorkgroupSize  = 1024     // threads per workgroup
	MaxRegisters      = 1 << 20  // per entry
	MaxLanes          = 1 << 16  // per register
	MaxRegisterBytes  = 64 << 20 // register storage of all threads of a workgroup
	MaxInstrs         = 1 << 24  // per entry
	MaxSubgroupSize   = 32       // see SubgroupSize
	RegisterAlignment = 8        // bytes; each register's storage is padded to this
)

// Elem is an element type, numbered as kir.Scalar.
type Elem uint8

// Element types.
const (
	Invalid Elem = iota
	I1
	I8
	I16
	I32
	I64
	F16
	BF16
	F32
	F64
)

var elemNames = [...]string{"invalid", "i1", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"}

// String returns the element type's name, e.g. "f32".
func (e Elem) String() string {
	if int(e) < len(elemNames) {
		return elemNames[e]
	}
	return "elem(" + strconv.Itoa(int(e)) + ")"
}

// Valid reports i1 to f64.
func (e Elem) Valid() bool { return e >= I1 && e <= F64 }

// IsInt reports the integer types.
func (e Elem) IsInt() bool { return e >= I1 && e <= I64 }

// IsFloat reports the float types.
func (e Elem) IsFloat() bool { return e >= F16 && e <= F64 }

// Bits returns the bit width (0 when invalid).
func (e Elem) Bits() int {
	switch e {
	case I1:
		return 1
	case I8:
		return 8
	case I16, F16, BF16:
		return 16
	case I32, F32:
		return 32
	case I64, F64:
		return 64
	}
	return 0
}

// ByteSize returns the bytes one element takes in a buffer and in a
// register (i1 takes a byte).
func (e Elem) ByteSize() int { return (e.Bits() + 7) / 8 }

// Access says how an entry uses a binding.
type Access uint8

// Binding accesses.
const (
	Read      Access = 1
	Write     Access = 2
	ReadWrite        = Read | Write
)

// Binding is one buffer an entry reads or writes.
type Binding struct {
	Elem   Elem
	Access Access
}

// Shared is a workgroup-memory allocation of Count elements.
type Shared struct {
	Elem  Elem
	Count uint64
}

// RegType is a register's type: Lanes elements (1 for a scalar).
type RegType struct {
	Elem  Elem
	Lanes uint32
}

// Bytes returns the register's storage size, padded to RegisterAlignment.
func (t RegType) Bytes() uint64 {
	n := uint64(t.Lanes) * uint64(t.Elem.ByteSize())
	return (n + RegisterAlignment - 1) &^ (RegisterAlignment - 1)
}

// String returns the register type as "f32" or "vector<8xf32>".
func (t RegType) String() string {
	if t.Lanes == 1 {
		return t.Elem.String()
	}
	return "vector<" + strconv.Itoa(int(t.Lanes)) + "x" + t.Elem.String() + ">"
}

// Instr is one instruction. Which fields are meaningful depends on the
// opcode's layout: Dst for 'd', Args for the 'r's in order, Imm for 'i',
// 'u' and 'f' (the float's IEEE bits), Target for 't', Bindings for the
// 'b's in order.
type Instr struct {
	Op       Opcode
	Dst      uint32
	Args     []uint32
	Imm      int64
	Target   uint32
	Bindings [3]uint32
}

// Entry is one kernel: its interface and its code.
type Entry struct {
	Name             string
	WorkgroupSize    [3]uint32
	NumPushConstants uint32
	Bindings         []Binding
	Shared           []Shared
	Regs             []RegType
	Code             []Instr
}

// Threads returns the number of threads in a workgroup.
func (e *Entry) Threads() int {
	return int(e.WorkgroupSize[0]) * int(e.WorkgroupSize[1]) * int(e.WorkgroupSize[2])
}

// RegisterBytes returns the register storage of one thread.
func (e *Entry) RegisterBytes() uint64 {
	var n uint64
	for _, r := range e.Regs {
		n += r.Bytes()
	}
	return n
}

// SubgroupSize returns the subgroup size of the entry's workgroups:
// min(MaxSubgroupSize, threads). Threads, numbered x fastest, form
// consecutive subgroups; the last may be partial.
func (e *Entry) SubgroupSize() int { return min(MaxSubgroupSize, e.Threads()) }

// Executable is a vmvx executable: entry i is dispatch ordinal i.
type Executable struct {
	Entries []Entry
}
