package llvmcpu

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/gree-ml/gree/go/internal/dylib"
	"github.com/gree-ml/gree/go/status"
)

// InstallHint tells a user how to get what the llvm-cpu target needs.
const InstallHint = "the llvm-cpu target needs LLVM 19 at run time: install the Debian/Ubuntu packages libllvm19 and lld-19 (apt-get install libllvm19 lld-19), or set GREE_LIBLLVM to libLLVM's path and GREE_LLD to ld.lld's"

// api is the part of the LLVM-C API the target uses.
type api struct {
	ContextCreate   func() uintptr                                                              `sym:"LLVMContextCreate"`
	ContextDispose  func(uintptr)                                                               `sym:"LLVMContextDispose"`
	CreateMemBuf    func(data *byte, n uintptr, name string) uintptr                            `sym:"LLVMCreateMemoryBufferWithMemoryRangeCopy"`
	ParseIR         func(ctx, buf uintptr, mod *uintptr, msg **byte) int32                      `sym:"LLVMParseIRInContext"`
	DisposeMessage  func(*byte)                                                                 `sym:"LLVMDisposeMessage"`
	TargetFromTrip  func(triple string, t *uintptr, msg **byte) int32                           `sym:"LLVMGetTargetFromTriple"`
	CreateTM        func(t uintptr, triple, cpu, features string, lvl, reloc, cm int32) uintptr `sym:"LLVMCreateTargetMachine"`
	DisposeTM       func(uintptr)                                                               `sym:"LLVMDisposeTargetMachine"`
	CreateDL        func(tm uintptr) uintptr                                                    `sym:"LLVMCreateTargetDataLayout"`
	SetModuleDL     func(mod, dl uintptr)                                                       `sym:"LLVMSetModuleDataLayout"`
	DisposeDL       func(uintptr)                                                               `sym:"LLVMDisposeTargetData"`
	SetTarget       func(mod uintptr, triple string)                                            `sym:"LLVMSetTarget"`
	DefaultTriple   func() *byte                                                                `sym:"LLVMGetDefaultTargetTriple"`
	NormalizeTriple func(string) *byte                                                          `sym:"LLVMNormalizeTargetTriple"`
	HostCPUName     func() *byte                                                                `sym:"LLVMGetHostCPUName"`
	HostCPUFeatures func() *byte                                                                `sym:"LLVMGetHostCPUFeatures"`
	CreatePBO       func() uintptr                                                              `sym:"LLVMCreatePassBuilderOptions"`
	DisposePBO      func(uintptr)                                                               `sym:"LLVMDisposePassBuilderOptions"`
	RunPasses       func(mod uintptr, passes string, tm, opts uintptr) uintptr                  `sym:"LLVMRunPasses"`
	ErrorMessage    func(uintptr) *byte                                                         `sym:"LLVMGetErrorMessage"`
	DisposeErrMsg   func(*byte)                                                                 `sym:"LLVMDisposeErrorMessage"`
	VerifyModule    func(mod uintptr, action int32, msg **byte) int32                           `sym:"LLVMVerifyModule"`
	EmitToMemBuf    func(tm, mod uintptr, kind int32, msg **byte, out *uintptr) int32           `sym:"LLVMTargetMachineEmitToMemoryBuffer"`
	BufferStart     func(uintptr) *byte                                                         `sym:"LLVMGetBufferStart"`
	BufferSize      func(uintptr) uintptr                                                       `sym:"LLVMGetBufferSize"`
	DisposeMemBuf   func(uintptr)                                                               `sym:"LLVMDisposeMemoryBuffer"`
	DisposeModule   func(uintptr)                                                               `sym:"LLVMDisposeModule"`
	PrintModule     func(uintptr) *byte                                                         `sym:"LLVMPrintModuleToString"`

	InitX86Info     func() `sym:"LLVMInitializeX86TargetInfo,optional"`
	InitX86Target   func() `sym:"LLVMInitializeX86Target,optional"`
	InitX86MC       func() `sym:"LLVMInitializeX86TargetMC,optional"`
	InitX86Asm      func() `sym:"LLVMInitializeX86AsmPrinter,optional"`
	InitAArch64Info func() `sym:"LLVMInitializeAArch64TargetInfo,optional"`
	InitAArch64Tgt  func() `sym:"LLVMInitializeAArch64Target,optional"`
	InitAArch64MC   func() `sym:"LLVMInitializeAArch64TargetMC,optional"`
	InitAArch64Asm  func() `sym:"LLVMInitializeAArch64AsmPrinter,optional"`
}

