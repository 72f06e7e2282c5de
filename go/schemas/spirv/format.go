package spirv

import (
	"fmt"

	"github.com/gree-ml/gree/go/schemas/llvmcpu"
)

// Magic starts every vulkan-spirv executable.
const Magic = "GSPV"

// Version is the format version this package reads and writes.
const Version = 1

// HeaderSize is the size of the fixed header.
const HeaderSize = 16

// Format is the executable format name recorded in the module (IREE's name
// for its Vulkan executables).
const Format = "vulkan-spirv-fb"

// SPIRVMagic is the first word of every SPIR-V module.
const SPIRVMagic = 0x07230203

// StatusBytes is the size of the status buffer of an entry that reports
// run-time errors.
const StatusBytes = 16

// Limits a valid executable stays within.
const (
	MaxEntries       = 1 << 16
	MaxNameLen       = 1024
	MaxBindings      = 1024
	MaxPushConstants = 1 << 12
	MaxCapabilities  = 256
	MaxWorkgroupSize = 1 << 16
	MaxSharedBytes   = 1 << 24
	MaxModuleBytes   = 1 << 28
)

// Access is how an entry uses a binding.
type Access uint8

// Binding accesses.
const (
	Read      Access = 1
	Write     Access = 2
	ReadWrite Access = 3
)

// Entry flags.
const (
	// FlagErrors: the entry reports run-time errors through a status
	// buffer after its bindings.
	FlagErrors = 1 << 0
)

// Entry is one kernel's entry point.
type Entry struct {
	// Name is the kernel's name (e.g. "main_dispatch_0").
	Name string
	// WorkgroupSize is the local size the module declares.
	WorkgroupSize [3]int
	// SubgroupSize is the subgroup size the kernel needs (0: any).
	SubgroupSize int
	// SharedBytes is the workgroup memory the module declares.
	SharedBytes int
	// NumPushConstants is the number of int64 push constants.
	NumPushConstants int
	// Bindings gives each binding's access.
	Bindings []Access
	// Flags holds Flag* bits.
	Flags uint8
	// Capabilities lists the SPIR-V capabilities the module declares.
	Capabilities []string
	// SPIRV is the module (SPIR-V words, little-endian).
	SPIRV []byte
}

// Reports reports whether the entry reports run-time errors.
func (e *Entry) Reports() bool { return e.Flags&FlagErrors != 0 }

// Executable is a decoded vulkan-spirv executable.
type Executable struct {
	// Target names the target description the code was built for.
	Target string
	// Entries are the entry points, in dispatch-ordinal order.
	Entries []Entry
}

// ErrorCode is what a shader stores in its status buffer when a run-time
// check fails: the same packing as llvm-cpu's (kind in the low 8 bits,
// binding in the next 24, the check's number above).
type ErrorCode = llvmcpu.ErrorCode

// Describe returns a sentence for a nonzero status word.
func Describe(code int64) string { return llvmcpu.Describe(code) }

func (a Access) String() string {
	switch a {
	case Read:
		return "read"
	case Write:
		return "write"
	case ReadWrite:
		return "read-write"
	}
	return fmt.Sprintf("access(%d)", uint8(a))
}
