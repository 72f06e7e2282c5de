package llvmcpu

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"unsafe"

	"github.com/gree-ml/gree/go/internal/dylib"
	"github.com/gree-ml/gree/go/status"
)

// systemAPI is the part of the LLVM-C API the target uses.
type systemAPI struct {
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
	Version         func(major, minor, patch *uint32)                                           `sym:"LLVMGetVersion,optional"`

	InitX86Info     func() `sym:"LLVMInitializeX86TargetInfo,optional"`
	InitX86Target   func() `sym:"LLVMInitializeX86Target,optional"`
	InitX86MC       func() `sym:"LLVMInitializeX86TargetMC,optional"`
	InitX86Asm      func() `sym:"LLVMInitializeX86AsmPrinter,optional"`
	InitAArch64Info func() `sym:"LLVMInitializeAArch64TargetInfo,optional"`
	InitAArch64Tgt  func() `sym:"LLVMInitializeAArch64Target,optional"`
	InitAArch64MC   func() `sym:"LLVMInitializeAArch64TargetMC,optional"`
	InitAArch64Asm  func() `sym:"LLVMInitializeAArch64AsmPrinter,optional"`
}

// systemLLVM is a libLLVM shared library bound through the LLVM-C API.
type systemLLVM struct {
	systemAPI
	lib *dylib.Library
}

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

// loadSystemLLVM opens and binds the system's libLLVM.
func loadSystemLLVM() (*systemLLVM, error) {
	lib, err := dylib.Open(dylib.Spec{What: "the system libLLVM (LLVM 19)", Candidates: libCandidates()})
	if err != nil {
		return nil, err
	}
	s := &systemLLVM{lib: lib}
	if err := lib.Bind(&s.systemAPI); err != nil {
		return nil, err
	}
	for _, f := range []func(){s.InitX86Info, s.InitX86Target, s.InitX86MC, s.InitX86Asm, s.InitAArch64Info, s.InitAArch64Tgt, s.InitAArch64MC, s.InitAArch64Asm} {
		if f != nil {
			f()
		}
	}
	return s, nil
}

// message copies and frees an LLVM message.
func (s *systemLLVM) message(p *byte) string {
	str := cstr(p)
	if p != nil {
		s.DisposeMessage(p)
	}
	return str
}

func (s *systemLLVM) describe() string {
	v := "LLVM"
	if s.Version != nil {
		var major, minor, patch uint32
		s.Version(&major, &minor, &patch)
		v = fmt.Sprintf("LLVM %d.%d.%d", major, minor, patch)
	}
	return fmt.Sprintf("%s (system %s)", v, filepath.Base(s.lib.Path))
}

func (s *systemLLVM) defaultTriple() string { return s.message(s.DefaultTriple()) }
func (s *systemLLVM) normalizeTriple(t string) string {
	return s.message(s.NormalizeTriple(t))
}
func (s *systemLLVM) hostCPU() string      { return s.message(s.HostCPUName()) }
func (s *systemLLVM) hostFeatures() string { return s.message(s.HostCPUFeatures()) }

// compile runs the default<On> pipeline through LLVMRunPasses (its
// PassBuilderOptions keep LLVM's default PipelineTuningOptions) and emits
// an object.
func (s *systemLLVM) compile(src string, m Machine, optimized *string) ([]byte, error) {
	ctx := s.ContextCreate()
	defer s.ContextDispose(ctx)
	data := append([]byte(src), 0)
	buf := s.CreateMemBuf(&data[0], uintptr(len(src)), "gree-llvmcpu")
	var mod uintptr
	var msg *byte
	if s.ParseIR(ctx, buf, &mod, &msg) != 0 { // takes the buffer
		return nil, status.Errorf(status.Internal, "llvm-cpu: LLVM rejected the generated IR (an emitter bug): %s", s.message(msg))
	}
	defer s.DisposeModule(mod)
	if s.VerifyModule(mod, 2, &msg) != 0 {
		return nil, status.Errorf(status.Internal, "llvm-cpu: generated IR does not verify (an emitter bug): %s", s.message(msg))
	}
	var target uintptr
	if s.TargetFromTrip(m.Triple, &target, &msg) != 0 {
		return nil, status.Errorf(status.InvalidArgument, "llvm-cpu: target triple %q: %s (this LLVM supports x86_64 and aarch64)", m.Triple, s.message(msg))
	}
	lvl, cg := optLevels(m)
	tm := s.CreateTM(target, m.Triple, m.CPU, m.Features, cg, 2 /* PIC */, 0)
	if tm == 0 {
		return nil, status.Errorf(status.InvalidArgument, "llvm-cpu: LLVM could not create a target machine for %s, cpu %q, features %q", m.Triple, m.CPU, m.Features)
	}
	defer s.DisposeTM(tm)
	s.SetTarget(mod, m.Triple)
	dl := s.CreateDL(tm)
	s.SetModuleDL(mod, dl)
	s.DisposeDL(dl)
	opts := s.CreatePBO()
	defer s.DisposePBO(opts)
	if e := s.RunPasses(mod, fmt.Sprintf("default<O%d>", lvl), tm, opts); e != 0 {
		p := s.ErrorMessage(e)
		str := cstr(p)
		s.DisposeErrMsg(p)
		return nil, status.Errorf(status.Internal, "llvm-cpu: LLVM optimization failed: %s", str)
	}
	if optimized != nil {
		*optimized = s.message(s.PrintModule(mod))
	}
	var out uintptr
	if s.EmitToMemBuf(tm, mod, 1 /* object */, &msg, &out) != 0 {
		return nil, status.Errorf(status.Internal, "llvm-cpu: LLVM code generation failed: %s", s.message(msg))
	}
	defer s.DisposeMemBuf(out)
	n := int(s.BufferSize(out))
	return bytes.Clone(unsafe.Slice(s.BufferStart(out), n)), nil
}

// optLevels returns the optimization pipeline's level (0 to 3) and code
// generation's: aggressive at every level but O0, as IREE's.
func optLevels(m Machine) (pipeline, codegen int32) {
	lvl := int32(min(max(m.OptLevel, 0), 3))
	if lvl > 0 {
		return lvl, 3
	}
	return 0, 0
}
