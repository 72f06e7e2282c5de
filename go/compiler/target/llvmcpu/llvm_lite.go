package llvmcpu

import (
	"bytes"
	"fmt"
	"strings"
	"unsafe"

	"github.com/gree-ml/gree/go/internal/dylib"
	"github.com/gree-ml/gree/go/status"
)

// liteAPI is the part of llvmlite's C layer (the LLVMPY_* functions of
// libllvmlite.so, declared in llvmlite's ffi/*.cpp) the target uses.
// Strings it returns are malloc'ed and freed with LLVMPY_DisposeString.
type liteAPI struct {
	ContextCreate    func() uintptr                                                                                                            `sym:"LLVMPY_ContextCreate"`
	ContextDispose   func(ctx uintptr)                                                                                                         `sym:"LLVMPY_ContextDispose"`
	ParseAssembly    func(ctx uintptr, ir string, msg **byte) uintptr                                                                          `sym:"LLVMPY_ParseAssembly"`
	VerifyModule     func(mod uintptr, msg **byte) int32                                                                                       `sym:"LLVMPY_VerifyModule"`
	DisposeModule    func(mod uintptr)                                                                                                         `sym:"LLVMPY_DisposeModule"`
	PrintModule      func(mod uintptr, out **byte)                                                                                             `sym:"LLVMPY_PrintModuleToString"`
	SetTarget        func(mod uintptr, triple string)                                                                                          `sym:"LLVMPY_SetTarget"`
	SetDataLayout    func(mod uintptr, layout string)                                                                                          `sym:"LLVMPY_SetDataLayout"`
	TargetFromTriple func(triple string, msg **byte) uintptr                                                                                   `sym:"LLVMPY_GetTargetFromTriple"`
	CreateTM         func(t uintptr, triple, cpu, features string, opt int32, reloc, codeModel string, printMC, jit int32, abi string) uintptr `sym:"LLVMPY_CreateTargetMachine"`
	DisposeTM        func(tm uintptr)                                                                                                          `sym:"LLVMPY_DisposeTargetMachine"`
	CreateTMData     func(tm uintptr) uintptr                                                                                                  `sym:"LLVMPY_CreateTargetMachineData"`
	TargetDataString func(td uintptr, out **byte)                                                                                              `sym:"LLVMPY_CopyStringRepOfTargetData"`
	DisposeTD        func(td uintptr)                                                                                                          `sym:"LLVMPY_DisposeTargetData"`
	CreatePTO        func() uintptr                                                                                                            `sym:"LLVMPY_CreatePipelineTuningOptions"`
	DisposePTO       func(pto uintptr)                                                                                                         `sym:"LLVMPY_DisposePipelineTuningOptions"`
	CreatePB         func(tm, pto uintptr) uintptr                                                                                             `sym:"LLVMPY_CreatePassBuilder"`
	DisposePB        func(pb uintptr)                                                                                                          `sym:"LLVMPY_DisposePassBuilder"`
	DefaultPipeline  func(pb uintptr, speed, size int32) uintptr                                                                               `sym:"LLVMPY_buildPerModuleDefaultPipeline"`
	RunMPM           func(mpm, mod, pb uintptr)                                                                                                `sym:"LLVMPY_RunNewModulePassManager"`
	DisposeMPM       func(mpm uintptr)                                                                                                         `sym:"LLVMPY_DisposeNewModulePassManger"`
	EmitToMemory     func(tm, mod uintptr, object int32, msg **byte) uintptr                                                                   `sym:"LLVMPY_TargetMachineEmitToMemory"`
	BufferStart      func(buf uintptr) *byte                                                                                                   `sym:"LLVMPY_GetBufferStart"`
	BufferSize       func(buf uintptr) uintptr                                                                                                 `sym:"LLVMPY_GetBufferSize"`
	DisposeBuffer    func(buf uintptr)                                                                                                         `sym:"LLVMPY_DisposeMemoryBuffer"`
	DefaultTriple    func(out **byte)                                                                                                          `sym:"LLVMPY_GetDefaultTargetTriple"`
	TripleParts      func(triple string, arch, vendor, os, env **byte)                                                                         `sym:"LLVMPY_GetTripleParts"`
	HostCPUName      func(out **byte)                                                                                                          `sym:"LLVMPY_GetHostCPUName"`
	HostCPUFeatures  func(out **byte) int32                                                                                                    `sym:"LLVMPY_GetHostCPUFeatures"`
	DisposeString    func(s *byte)                                                                                                             `sym:"LLVMPY_DisposeString"`
	VersionInfo      func() uint32                                                                                                             `sym:"LLVMPY_GetVersionInfo"`
	InitTargetInfos  func()                                                                                                                    `sym:"LLVMPY_InitializeAllTargetInfos"`
	InitTargets      func()                                                                                                                    `sym:"LLVMPY_InitializeAllTargets"`
	InitTargetMCs    func()                                                                                                                    `sym:"LLVMPY_InitializeAllTargetMCs"`
	InitAsmPrinters  func()                                                                                                                    `sym:"LLVMPY_InitializeAllAsmPrinters"`
}

// liteLLVM is the LLVM inside llvmlite's libllvmlite.so.
type liteLLVM struct {
	liteAPI
	lib     *dylib.Library
	version string // llvmlite's version, "" when unknown
}

// minLiteLLVM is the oldest LLVM major version accepted from llvmlite
// (llvmlite 0.45 moved to LLVM 20; 0.44's LLVM 15 is too old for the IR).
const minLiteLLVM = 19

