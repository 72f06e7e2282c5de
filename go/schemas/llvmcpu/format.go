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

// The shared object of an executable is self-contained but for a few C
// library functions that LLVM calls: the f64 libm functions the llvm-cpu
// target calls for transcendental ops (go/compiler/target/llvmcpu,
// libmDouble, pow and atan2), the functions LLVM lowers intrinsics and
// instructions to when the CPU has no instruction for them (floor, fmod
// for frem, roundeven, …), the f32 variants LLVM's library-call
// simplification may narrow any of them to, sincos (LLVM combines a sin
// and a cos of one value) and the memory functions llvm.memset, memcpy
// and memmove may become. A loader refuses an object that imports
// anything else (see AllowedImport), so that an executable cannot reach
// the rest of the C library (system, dlopen, mprotect, …) by name.

// libmImports are the libm functions an object may import, by their f64
// names; their f32 variants (name + "f") are allowed too.
var libmImports = []string{
	// Transcendental ops (libmDouble in the compiler) and binary ops.
	"cbrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p",
	"sin", "cos", "tan", "sinh", "cosh", "tanh", "asin", "acos", "atan",
	"asinh", "acosh", "atanh", "erf", "erfc", "pow", "atan2",
	// Library calls LLVM may emit for intrinsics, instructions and
	// simplifications of the calls above.
	"floor", "ceil", "trunc", "round", "roundeven", "rint", "nearbyint",
	"fmod", "fma", "sqrt", "fabs", "copysign", "fmin", "fmax", "fminimum", "fmaximum",
	"exp10", "ldexp", "frexp", "hypot", "sincos", "lround", "llround",
	"lrint", "llrint",
}

// otherImports are the non-libm functions an object may import: memory
// functions and the compiler-runtime half-precision conversions.
var otherImports = []string{
	"memcpy", "memmove", "memset",
	"__extendhfsf2", "__truncsfhf2", "__truncdfhf2", "__truncsfbf2", "__truncdfbf2",
}

var allowedImports = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range libmImports {
		m[n], m[n+"f"] = true, true
	}
	for _, n := range otherImports {
		m[n] = true
	}
	return m
}()

// AllowedImport reports whether an executable's shared object may import
// (leave undefined, for the process's C library to resolve) the symbol
// name: a libm function LLVM or the llvm-cpu target calls, in its f64 or
// f32 variant, memcpy, memmove or memset, or a half-precision conversion
// helper.
func AllowedImport(name string) bool { return allowedImports[name] }
