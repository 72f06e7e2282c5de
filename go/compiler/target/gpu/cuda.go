package gpu

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gree-ml/gree/go/status"
)

// DefaultCUDATarget is --iree-cuda-target's default, as in IREE.
const DefaultCUDATarget = "sm_60"

// cudaNames maps the code and product names of --iree-cuda-target to an
// architecture: IREE's (a100, rtx30xx/40xx, ada, ampere, turing, volta,
// pascal) and those its CUDA guide lists but its compiler rejects
// (hopper, h100) or lacks (blackwell, p100, v100, …).
var cudaNames = map[string]string{
	"pascal": "sm_60", "p100": "sm_60",
	"volta": "sm_70", "v100": "sm_70",
	"turing": "sm_75", "t4": "sm_75",
	"ampere": "sm_80", "a100": "sm_80", "a10": "sm_86", "a40": "sm_86",
	"ada": "sm_89", "l4": "sm_89", "l40": "sm_89", "l40s": "sm_89",
	"hopper": "sm_90", "h100": "sm_90", "h200": "sm_90", "gh200": "sm_90",
	"blackwell": "sm_100", "b100": "sm_100", "b200": "sm_100", "gb200": "sm_100",
}

// cudaProductPrefixes maps GeForce product families to their architecture.
var cudaProductPrefixes = []struct{ prefix, arch string }{
	{"rtx50", "sm_120"}, {"rtx40", "sm_89"}, {"rtx30", "sm_86"}, {"rtx20", "sm_75"},
}

// minPTX is the PTX ISA version (×10) that introduced each architecture.
var minPTX = map[int]int{
	60: 50, 61: 50, 62: 50, 70: 60, 72: 61, 75: 63, 80: 70, 86: 71, 87: 74, 89: 78,
	90: 78, 100: 86, 101: 86, 103: 88, 110: 90, 120: 87, 121: 88,
}

// DefaultPTXVersion is the PTX ISA version a target gets when neither its
// architecture nor --iree-cuda-target-features asks for more: 6.0, the
// first with the .sync warp shuffles and votes the emitter uses.
const DefaultPTXVersion = 60

// MaxPTXVersion is the newest PTX ISA version gree writes (CUDA 12.9's).
const MaxPTXVersion = 88

// CUDATarget resolves --iree-cuda-target (an sm_XY architecture, a code
// name such as ampere or hopper, or a product name such as a100, h100 or
// rtx4090; "" is sm_60) and --iree-cuda-target-features ("+ptxNN" picks
// the PTX ISA version; "" picks the oldest the architecture allows, at
// least 6.0). sm_XYa (architecture-specific features) is used only when
// asked for by name.
func CUDATarget(name, features string) (*Target, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "" {
		n = DefaultCUDATarget
	}
	arch := cudaNames[n]
	if arch == "" && strings.HasPrefix(n, "sm_") {
		arch = n
	}
	for _, p := range cudaProductPrefixes {
		if arch == "" && strings.HasPrefix(n, p.prefix) {
			arch = p.arch
		}
	}
	cc, err := archCC(arch)
	if arch == "" || err != nil {
		return nil, status.Errorf(status.InvalidArgument, "Unknown CUDA target '%s' (use sm_XY such as sm_80 or sm_90, a code name such as pascal, volta, turing, ampere, ada, hopper or blackwell, or a product name such as a100, h100 or rtx4090; the default is %s)", name, DefaultCUDATarget)
	}
	low, ok := minPTX[cc]
	if !ok {
		return nil, status.Errorf(status.InvalidArgument, "CUDA target '%s': architecture %s is not one gree knows (sm_60 to sm_121)", name, arch)
	}
	ptx := max(low, DefaultPTXVersion)
	if strings.HasSuffix(arch, "a") && cc == 90 {
		ptx = max(ptx, 80)
	} else if strings.HasSuffix(arch, "a") || strings.HasSuffix(arch, "f") {
		ptx = max(ptx, low)
	}
	for _, f := range strings.Split(features, ",") {
		f = strings.TrimSpace(f)
		switch {
		case f == "":
		case strings.HasPrefix(f, "+ptx"):
			v, err := strconv.Atoi(strings.TrimPrefix(f, "+ptx"))
			if err != nil || v < 10 {
				return nil, status.Errorf(status.InvalidArgument, "--iree-cuda-target-features: bad PTX version '%s' (want +ptxNN, e.g. +ptx78)", f)
			}
			if v < ptx && v < low {
				return nil, status.Errorf(status.InvalidArgument, "--iree-cuda-target-features: PTX ISA %d.%d cannot target %s (it needs %d.%d or newer)", v/10, v%10, arch, low/10, low%10)
			}
			if v > MaxPTXVersion {
				return nil, status.Errorf(status.InvalidArgument, "--iree-cuda-target-features: PTX ISA %d.%d is newer than gree writes (up to %d.%d)", v/10, v%10, MaxPTXVersion/10, MaxPTXVersion%10)
			}
			ptx = max(v, DefaultPTXVersion)
		default:
			return nil, status.Errorf(status.InvalidArgument, "--iree-cuda-target-features: unknown feature '%s' (use +ptxNN)", f)
		}
	}
	t := desktop(n, "nvidia", arch, 32, 48<<10)
	t.PTXVersion = ptx
	t.MaxWorkgroupSize[2] = 64
	return t, nil
}

// archCC returns sm_XY[a|f]'s compute capability ×10.
func archCC(arch string) (int, error) {
	s, ok := strings.CutPrefix(arch, "sm_")
	if !ok {
		return 0, fmt.Errorf("not sm_XY")
	}
	s = strings.TrimRight(s, "af")
	return strconv.Atoi(s)
}

// CC returns a CUDA target's compute capability ×10 (80 for sm_80), 0 for
// other targets.
func (t *Target) CC() int {
	cc, err := archCC(t.Arch)
	if err != nil {
		return 0
	}
	return cc
}