// loadLLVMLite finds, opens and binds libllvmlite.so.
func loadLLVMLite() (*liteLLVM, error) {
	cands := liteCandidates()
	if len(cands) == 0 {
		return nil, status.Errorf(status.Unavailable, "llvmlite's libllvmlite.so was not found (GREE_LIBLLVMLITE is unset and no site-packages beside the program or in the Python prefixes holds llvmlite)")
	}
	lib, err := dylib.Open(dylib.Spec{What: "llvmlite's libllvmlite.so", Candidates: cands})
	if err != nil {
		return nil, err
	}
	l := &liteLLVM{lib: lib, version: liteVersion(lib.Path)}
	if err := lib.Bind(&l.liteAPI); err != nil {
		return nil, err
	}
	if major := l.VersionInfo() >> 16; major < minLiteLLVM {
		return nil, status.Errorf(status.Unavailable, "%s bundles LLVM %d; gree needs LLVM %d or newer: pip install 'llvmlite>=0.45'", lib.Path, major, minLiteLLVM)
	}
	l.InitTargetInfos()
	l.InitTargets()
	l.InitTargetMCs()
	l.InitAsmPrinters()
	return l, nil
}

// str copies and frees a string llvmlite returned.
func (l *liteLLVM) str(p *byte) string {
	s := cstr(p)
	if p != nil {
		l.DisposeString(p)
	}
	return s
}

func (l *liteLLVM) describe() string {
	v := l.VersionInfo()
	lite := "llvmlite"
	if l.version != "" {
		lite += " " + l.version
	}
	return fmt.Sprintf("LLVM %d.%d.%d (%s, %s)", v>>16, v>>8&0xff, v&0xff, lite, l.lib.Path)
}

func (l *liteLLVM) defaultTriple() string {
	var p *byte
	l.DefaultTriple(&p)
	return l.str(p)
}

// normalizeTriple joins the normalized parts LLVM's Triple gives.
func (l *liteLLVM) normalizeTriple(t string) string {
	var arch, vendor, osName, env *byte
	l.TripleParts(t, &arch, &vendor, &osName, &env)
	parts := []string{l.str(arch), l.str(vendor), l.str(osName), l.str(env)}
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	if len(parts) == 0 || parts[0] == "" {
		return t
	}
	return strings.Join(parts, "-")
}

func (l *liteLLVM) hostCPU() string {
	var p *byte
	l.HostCPUName(&p)
	return l.str(p)
}

func (l *liteLLVM) hostFeatures() string {
	var p *byte
	if l.HostCPUFeatures(&p) == 0 {
		return ""
	}
	return l.str(p)
}

// compile mirrors systemLLVM.compile: a PassBuilder with LLVM's default
// PipelineTuningOptions and the per-module default pipeline at the same
// level is what LLVMRunPasses runs for "default<On>".
func (l *liteLLVM) compile(src string, m Machine, optimized *string) ([]byte, error) {
	ctx := l.ContextCreate()
	defer l.ContextDispose(ctx)
	var msg *byte
	mod := l.ParseAssembly(ctx, src, &msg)
	if mod == 0 {
		return nil, status.Errorf(status.Internal, "llvm-cpu: LLVM rejected the generated IR (an emitter bug): %s", l.str(msg))
	}
	defer l.DisposeModule(mod)
	if l.VerifyModule(mod, &msg) != 0 {
		return nil, status.Errorf(status.Internal, "llvm-cpu: generated IR does not verify (an emitter bug): %s", l.str(msg))
	}
	target := l.TargetFromTriple(m.Triple, &msg)
	if target == 0 {
		return nil, status.Errorf(status.InvalidArgument, "llvm-cpu: target triple %q: %s (this LLVM supports x86_64 and aarch64)", m.Triple, l.str(msg))
	}
	lvl, cg := optLevels(m)
	tm := l.CreateTM(target, m.Triple, m.CPU, m.Features, cg, "pic", "default", 0, 0, "")
	if tm == 0 {
		return nil, status.Errorf(status.InvalidArgument, "llvm-cpu: LLVM could not create a target machine for %s, cpu %q, features %q", m.Triple, m.CPU, m.Features)
	}
	defer l.DisposeTM(tm)
	l.SetTarget(mod, m.Triple)
	td := l.CreateTMData(tm)
	var layout *byte
	l.TargetDataString(td, &layout)
	l.DisposeTD(td)
	l.SetDataLayout(mod, l.str(layout))
	pto := l.CreatePTO()
	defer l.DisposePTO(pto)
	pb := l.CreatePB(tm, pto)
	defer l.DisposePB(pb)
	// Older llvmlites take (pb, speed, size), newer (pb, speed): the extra
	// argument register is ignored by the latter.
	mpm := l.DefaultPipeline(pb, lvl, 0)
	l.RunMPM(mpm, mod, pb)
	l.DisposeMPM(mpm)
	if optimized != nil {
		var p *byte
		l.PrintModule(mod, &p)
		*optimized = l.str(p)
	}
	buf := l.EmitToMemory(tm, mod, 1, &msg)
	if buf == 0 {
		return nil, status.Errorf(status.Internal, "llvm-cpu: LLVM code generation failed: %s", l.str(msg))
	}
	defer l.DisposeBuffer(buf)
	n := int(l.BufferSize(buf))
	return bytes.Clone(unsafe.Slice(l.BufferStart(buf), n)), nil
}
