package cuda

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gree-ml/gree/go/schemas/llvmcpu"
)

// Magic starts every cuda-nvptx-fb executable.
const Magic = "GPTX"

// Version is the format version this package reads and writes.
const Version = 1

// HeaderSize is the size of the fixed header.
const HeaderSize = 16

// Format is the executable format name recorded in the module (IREE's name
// for its CUDA executables).
const Format = "cuda-nvptx-fb"

// StatusBytes is the size of the status buffer of an entry that reports
// run-time errors.
const StatusBytes = 16

// MaxStaticSharedBytes is the most static shared memory a CUDA kernel may
// declare (48 KiB on every architecture).
const MaxStaticSharedBytes = 48 << 10

// Limits a valid executable stays within.
const (
	MaxVariants      = 64
	MaxEntries       = 1 << 16
	MaxNameLen       = 1024
	MaxBindings      = 1024
	MaxPushConstants = 1 << 12
	MaxBlockSize     = 1024
	MaxPTXBytes      = 1 << 28
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
	// buffer parameter.
	FlagErrors = 1 << 0
)

// Entry is one kernel's entry point.
type Entry struct {
	// Name is the dispatch's name (e.g. "main_dispatch_0").
	Name string
	// Symbol is the .entry's name in the PTX.
	Symbol string
	// BlockSize is the thread-block size (the kernel's workgroup size).
	BlockSize [3]int
	// SharedBytes is the static shared memory the entry declares.
	SharedBytes int
	// NumPushConstants is the number of int64 push constants.
	NumPushConstants int
	// Bindings gives each binding's access.
	Bindings []Access
	// Flags holds Flag* bits.
	Flags uint8
}

// Reports reports whether the entry reports run-time errors.
func (e *Entry) Reports() bool { return e.Flags&FlagErrors != 0 }

// NumParams is the number of .u64 parameters of the entry's .entry.
func (e *Entry) NumParams() int {
	n := 2*len(e.Bindings) + e.NumPushConstants
	if e.Reports() {
		n++
	}
	return n
}

// Variant is the executable built for one architecture.
type Variant struct {
	// Arch is the architecture ("sm_80", "sm_90a").
	Arch string
	// PTXVersion is the PTX ISA version ×10 (.version 7.8 is 78).
	PTXVersion int
	// Entries are the entry points, in dispatch-ordinal order.
	Entries []Entry
	// PTX is the module's text.
	PTX []byte
}

// Executable is a decoded cuda-nvptx-fb executable.
type Executable struct {
	Variants []Variant
}

// ErrorCode is what a kernel stores in its status buffer when a run-time
// check fails: llvm-cpu's packing (kind in the low 8 bits, binding in the
// next 24, the check's number above).
type ErrorCode = llvmcpu.ErrorCode

// Describe returns a sentence for a nonzero status word.
func Describe(code int64) string { return llvmcpu.Describe(code) }

// ParseArch splits "sm_90a" into its compute capability ×10 (90) and
// whether it is architecture-specific (the "a" suffix; "f" family
// variants count as specific too).
func ParseArch(arch string) (cc int, specific bool, err error) {
	s, ok := strings.CutPrefix(arch, "sm_")
	if !ok {
		return 0, false, fmt.Errorf("architecture %q is not sm_XY", arch)
	}
	if t, ok := strings.CutSuffix(s, "a"); ok {
		s, specific = t, true
	} else if t, ok := strings.CutSuffix(s, "f"); ok {
		s, specific = t, true
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 10 || n > 999 {
		return 0, false, fmt.Errorf("architecture %q is not sm_XY", arch)
	}
	return n, specific, nil
}

// Runs reports whether code built for arch runs on a device of compute
// capability cc (×10: 90 for 9.0).
func Runs(arch string, cc int) bool {
	a, specific, err := ParseArch(arch)
	if err != nil {
		return false
	}
	if specific {
		return a == cc
	}
	return a <= cc
}

// Best returns the index of the variant a device of compute capability cc
// should load: the highest architecture it runs (an architecture-specific
// one preferred at equal capability); -1 when none runs.
func (x *Executable) Best(cc int) int {
	best, bestCC, bestSpecific := -1, -1, false
	for i, v := range x.Variants {
		a, specific, err := ParseArch(v.Arch)
		if err != nil || !Runs(v.Arch, cc) {
			continue
		}
		if a > bestCC || (a == bestCC && specific && !bestSpecific) {
			best, bestCC, bestSpecific = i, a, specific
		}
	}
	return best
}

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
