package llvmcpu

import (
	"sort"
	"strings"

	"github.com/gree-ml/gree/go/schemas/llvmcpu"
	"github.com/gree-ml/gree/go/status"
)

// Options are the --iree-llvmcpu-target-* flags.
type Options struct {
	// CPU is "host" (or ""), "generic" or an LLVM CPU name.
	CPU string
	// Features is an LLVM feature string added to the CPU's ("+avx2,-fma"),
	// or "host" for the host's features.
	Features string
	// Triple is the target triple ("" = the host's).
	Triple string
}

// ResolveMachine turns the flags into the machine code is generated for:
// the host's triple, CPU and features by default.
func ResolveMachine(o Options) (Machine, error) {
	t, err := load()
	if err != nil {
		return Machine{}, err
	}
	host := t.defaultTriple()
	m := Machine{Triple: host, OptLevel: 3}
	if o.Triple != "" && o.Triple != "host" {
		m.Triple = t.normalizeTriple(o.Triple)
	}
	arch := archOf(m.Triple)
	if arch != "x86_64" && arch != "aarch64" {
		return Machine{}, status.Errorf(status.InvalidArgument, "llvm-cpu: target triple %q: gree builds x86_64 and aarch64 code only", m.Triple)
	}
	if strings.Contains(m.Triple, "windows") || strings.Contains(m.Triple, "darwin") || strings.Contains(m.Triple, "apple") {
		return Machine{}, status.Errorf(status.InvalidArgument, "llvm-cpu: target triple %q: gree builds ELF shared objects (Linux triples) only", m.Triple)
	}
	cpu := o.CPU
	switch {
	case cpu == "" || cpu == "host":
		if arch != archOf(host) {
			m.CPU = "generic"
		} else {
			m.CPU = t.hostCPU()
			m.Features = t.hostFeatures()
		}
	default:
		m.CPU = cpu
	}
	if o.Features == "host" {
		// IREE's spelling for "the host's features".
		if arch != archOf(host) {
			return Machine{}, status.Errorf(status.InvalidArgument, "llvm-cpu: --iree-llvmcpu-target-cpu-features=host, but the target %s is not this host's architecture", m.Triple)
		}
		o.Features = t.hostFeatures()
		if m.Features == o.Features {
			o.Features = ""
		}
	}
	if o.Features != "" {
		if m.Features != "" {
			m.Features += ","
		}
		m.Features += o.Features
	}
	return m, nil
}

// HostCPUDefault returns the CPU the llvm-cpu target builds for by default
// (for --help), or "host" when LLVM is not available.
func HostCPUDefault() string {
	if c, err := HostCPU(); err == nil && c != "" {
		return c
	}
	return "host"
}

func archOf(triple string) string {
	a, _, _ := strings.Cut(triple, "-")
	switch a {
	case "amd64", "x86-64":
		return "x86_64"
	case "arm64":
		return "aarch64"
	}
	return a
}

// x86 feature levels, for CPUs named without a feature string.
var (
	x86v2  = []string{"sse3", "ssse3", "sse4.1", "sse4.2", "popcnt"}
	x86v3  = append(append([]string{}, x86v2...), "avx", "avx2", "fma", "f16c", "bmi", "bmi2", "lzcnt", "movbe")
	x86v4  = append(append([]string{}, x86v3...), "avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl")
	x86ice = append(append([]string{}, x86v4...), "avx512vnni", "avx512vbmi", "avx512vbmi2", "avx512ifma", "avx512bitalg", "avx512vpopcntdq", "gfni", "vaes", "vpclmulqdq")
)

// cpuFeatures lists what common CPU names imply (LLVM's definitions,
// abridged to the checked features).
var cpuFeatures = map[string][]string{
	"x86-64-v2": x86v2, "nehalem": x86v2, "westmere": x86v2, "sandybridge": append(append([]string{}, x86v2...), "avx"),
	"ivybridge": append(append([]string{}, x86v2...), "avx", "f16c"),
	"x86-64-v3": x86v3, "haswell": x86v3, "broadwell": x86v3, "skylake": x86v3, "alderlake": append(append([]string{}, x86v3...), "avxvnni", "gfni", "vaes", "vpclmulqdq"),
	"znver1": x86v3, "znver2": x86v3, "znver3": append(append([]string{}, x86v3...), "vaes", "vpclmulqdq"),
	"x86-64-v4": x86v4, "skylake-avx512": x86v4, "cascadelake": append(append([]string{}, x86v4...), "avx512vnni"),
	"cooperlake":     append(append([]string{}, x86v4...), "avx512vnni", "avx512bf16"),
	"icelake-client": x86ice, "icelake-server": x86ice, "tigerlake": x86ice, "rocketlake": x86ice,
	"sapphirerapids": append(append([]string{}, x86ice...), "avx512bf16", "avx512fp16", "avxvnni"),
	"znver4":         append(append([]string{}, x86ice...), "avx512bf16"),
}

// requiredFeatures returns the checked features m's code may use: those
// its CPU implies and those its feature string enables, less those the
// string disables.
func requiredFeatures(m Machine) []string {
	arch := archOf(m.Triple)
	checked := map[string]bool{}
	for _, f := range llvmcpu.CheckedFeatures[arch] {
		checked[f] = true
	}
	on := map[string]bool{}
	if arch == "aarch64" {
		on["neon"], on["fp-armv8"] = true, true
	}
	for _, f := range cpuFeatures[m.CPU] {
		on[f] = true
	}
	for _, f := range strings.Split(m.Features, ",") {
		f = strings.TrimSpace(f)
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case '+':
			on[f[1:]] = true
		case '-':
			delete(on, f[1:])
		}
	}
	var out []string
	for f := range on {
		if checked[f] {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// vectorLanes is the f32 lane count of the Contract microkernel's
// vectors: one register of the widest vector unit m enables.
func vectorLanes(m Machine) int {
	req := requiredFeatures(m)
	switch {
	case has(req, "avx512f"):
		return 16
	case has(req, "avx"):
		return 8
	}
	return 4
}

// functionAttrs is the attribute group of every function.
func functionAttrs(m Machine) string {
	a := `nounwind "target-cpu"="` + m.CPU + `"`
	if m.Features != "" {
		a += ` "target-features"="` + m.Features + `"`
	}
	if vectorLanes(m) == 16 {
		a += ` "min-legal-vector-width"="512" "prefer-vector-width"="512"`
	}
	return a
}
