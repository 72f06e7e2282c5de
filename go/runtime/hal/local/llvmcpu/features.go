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
