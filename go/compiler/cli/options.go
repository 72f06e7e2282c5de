package cli

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gree-ml/gree/go/compiler"
)

// optKind is how an option takes its value.
type optKind int

const (
	optBool   optKind = iota // -flag or -flag=true|false
	optString                // -flag=v or -flag v
	optList                  // repeated -flag=v, each value kept
)

type option struct {
	name    string
	kind    optKind
	help    string
	aliases []string
}

// options is iree-compile's flag table. Flags accepted for compatibility
// with IREE's guides are listed with their older spellings as aliases.
var options = []option{
	{name: "o", kind: optString, help: "Output filename ('-' for stdout, the default)"},
	{name: "help", kind: optBool, help: "Display available options"},
	{name: "version", kind: optBool, help: "Display the version of this program"},
	{name: "iree-hal-list-target-backends", kind: optBool, help: "Lists all registered target backends and exits"},
	{name: "iree-hal-target-backends", kind: optList, help: "Target backends for executable compilation (legacy; each maps to its default device)"},
	{name: "iree-hal-target-device", kind: optList, help: "Target device specifications (e.g. local, cuda, vulkan)"},
	{name: "iree-hal-local-target-device-backends", kind: optList, help: "Executable backends for the 'local' device (llvm-cpu, vmvx)"},
	{name: "iree-input-type", kind: optString, help: "Input dialect: auto (default), none, stablehlo, stablehlo_xla, tosa, tm_tensor, torch, onnx"},
	{name: "iree-input-demote-f64-to-f32", kind: optBool, help: "Converts all f64 types and values in the program to f32 (function signatures too: callers pass f32)"},
	{name: "iree-input-demote-i64-to-i32", kind: optBool, help: "Converts all i64 types and values in the program to i32 (function signatures too; index stays index)"},
	{name: "iree-input-promote-f16-to-f32", kind: optBool, help: "Converts all f16 types and values in the program to f32 (function signatures too)"},
	{name: "iree-input-promote-bf16-to-f32", kind: optBool, help: "Converts all bf16 types and values in the program to f32 (function signatures too)"},
	{name: "iree-input-demote-f32-to-f16", kind: optBool, help: "Converts all f32 types and values in the program to f16 (function signatures too)"},
	{name: "compile-to", kind: optString, help: "Compilation phase to stop after, printing the IR"},
	{name: "iree-parameter-export", kind: optString, help: "File path to an archive to export parameters to with an optional `scope=` prefix", aliases: []string{"iree-opt-export-parameters"}},
	{name: "iree-parameter-export-minimum-size", kind: optString, help: "Minimum size of constants to export to the parameter archive"},
	{name: "iree-parameter-splat", kind: optString, help: "File path to create a parameter archive of splat values from all parameter backed globals", aliases: []string{"iree-opt-splat-parameters"}},
	{name: "compile-from", kind: optString, help: "Compilation phase to start from"},
	{name: "iree-vm-bytecode-module-output-format", kind: optString, help: "flatbuffer-binary (default), flatbuffer-text, mlir-text"},
	{name: "iree-cuda-target", kind: optString, help: "CUDA target(s), comma-separated (sm_XY, code name such as ampere or hopper, or product name such as a100 or h100); default sm_60", aliases: []string{"iree-hal-cuda-llvm-target-arch"}},
	{name: "iree-cuda-use-ptxas", kind: optBool, help: "Accepted for compatibility (gree writes PTX, which the CUDA driver's JIT compiles; no ptxas is run)"},
	{name: "iree-cuda-use-ptxas-from", kind: optString, help: "Accepted for compatibility (gree runs no ptxas)"},
	{name: "iree-cuda-use-ptxas-params", kind: optString, help: "Accepted for compatibility (gree runs no ptxas)"},
	{name: "iree-cuda-target-features", kind: optString, help: "CUDA target features: +ptxNN picks the PTX ISA version (default: the oldest the target allows, at least 6.0)"},
	{name: "iree-rocm-target", kind: optString, help: "ROCm/HIP target (gfxNNNN, code name or product name)", aliases: []string{"iree-hip-target", "iree-rocm-target-chip"}},
	{name: "iree-vulkan-target", kind: optString, help: "Vulkan target (profile, architecture or product name)", aliases: []string{"iree-vulkan-target-triple"}},
	{name: "iree-vulkan-target-features", kind: optString, help: "Vulkan target features replacing the target's (spirv:v1.N,cap:<SPIR-V capability>,…)"},
	{name: "gree-test-gpu-strategy", kind: optString, help: "Testing: compile vmvx kernels with this Vulkan target's GPU strategy and legalization (thread-level kernels on the CPU drivers)"},
	{name: "iree-llvmcpu-target-cpu", kind: optString, help: "LLVM CPU name for llvm-cpu: host (the default: this machine's CPU, @HOSTCPU@), generic, or a CPU name"},
	{name: "iree-llvmcpu-target-cpu-features", kind: optString, help: "LLVM CPU features for llvm-cpu (+a,-b, or host)"},
	{name: "iree-llvmcpu-target-triple", kind: optString, help: "LLVM target triple for llvm-cpu (x86_64 or aarch64 Linux; default or 'host': this machine's)"},
	{name: "iree-llvmcpu-list-targets", kind: optBool, help: "Lists the LLVM targets llvm-cpu can build for and exits"},
	{name: "iree-llvmcpu-link-embedded", kind: optBool, help: "Accepted for compatibility (gree links ELF shared objects with ld.lld)"},
	{name: "iree-llvmcpu-link-static", kind: optBool, help: "Accepted for compatibility (not supported: gree links shared objects)"},
	{name: "iree-llvmcpu-debug-symbols", kind: optBool, help: "Accepted for compatibility (gree's shared objects carry no debug info)"},
	{name: "iree-llvmcpu-embedded-linker-path", kind: optString, help: "Accepted for compatibility (gree uses ld.lld-19, or $GREE_LLD)"},
	{name: "iree-llvmcpu-enable-ukernels", kind: optString, help: "Accepted for compatibility (llvm-cpu always maps contractions to its microkernel)"},
	{name: "iree-llvmcpu-target-abi", kind: optString, help: "Accepted for compatibility (the platform's default ABI)"},
	{name: "iree-llvmcpu-target-float-abi", kind: optString, help: "Accepted for compatibility (default, the platform's)"},
	{name: "iree-hal-dump-executable-files-to", kind: optString, help: "Directory to write each executable's sources, intermediates and binaries to (the three flags below)"},
	{name: "iree-hal-dump-executable-sources-to", kind: optString, help: "Directory to write each kernel's IR to, as its target receives it (.kir; legalized for GPU targets)"},
	{name: "iree-hal-dump-executable-intermediates-to", kind: optString, help: "Directory to write each executable's intermediate files to (llvm-cpu: .ll, .optimized.ll, .o)"},
	{name: "iree-hal-dump-executable-binaries-to", kind: optString, help: "Directory to write each executable's binary to (llvm-cpu: .so; vulkan-spirv: each kernel's .spv)"},
	{name: "iree-opt-data-tiling", kind: optBool, help: "Accepted for compatibility (no data-tiling layouts in gree yet)"},
	{name: "iree-opt-level", kind: optString, help: "Optimization level O0..O3 (llvm-cpu: LLVM's pass pipeline level; default O2, as IREE's)"},
	{name: "mlir-print-debuginfo", kind: optBool, help: "Print debug info in MLIR output"},
	{name: "iree-preprocessing-pass-pipeline", kind: optString, help: "Accepted when its passes only tune IREE's lowering (winograd, im2col, layouts, padding): a note says gree ignores them; other passes are errors"},
	{name: "mlir-timing", kind: optBool, help: "Display execution times: wall time of each of gree's phases, on stderr"},
	{name: "mlir-timing-display", kind: optString, help: "list (default) or tree: gree's report is a list either way"},
	{name: "mlir-print-ir-before-all", kind: optBool, help: "Print the IR before each of gree's phases (stderr)"},
	{name: "mlir-print-ir-after-all", kind: optBool, help: "Print the IR after each of gree's phases (stderr)"},
	{name: "mlir-print-ir-before", kind: optList, help: "Print the IR before a phase: " + strings.Join(compiler.InstrumentedPhases, ", ")},
	{name: "mlir-print-ir-after", kind: optList, help: "Print the IR after a phase: " + strings.Join(compiler.InstrumentedPhases, ", ")},
	{name: "mlir-print-op-generic", kind: optBool, help: "Print ops in generic form"},
	{name: "mlir-print-op-on-diagnostic", kind: optBool, help: "Print the op with each diagnostic"},
	{name: "iree-vm-bytecode-module-strip-source-map", kind: optBool, help: "Strip the source map from the module"},
	{name: "iree-vm-bytecode-module-strip-debug-ops", kind: optBool, help: "Strip debug ops from the module"},
	{name: "split-input-file", kind: optBool, help: "Split the input on '// -----' and compile each part"},
	{name: "iree-flow-trace-dispatch-tensors", kind: optBool, help: "Print every dispatch's input and output tensors at run time (to stderr)"},
	{name: "gree-sign-key", kind: optString, help: "Sign the output module with this Ed25519 private key file (PEM PKCS #8, as --gree-generate-signing-key or openssl genpkey -algorithm ed25519 write it, or a 32-byte seed, raw or hex); runtimes started with --module_trust=<public key file> load only modules signed by a trusted key"},
	{name: "gree-generate-signing-key", kind: optString, help: "Write a new Ed25519 key pair for --gree-sign-key to <value>.key (private) and <value>.pub (public, for --module_trust) and exit"},
	{name: "iree-execution-model", kind: optString, help: "async-internal (default: functions run to completion) or async-external (functions take wait and signal fences: IREE's coarse-fences ABI)"},
}