// toolchain is a loaded LLVM: the C API and the linker's path.
type toolchain struct {
	api
	lib *dylib.Library
	lld string
}

var (
	tcOnce sync.Once
	tc     *toolchain
	tcErr  error
)

// libCandidates are the libLLVM names tried in order (Debian's libllvm19
// installs libLLVM.so.19.1; llvm-19-dev adds the other names). GREE_LIBLLVM,
// when set, is the only candidate.
func libCandidates() []string {
	if p := os.Getenv("GREE_LIBLLVM"); p != "" {
		return []string{p}
	}
	var c []string
	c = append(c, "libLLVM.so.19.1", "libLLVM-19.so", "/usr/lib/llvm-19/lib/libLLVM.so.1", "/usr/lib/llvm-19/lib/libLLVM.so",
		// Untested fallbacks: the IR uses nothing newer than LLVM 18.
		"libLLVM.so.20.1", "libLLVM-20.so", "libLLVM.so.18.1", "libLLVM-18.so")
	if runtime.GOOS == "darwin" {
		c = append(c, "/opt/homebrew/opt/llvm@19/lib/libLLVM.dylib", "/usr/local/opt/llvm@19/lib/libLLVM.dylib")
	}
	return c
}

// lldCandidates are the linker names tried in order; GREE_LLD, when set,
// is the only one.
func lldCandidates() []string {
	if p := os.Getenv("GREE_LLD"); p != "" {
		return []string{p}
	}
	return []string{"ld.lld-19", "/usr/lib/llvm-19/bin/ld.lld", "ld.lld", "ld.lld-20", "ld.lld-18"}
}

// load finds libLLVM and ld.lld once per process.
func load() (*toolchain, error) {
	tcOnce.Do(func() {
		lib, err := dylib.Open(dylib.Spec{What: "libLLVM (LLVM 19)", Candidates: libCandidates(), Install: InstallHint})
		if err != nil {
			tcErr = err
			return
		}
		t := &toolchain{lib: lib}
		if err := lib.Bind(&t.api); err != nil {
			tcErr = fmt.Errorf("%w; %s", err, InstallHint)
			return
		}
		for _, c := range lldCandidates() {
			if p, err := exec.LookPath(c); err == nil {
				t.lld = p
				break
			}
		}
		if t.lld == "" {
			tcErr = status.Errorf(status.Unavailable, "ld.lld (LLVM's linker) was not found; tried %s; %s", strings.Join(lldCandidates(), ", "), InstallHint)
			return
		}
		for _, f := range []func(){t.InitX86Info, t.InitX86Target, t.InitX86MC, t.InitX86Asm, t.InitAArch64Info, t.InitAArch64Tgt, t.InitAArch64MC, t.InitAArch64Asm} {
			if f != nil {
				f()
			}
		}
		tc = t
	})
	return tc, tcErr
}

// Available reports whether the llvm-cpu target can compile here: nil when
// libLLVM and ld.lld were found, else an UNAVAILABLE error naming what to
// install.
func Available() error {
	_, err := load()
	return err
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

// message copies and frees an LLVM message.
func (t *toolchain) message(p *byte) string {
	s := cstr(p)
	if p != nil {
		t.DisposeMessage(p)
	}
	return s
}

// HostTriple returns LLVM's default target triple, HostCPU the host's CPU
// name and HostFeatures its feature string ("+avx2,-avx512f,…").
func HostTriple() (string, error) {
	t, err := load()
	if err != nil {
		return "", err
	}
	return t.message(t.DefaultTriple()), nil
}

// HostCPU returns LLVM's name for the host CPU.
func HostCPU() (string, error) {
	t, err := load()
	if err != nil {
		return "", err
	}
	return t.message(t.HostCPUName()), nil
}

// HostFeatures returns LLVM's feature string for the host CPU.
func HostFeatures() (string, error) {
	t, err := load()
	if err != nil {
		return "", err
	}
	return t.message(t.HostCPUFeatures()), nil
}
