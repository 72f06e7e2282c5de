package compiler

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gree-ml/gree/go/compiler/codegen"
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/llvmcpu"
	"github.com/gree-ml/gree/go/compiler/target/mathexp"
	schema "github.com/gree-ml/gree/go/schemas/llvmcpu"
	"github.com/gree-ml/gree/go/schemas/module"
)

// LLVMCPUOptions are the llvm-cpu target's flags.
type LLVMCPUOptions struct {
	// TargetCPU is --iree-llvmcpu-target-cpu: "host" (the default, "" too),
	// "generic" or an LLVM CPU name.
	TargetCPU string
	// TargetCPUFeatures is --iree-llvmcpu-target-cpu-features ("+avx2,…").
	TargetCPUFeatures string
	// TargetTriple is --iree-llvmcpu-target-triple ("" = the host's).
	TargetTriple string
	// OptLevel is --iree-opt-level ("O0".."O3"; "" = O2, as IREE's), LLVM's
	// pipeline level.
	OptLevel string
}

// DumpOptions are the --iree-hal-dump-executable-{sources,intermediates,
// binaries}-to directories ("" writes nothing; --iree-hal-dump-executable-
// files-to sets all three). Every backend writes each kernel's IR as its
// target receives it (sources: KERNEL.kir, legalized for GPU targets);
// llvm-cpu writes NAME.ll, NAME.optimized.ll and NAME.o (intermediates)
// and NAME.so (binaries); vulkan-spirv writes each kernel's SPIR-V module
// (binaries: KERNEL.spv).
type DumpOptions struct {
	Sources, Intermediates, Binaries string
}

// LLVMCPUStrategy is the codegen strategy of the llvm-cpu target: vmvx's
// reduction width (partial sums combine in the same order, so the two CPU
// targets agree bit for bit outside matrix products), 32-lane vectors
// elsewhere (LLVM splits them into the machine's registers; wider ones
// only cost compile time), and Contract tiles sized for the
// register-blocked microkernel the target maps them to (96 rows × 128
// columns: whole 8 × 32 blocks; 96 rows keep B's re-reads low on large
// products, 128 columns give MobileNetV2's 96×196 and 64×196 products
// two workgroups to share among threads; smaller products get shorter row
// tiles until they have 16 workgroups: the microkernel is tile-invariant,
// TestContractTileInvariant). Workgroups of other dispatches
// cover 8192 elements, an eighth of vmvx's: a native workgroup is cheap,
// and MobileNetV2's depthwise and pad dispatches (15-300k elements) then
// split into enough equal workgroups for two or more threads.
var LLVMCPUStrategy = codegen.Strategy{VectorWidth: 32, ReductionWidth: codegen.CPUStrategy.VectorWidth, WorkgroupElements: 8192, Contract: true, ContractTile: [2]int64{96, 128}, ContractMinWorkgroups: 16, ContractEpilogue: true, ContractTaps: true, DWConv: true, Recurrence: true, RecurrenceWorkgroups: 2, ConvChainChannels: 8, ConvChainScratch: 60 << 10}

func init() {
	RegisterBackend(&Backend{
		Target:   Target{Name: "llvm-cpu", Device: "local", Available: llvmcpu.Available},
		Format:   schema.Format,
		Strategy: LLVMCPUStrategy,
		Legalize: expandCPUMath,
		Emit: func(ks []*kir.Kernel) ([]byte, error) {
			data, _, err := emitLLVMCPU(ks, Options{})
			return data, err
		},
		EmitWith: emitLLVMCPU,
	})
}

// cpuInlineMath are the functions llvm-cpu computes inline in f32 (f16
// and bf16 through f32: mathexp.ExpandWhereFast, within 2 ULP; erf
// within mathexp.ErfFastULP by one rational function) rather than by a
// libm call per element in f64: the ones models spend their time in
// (sigmoid, SiLU and softmax's exp, tanh, log-softmax's log, GELU's erf),
// whose inline form vectorizes. f64 and the other functions call libm.
var cpuInlineMath = map[kir.Kind]bool{
	kir.Exp: true, kir.Exp2: true, kir.Expm1: true, kir.Tanh: true,
	kir.Log: true, kir.Log2: true, kir.Log1p: true, kir.Erf: true,
}