// parsed holds the values seen on a command line.
type parsed struct {
	values     map[string][]string
	positional []string
	// notes are said once on stderr: IREE options gree accepts and
	// ignores.
	notes []string
}

func (p *parsed) bool(name string) bool {
	v := p.values[name]
	if len(v) == 0 {
		return false
	}
	last := strings.ToLower(v[len(v)-1])
	return last == "" || last == "true" || last == "1"
}

func (p *parsed) str(name, def string) string {
	v := p.values[name]
	if len(v) == 0 {
		return def
	}
	return v[len(v)-1]
}

func (p *parsed) list(name string) []string {
	var out []string
	for _, v := range p.values[name] {
		out = append(out, v)
	}
	return out
}

func lookupOption(name string) *option {
	for i := range options {
		o := &options[i]
		if o.name == name {
			return o
		}
		for _, a := range o.aliases {
			if a == name {
				return o
			}
		}
	}
	return nil
}

// parseArgs parses an LLVM-cl-style command line.
func parseArgs(args []string) (*parsed, error) {
	p := &parsed{values: map[string][]string{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-" || !strings.HasPrefix(a, "-") {
			p.positional = append(p.positional, a)
			continue
		}
		if a == "--" {
			p.positional = append(p.positional, args[i+1:]...)
			break
		}
		name := strings.TrimLeft(a, "-")
		name, value, hasValue := strings.Cut(name, "=")
		o := lookupOption(name)
		if o == nil {
			io, note, err := ireeOption(name, value, hasValue)
			if err != nil {
				return nil, err
			}
			if io == nil {
				if near := nearestFlag(name); near != "" {
					return nil, fmt.Errorf("Unknown command line argument '%s'.  Try: 'iree-compile --help'\niree-compile: Did you mean '--%s'?", a, near)
				}
				return nil, fmt.Errorf("Unknown command line argument '%s'.  Try: 'iree-compile --help'", a)
			}
			if note != "" && !slices.Contains(p.notes, note) {
				p.notes = append(p.notes, note)
			}
			o = io
		}
		switch o.kind {
		case optBool:
			if !hasValue {
				value = "true"
			}
		default:
			if !hasValue {
				if i+1 >= len(args) {
					return nil, fmt.Errorf("for the --%s option: requires a value!", o.name)
				}
				i++
				value = args[i]
			}
		}
		p.values[o.name] = append(p.values[o.name], value)
	}
	return p, nil
}

