package llvmcpu

import (
	"os"
	"runtime"
	"strings"
	"sync"

	"golang.org/x/sys/cpu"
)

// hostArch is the host's architecture as the format's triples name it.
func hostArch() string {
	switch runtime.GOARCH {
	case "amd64":
		return "x86_64"
	case "arm64":
		return "aarch64"
	}
	return runtime.GOARCH
}

// featureChecks report whether the host has each checked feature.
var featureChecks = map[string]func() bool{
	"sse3": func() bool { return cpu.X86.HasSSE3 }, "ssse3": func() bool { return cpu.X86.HasSSSE3 },
	"sse4.1": func() bool { return cpu.X86.HasSSE41 }, "sse4.2": func() bool { return cpu.X86.HasSSE42 },
	"popcnt": func() bool { return cpu.X86.HasPOPCNT }, "avx": func() bool { return cpu.X86.HasAVX && cpu.X86.HasOSXSAVE },
	"avx2": func() bool { return cpu.X86.HasAVX2 }, "fma": func() bool { return cpu.X86.HasFMA },
	"f16c": func() bool { return cpu.X86.HasF16C }, "bmi": func() bool { return cpu.X86.HasBMI1 },
	"bmi2": func() bool { return cpu.X86.HasBMI2 }, "lzcnt": func() bool { return cpu.X86.HasLZCNT },
	"movbe": func() bool { return cpu.X86.HasMOVBE }, "avx512f": func() bool { return cpu.X86.HasAVX512F },
	"avx512cd": func() bool { return cpu.X86.HasAVX512CD }, "avx512bw": func() bool { return cpu.X86.HasAVX512BW },
	"avx512dq": func() bool { return cpu.X86.HasAVX512DQ }, "avx512vl": func() bool { return cpu.X86.HasAVX512VL },
	"avx512vnni": func() bool { return cpu.X86.HasAVX512VNNI }, "avx512bf16": func() bool { return cpu.X86.HasAVX512BF16 },
	"avx512fp16": func() bool { return procFlag("avx512_fp16") }, "avx512vbmi": func() bool { return cpu.X86.HasAVX512VBMI },
	"avx512vbmi2": func() bool { return cpu.X86.HasAVX512VBMI2 }, "avx512ifma": func() bool { return cpu.X86.HasAVX512IFMA },
	"avx512bitalg": func() bool { return cpu.X86.HasAVX512BITALG }, "avx512vpopcntdq": func() bool { return cpu.X86.HasAVX512VPOPCNTDQ },
	"avxvnni": func() bool { return cpu.X86.HasAVXVNNI }, "gfni": func() bool { return cpu.X86.HasAVX512GFNI || procFlag("gfni") },
	"vaes": func() bool { return cpu.X86.HasAVX512VAES || procFlag("vaes") }, "vpclmulqdq": func() bool { return cpu.X86.HasAVX512VPCLMULQDQ || procFlag("vpclmulqdq") },
	"neon": func() bool { return cpu.ARM64.HasASIMD }, "fp-armv8": func() bool { return cpu.ARM64.HasFP },
	"fullfp16": func() bool { return cpu.ARM64.HasFPHP && cpu.ARM64.HasASIMDHP }, "dotprod": func() bool { return cpu.ARM64.HasASIMDDP },
	"i8mm": func() bool { return cpu.ARM64.HasI8MM }, "bf16": func() bool { return procFlag("bf16") },
	"sve": func() bool { return cpu.ARM64.HasSVE }, "sve2": func() bool { return cpu.ARM64.HasSVE2 },
	"rdm": func() bool { return cpu.ARM64.HasASIMDRDM }, "fp16fml": func() bool { return cpu.ARM64.HasASIMDFHM },
	"sse4a": func() bool { return procFlag("sse4a") }, "fma4": func() bool { return procFlag("fma4") },
	"xop": func() bool { return procFlag("xop") }, "amx-tile": func() bool { return procFlag("amx_tile") },
	"amx-int8": func() bool { return procFlag("amx_int8") }, "amx-bf16": func() bool { return cpu.X86.HasAMXBF16 || procFlag("amx_bf16") },
	"lse": func() bool { return cpu.ARM64.HasATOMICS }, "lse128": func() bool { return procFlag("lse128") },
	"sve2p1": func() bool { return procFlag("sve2p1") }, "sve2-bitperm": func() bool { return procFlag("svebitperm") },
	"f32mm": func() bool { return procFlag("svef32mm") }, "f64mm": func() bool { return procFlag("svef64mm") },
	"sme": func() bool { return procFlag("sme") }, "sme2": func() bool { return procFlag("sme2") },
	"sme2p1": func() bool { return procFlag("sme2p1") }, "sme-f16f16": func() bool { return procFlag("smef16f16") },
	"sme-f64f64": func() bool { return procFlag("smef64f64") }, "sme-i16i64": func() bool { return procFlag("smei16i64") },
}

// cpuinfoFeatures are the features iree-cpuinfo reports for each
// architecture, in the order (and with the LLVM names) IREE's tool prints.
var cpuinfoFeatures = map[string][]string{
	"x86_64": {"sse3", "ssse3", "sse4.1", "sse4.2", "sse4a", "avx", "fma", "fma4", "xop", "f16c", "avx2",
		"avx512f", "avx512cd", "avx512vl", "avx512dq", "avx512bw", "avx512ifma", "avx512vbmi",
		"avx512vpopcntdq", "avx512vnni", "avx512vbmi2", "avx512bitalg", "avx512bf16", "avx512fp16",
		"amx-tile", "amx-int8", "amx-bf16"},
	"aarch64": {"fp-armv8", "lse", "lse128", "fullfp16", "fp16fml", "dotprod", "i8mm", "bf16", "sve", "sve2",
		"sve2p1", "sve2-bitperm", "f32mm", "f64mm", "sme", "sme2", "sme2p1", "sme-f16f16", "sme-f64f64",
		"sme-i16i64"},
}

// HostFeature is one CPU feature of the host and whether it has it.
type HostFeature struct {
	Name    string // LLVM's name, without the leading +
	Present bool
}

// HostFeatures returns the CPU features IREE's iree-cpuinfo reports for the
// host's architecture, each with whether the host has it (and the OS
// enables it); none on architectures IREE reports no features for.
func HostFeatures() []HostFeature {
	var out []HostFeature
	for _, name := range cpuinfoFeatures[hostArch()] {
		out = append(out, HostFeature{Name: name, Present: featureChecks[name]()})
	}
	return out
}

var (
	procOnce  sync.Once
	procFlags map[string]bool
)

// procFlag reports a flag of /proc/cpuinfo (Linux), for the features
// golang.org/x/sys/cpu does not report.
func procFlag(name string) bool {
	procOnce.Do(func() {
		procFlags = map[string]bool{}
		b, err := os.ReadFile("/proc/cpuinfo")
		if err != nil {
			return
		}
		for _, line := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(line, ":")
			k = strings.TrimSpace(k)
			if ok && (k == "flags" || k == "Features") {
				for _, f := range strings.Fields(v) {
					procFlags[f] = true
				}
				break
			}
		}
	})
	return procFlags[name]
}

// missingFeatures returns the required features the host lacks (unknown
// names count as missing).
func missingFeatures(required []string) []string {
	var out []string
	for _, f := range required {
		check, ok := featureChecks[f]
		if !ok || !check() {
			out = append(out, f)
		}
	}
	return out
}