// expandCPUMath expands cpuInlineMath's functions on f32, f16 and bf16.
func expandCPUMath(k *kir.Kernel) error {
	return mathexp.ExpandWhereFast(k, func(kind kir.Kind, s kir.Scalar) bool {
		return !cpuInlineMath[kind] || !(s == kir.F32 || s == kir.F16 || s == kir.BF16)
	})
}

// emitLLVMCPU builds the kernels for the machine the flags describe and
// records it in the module's attributes.
func emitLLVMCPU(ks []*kir.Kernel, opts Options) ([]byte, []module.Attr, error) {
	m, err := llvmcpu.ResolveMachine(llvmcpu.Options{CPU: opts.LLVMCPU.TargetCPU, Features: opts.LLVMCPU.TargetCPUFeatures, Triple: opts.LLVMCPU.TargetTriple})
	if err != nil {
		return nil, nil, err
	}
	switch opts.LLVMCPU.OptLevel {
	case "":
		// IREE's default: LLVM's O2 pipeline (then aggressive code
		// generation); the O3 pipeline costs ~40% more compile time.
		m.OptLevel = 2
	case "O3", "3":
	case "O0", "O1", "O2", "0", "1", "2":
		m.OptLevel = int(opts.LLVMCPU.OptLevel[len(opts.LLVMCPU.OptLevel)-1] - '0')
	default:
		return nil, nil, fmt.Errorf("--iree-opt-level=%s: expected O0, O1, O2 or O3", opts.LLVMCPU.OptLevel)
	}
	name := strings.TrimSuffix(filepath.Base(opts.Filename), filepath.Ext(opts.Filename))
	if name == "" || name == "." || strings.HasPrefix(name, "<") {
		name = "module"
	}
	dump := llvmcpu.Dump{Intermediates: opts.Dump.Intermediates, Binaries: opts.Dump.Binaries,
		Name: name + "_llvm_cpu_" + strings.ReplaceAll(strings.SplitN(m.Triple, "-", 2)[0], "-", "_")}
	data, err := llvmcpu.EmitWithDump(ks, m, dump)
	if err != nil {
		return nil, nil, err
	}
	attrs := []module.Attr{{Key: "llvmcpu.target_triple", Value: m.Triple}, {Key: "llvmcpu.target_cpu", Value: m.CPU}}
	return data, attrs, nil
}

// emitExecutable runs a backend's emitter.
func emitExecutable(be *Backend, ks []*kir.Kernel, opts Options) ([]byte, []module.Attr, error) {
	if be.EmitWith != nil {
		return be.EmitWith(ks, opts)
	}
	data, err := be.Emit(ks)
	return data, nil, err
}

// LLVMCPUHostCPU returns LLVM's name for this machine's CPU, the llvm-cpu
// target's default, or "" when LLVM is not available.
func LLVMCPUHostCPU() string {
	c, err := llvmcpu.HostCPU()
	if err != nil {
		return ""
	}
	return c
}

// LLVMCPUDescribe says which LLVM and linker the llvm-cpu target uses
// ("LLVM 19.1.7 (system libLLVM.so.19.1), linked with /usr/bin/ld.lld-19"),
// or why it is unavailable.
func LLVMCPUDescribe() string { return llvmcpu.Describe() }

// LLVMCPUTargets lists the architectures llvm-cpu builds for, with
// LLVM's descriptions, or the reason LLVM is not available.
func LLVMCPUTargets() ([]string, error) {
	if err := llvmcpu.Available(); err != nil {
		return nil, err
	}
	return []string{"aarch64    - AArch64 (little endian), Linux ELF", "x86-64     - 64-bit X86: EM64T and AMD64, Linux ELF"}, nil
}