// usage returns the --help text.
func usage() string {
	var b strings.Builder
	b.WriteString("OVERVIEW: IREE compilation driver (gree)\n\n")
	b.WriteString("USAGE: iree-compile [options] <input file or '-' for stdin>\n\n")
	b.WriteString("llvm-cpu: " + compiler.LLVMCPUDescribe() + "\n\n")
	b.WriteString("OPTIONS:\n")
	sorted := append([]option(nil), options...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].name < sorted[j].name })
	for _, o := range sorted {
		dash := "--"
		if len(o.name) == 1 {
			dash = "-"
		}
		val := ""
		if o.kind != optBool {
			val = "=<value>"
		}
		help := o.help
		if strings.Contains(help, "@HOSTCPU@") {
			help = strings.ReplaceAll(help, "@HOSTCPU@", hostCPU())
		}
		fmt.Fprintf(&b, "  %-50s - %s\n", dash+o.name+val, help)
		for _, a := range o.aliases {
			fmt.Fprintf(&b, "  %-50s - alias of --%s\n", "--"+a+val, o.name)
		}
	}
	return b.String()
}

// hostCPU names the CPU llvm-cpu builds for by default, for --help.
func hostCPU() string {
	if c := compiler.LLVMCPUHostCPU(); c != "" {
		return c
	}
	return "unknown here: LLVM is not installed"
}
