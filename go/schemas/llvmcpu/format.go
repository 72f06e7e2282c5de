package llvmcpu

import (
	"fmt"
	"strings"
)

// Magic starts every llvm-cpu executable.
const Magic = "GLLC"

// Version is the format version this package reads and writes.
const Version = 1

// ABIVersion is the version of the entry-point calling convention.
const ABIVersion = 1

// HeaderSize is the size of the fixed header.
const HeaderSize = 16

// Format is the executable format name recorded in the module.
const Format = "llvm-cpu-elf"

// Limits a valid executable stays within.
const (
	MaxEntries       = 1 << 16
	MaxNameLen       = 1024
	MaxBindings      = 1024
	MaxPushConstants = 1 << 16
	MaxFeatures      = 1024
	MaxStringLen     = 1 << 16
	MaxObjectBytes   = 1 << 30
)

// Entry is one kernel's entry point.
type Entry struct {
	// Name is the kernel's name (e.g. "main_dispatch_0").
	Name string
	// Symbol is the name the shared object exports it under.
	Symbol string
	// NumPushConstants and NumBindings give the interface's sizes.
	NumPushConstants int
	NumBindings      int
}

// Executable is a decoded llvm-cpu executable.
type Executable struct {
	// Triple is the LLVM target triple the code was built for.
	Triple string
	// CPU is the LLVM CPU name ("generic" for none in particular).
	CPU string
	// Features is the LLVM feature string passed to code generation.
	Features string
	// Required lists the CPU features a host must have.
	Required []string
	// Entries are the entry points, in dispatch-ordinal order.
	Entries []Entry
	// Object is the ELF shared object holding every entry symbol.
	Object []byte
}

// Arch returns the architecture part of the triple ("x86_64", "aarch64").
func (x *Executable) Arch() string {
	a, _, _ := strings.Cut(x.Triple, "-")
	switch a {
	case "amd64":
		return "x86_64"
	case "arm64":
		return "aarch64"
	}
	return a
}

// ErrorCode is what an entry returns when a run-time check fails: the low
// 8 bits are the ErrorKind, the next 24 the binding (or shared
// allocation) index, the rest the number of the check in the kernel
// (in program order, from 1).
type ErrorCode int64

// ErrorKind says which run-time check failed.
type ErrorKind uint8

// Error kinds.
const (
	ErrNone        ErrorKind = iota
	ErrOutOfBounds           // a load or store outside its binding
	ErrTileBounds            // a Contract or DWConv tile outside its binding
	ErrStep                  // a For loop step that is not positive
	ErrShared                // a load or store outside a shared allocation
)

// MakeError packs a check failure into an ErrorCode.
func MakeError(kind ErrorKind, binding int, check int) ErrorCode {
	return ErrorCode(int64(check)<<32 | int64(binding&0xffffff)<<8 | int64(kind))
}

// DecodeError describes an entry's nonzero return value.
func DecodeError(code int64) (kind ErrorKind, binding int, check int) {
	return ErrorKind(code & 0xff), int(code>>8) & 0xffffff, int(code >> 32)
}

// Describe returns a sentence for a nonzero entry return value.
func Describe(code int64) string {
	kind, b, check := DecodeError(code)
	switch kind {
	case ErrOutOfBounds:
		return fmt.Sprintf("load or store outside binding %d (check %d)", b, check)
	case ErrTileBounds:
		return fmt.Sprintf("tile op (contract or dwconv) tile outside binding %d (check %d)", b, check)
	case ErrStep:
		return fmt.Sprintf("loop step is not positive (check %d)", check)
	case ErrShared:
		return fmt.Sprintf("load or store outside shared allocation %d (check %d)", b, check)
	}
	return fmt.Sprintf("unknown error code %#x", code)
}

// CheckedFeatures are the CPU features, per architecture, that the
// compiler records as required when the target enables them and that a
// loader checks on the host (LLVM's names).
var CheckedFeatures = map[string][]string{
	"x86_64": {"sse3", "ssse3", "sse4.1", "sse4.2", "popcnt", "avx", "avx2", "fma", "f16c", "bmi", "bmi2", "lzcnt", "movbe",
		"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl", "avx512vnni", "avx512bf16", "avx512fp16", "avx512vbmi",
		"avx512vbmi2", "avx512ifma", "avx512bitalg", "avx512vpopcntdq", "avxvnni", "gfni", "vaes", "vpclmulqdq"},
	"aarch64": {"neon", "fp-armv8", "fullfp16", "dotprod", "i8mm", "bf16", "sve", "sve2", "rdm", "fp16fml"},
}
