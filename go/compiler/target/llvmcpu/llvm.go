package llvmcpu

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"unsafe"

	"github.com/gree-ml/gree/go/status"
)

// InstallHint tells a user how to get what the llvm-cpu target needs.
const InstallHint = "the llvm-cpu target needs LLVM at run time: `pip install llvmlite` (gree's Python package depends on it; set GREE_LIBLLVMLITE to its llvmlite/binding/libllvmlite.so when gree does not find it), or the Debian/Ubuntu package libllvm19 (apt-get install libllvm19 lld-19; GREE_LIBLLVM names another libLLVM)"

// llvm is one LLVM build the target compiles with: the system's libLLVM
// through the LLVM-C API (llvm_system.go) or the one inside llvmlite's
// libllvmlite.so through its LLVMPY_* functions (llvm_lite.go).
type llvm interface {
	// describe names the LLVM and where it came from, e.g. "LLVM 19.1.7
	// (system libLLVM.so.19.1)".
	describe() string
	// defaultTriple is LLVM's host triple; normalizeTriple normalizes a
	// user's triple ("x86_64-linux-gnu" → "x86_64-unknown-linux-gnu").
	defaultTriple() string
	normalizeTriple(string) string
	// hostCPU and hostFeatures are LLVM's host CPU name and feature string.
	hostCPU() string
	hostFeatures() string
	// compile parses LLVM IR text, optimizes it with LLVM's default
	// per-module pipeline at m.OptLevel and returns the object file emitted
	// for m (PIC); with optimized non-nil it also returns the optimized IR.
	compile(src string, m Machine, optimized *string) ([]byte, error)
}

// toolchain is the loaded LLVM and the linker the target uses.
type toolchain struct {
	llvm
	// lld is ld.lld's path, or "" when gree's own linker links.
	lld string
}

var (
	tcOnce sync.Once
	tc     *toolchain
	tcErr  error
)

// llvmChoice is GREE_LLVM: "system" (libLLVM only), "llvmlite" (llvmlite
// only) or "" / "auto" (the system's libLLVM, else llvmlite's).
func llvmChoice() (string, error) {
	switch c := strings.ToLower(os.Getenv("GREE_LLVM")); c {
	case "", "auto":
		return "auto", nil
	case "system", "llvmlite":
		return c, nil
	default:
		return "", status.Errorf(status.InvalidArgument, "GREE_LLVM=%s: expected system, llvmlite or auto", c)
	}
}

// linkerChoice is GREE_LINKER: "lld" (ld.lld only), "gree" (gree's own
// linker) or "" / "auto" (ld.lld when found, else gree's).
func linkerChoice() (string, error) {
	switch c := strings.ToLower(os.Getenv("GREE_LINKER")); c {
	case "", "auto":
		return "auto", nil
	case "lld", "gree":
		return c, nil
	default:
		return "", status.Errorf(status.InvalidArgument, "GREE_LINKER=%s: expected lld, gree or auto", c)
	}
}

// lldCandidates are the linker names tried in order; GREE_LLD, when set,
// is the only one.
func lldCandidates() []string {
	if p := os.Getenv("GREE_LLD"); p != "" {
		return []string{p}
	}
	return []string{"ld.lld-19", "/usr/lib/llvm-19/bin/ld.lld", "ld.lld", "ld.lld-20", "ld.lld-18"}
}

// findLLD returns ld.lld's path or "".
func findLLD() string {
	for _, c := range lldCandidates() {
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
	}
	return ""
}

// load picks the LLVM and the linker once per process.
func load() (*toolchain, error) {
	tcOnce.Do(func() { tc, tcErr = pick() })
	return tc, tcErr
}

// pick loads the LLVM GREE_LLVM asks for (the system's libLLVM first by
// default, then llvmlite's) and finds ld.lld unless GREE_LINKER=gree.
func pick() (*toolchain, error) {
	choice, err := llvmChoice()
	if err != nil {
		return nil, err
	}
	lk, err := linkerChoice()
	if err != nil {
		return nil, err
	}
	var l llvm
	var why []string
	if choice != "llvmlite" {
		sys, err := loadSystemLLVM()
		if err == nil {
			l = sys
		} else {
			why = append(why, err.Error())
		}
	}
	if l == nil && choice != "system" {
		lite, err := loadLLVMLite()
		if err == nil {
			l = lite
		} else {
			why = append(why, err.Error())
		}
	}
	if l == nil {
		return nil, status.Errorf(status.Unavailable, "llvm-cpu: no usable LLVM (GREE_LLVM=%s): %s; %s", choice, strings.Join(why, "; "), InstallHint)
	}
	t := &toolchain{llvm: l}
	if lk != "gree" {
		t.lld = findLLD()
		if t.lld == "" && lk == "lld" {
			return nil, status.Errorf(status.Unavailable, "ld.lld (LLVM's linker) was not found and GREE_LINKER=lld asks for it; tried %s; install lld-19 or unset GREE_LINKER to use gree's own linker", strings.Join(lldCandidates(), ", "))
		}
	}
	return t, nil
}

// Available reports whether the llvm-cpu target can compile here: nil when
// an LLVM was found, else an UNAVAILABLE error naming what to install.
func Available() error {
	_, err := load()
	return err
}

// Describe says which LLVM and linker the target uses ("LLVM 19.1.7
// (system libLLVM.so.19.1), linked with /usr/bin/ld.lld-19"), or why none
// is available.
func Describe() string {
	t, err := load()
	if err != nil {
		return "unavailable: " + err.Error()
	}
	linker := "gree's linker"
	if t.lld != "" {
		linker = t.lld
	}
	return fmt.Sprintf("%s, linked with %s", t.describe(), linker)
}

// cstr copies a NUL-terminated C string.
func cstr(p *byte) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}

// HostTriple returns LLVM's default target triple.
func HostTriple() (string, error) {
	t, err := load()
	if err != nil {
		return "", err
	}
	return t.defaultTriple(), nil
}

// HostCPU returns LLVM's name for the host CPU.
func HostCPU() (string, error) {
	t, err := load()
	if err != nil {
		return "", err
	}
	return t.hostCPU(), nil
}

// HostFeatures returns LLVM's feature string for the host CPU
// ("+avx2,-avx512f,…").
func HostFeatures() (string, error) {
	t, err := load()
	if err != nil {
		return "", err
	}
	return t.hostFeatures(), nil
}
