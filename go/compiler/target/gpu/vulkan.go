package gpu

import (
	"regexp"
	"strings"

	"github.com/gree-ml/gree/go/status"
)

// DefaultVulkanTarget is --iree-vulkan-target's default, as in IREE.
const DefaultVulkanTarget = "vp_android_baseline_2022"

// amdArch maps IREE's AMD names (product, code name or gfx) to the
// architecture a Vulkan target keeps: "rdnaN" for RDNA code names, else
// the gfx name.
var amdArch = map[string]string{
	"mi350x": "gfx950", "mi355x": "gfx950", "cdna4": "gfx950", "gfx950": "gfx950",
	"mi300a": "gfx942", "mi300x": "gfx942", "mi308x": "gfx942", "mi325x": "gfx942", "cdna3": "gfx942", "gfx942": "gfx942",
	"mi250x": "gfx90a", "mi250": "gfx90a", "mi210": "gfx90a", "cdna2": "gfx90a", "gfx90a": "gfx90a",
	"mi100": "gfx908", "cdna1": "gfx908", "gfx908": "gfx908",
	"rx9070xt": "gfx1201", "rx9070": "gfx1201", "r9700": "gfx1201", "gfx1201": "gfx1201",
	"rx9060xt": "gfx1200", "gfx1200": "gfx1200", "rdna4": "rdna4",
	"rx7900xtx": "gfx1100", "rx7900xt": "gfx1100", "w7900": "gfx1100", "w7800": "gfx1100", "gfx1100": "gfx1100",
	"rx7800xt": "gfx1101", "rx7700xt": "gfx1101", "v710": "gfx1101", "w7700": "gfx1101", "gfx1101": "gfx1101",
	"gfx1102": "gfx1102", "phoenix": "gfx1103", "gfx1103": "gfx1103", "strix-point": "gfx1150", "gfx1150": "gfx1150",
	"strix-halo": "gfx1151", "gfx1151": "gfx1151", "rdna3": "rdna3",
	"rdna2": "rdna2", "gfx1030": "gfx1030", "gfx1031": "gfx1031", "gfx1032": "gfx1032", "gfx1033": "gfx1033",
	"gfx1034": "gfx1034", "gfx1035": "gfx1035", "gfx1036": "gfx1036",
	"rdna1": "rdna1", "gfx1010": "gfx1010", "gfx1011": "gfx1011", "gfx1012": "gfx1012", "gfx1013": "gfx1013",
	"gfx1250": "gfx1250",
}

// cdnaArchs are the AMD architectures with 64-wide subgroups.
var cdnaArchs = map[string]bool{"gfx950": true, "gfx942": true, "gfx90a": true, "gfx908": true}

// armArch maps IREE's Mali names to their architecture.
var armArch = map[string]string{
	"mali-g720": "arm5gen", "mali-g725": "arm5gen", "mali-g1": "arm5gen", "arm5gen": "arm5gen",
	"mali-g715": "valhall4", "mali-g615": "valhall4", "valhall4": "valhall4",
	"mali-g710": "valhall3", "mali-g510": "valhall3", "mali-g310": "valhall3", "valhall3": "valhall3",
	"mali-g78": "valhall2", "valhall2": "valhall2",
	"mali-g77": "valhall1", "mali-g57": "valhall1", "valhall1": "valhall1", "valhall": "valhall1",
}

// nvidiaTarget maps IREE's NVIDIA capability-table names to (arch, shared
// memory bytes).
var nvidiaTarget = map[string]struct {
	arch   string
	shared int
}{
	"a100":      {"sm_80", 163 << 10},
	"rtx4090":   {"sm_89", 99 << 10},
	"rtx4080":   {"sm_89", 99 << 10},
	"rtx4070":   {"sm_89", 99 << 10},
	"rtx4060":   {"sm_89", 99 << 10},
	"rtx3090ti": {"sm_86", 163 << 10},
	"rtx3090":   {"sm_86", 163 << 10},
	"rtx3080ti": {"sm_86", 163 << 10},
	"rtx3080":   {"sm_86", 163 << 10},
	"rtx3070ti": {"sm_86", 163 << 10},
	"rtx3070":   {"sm_86", 163 << 10},
	"sm_120":    {"sm_120", 99 << 10},
	"sm_121":    {"sm_121", 99 << 10},
	"ada":       {"sm_89", 99 << 10},
	"sm_89":     {"sm_89", 99 << 10},
	"ampere":    {"sm_80", 163 << 10},
	"sm_80":     {"sm_80", 163 << 10},
	"sm_86":     {"sm_86", 163 << 10},
	"sm_87":     {"sm_87", 163 << 10},
	"turing":    {"sm_75", 64 << 10},
	"sm_75":     {"sm_75", 64 << 10},
	"volta":     {"sm_70", 96 << 10},
	"sm_70":     {"sm_70", 96 << 10},
	"sm_72":     {"sm_72", 96 << 10},
	"pascal":    {"sm_60", 48 << 10},
	"sm_60":     {"sm_60", 48 << 10},
	"sm_61":     {"sm_61", 48 << 10},
	"sm_62":     {"sm_62", 48 << 10},
}

var adrenoName = regexp.MustCompile(`^adreno(-[0-9]{3}l?)?$`)

// cpuVulkanProducts are the products of old target triples that name a
// CPU implementation of Vulkan (lavapipe's target describes them).
var cpuVulkanProducts = map[string]bool{"llvmpipe": true, "lavapipe": true, "swiftshader": true}

// VulkanTarget resolves an --iree-vulkan-target name (IREE's names: AMD,
// ARM Mali, Broadcom, NVIDIA, Qualcomm Adreno, llvmpipe and the
// vp_android_baseline_2022 profile; "" is the profile) or an older
// --iree-vulkan-target-triple spelling, <arch>-<product>-<os>
// ("valhall-g78-android30", "rdna1-5700xt-linux", "ampere-rtx3080-windows").
// features, when not empty, replaces the target's SPIR-V version and
// capabilities (IREE's --iree-vulkan-target-features syntax:
// "spirv:v1.6,cap:Shader,cap:Int64,…").
func VulkanTarget(name, features string) (*Target, error) {
	t, err := vulkanTarget(strings.ToLower(strings.TrimSpace(name)))
	if err != nil {
		return nil, err
	}
	if features != "" {
		if err := applyFeatures(t, features); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func vulkanTarget(n string) (*Target, error) {
	if t := vulkanByName(n); t != nil {
		return t, nil
	}
	// An older triple: <arch>-<product>-<os>; the product, then the arch.
	if parts := strings.Split(n, "-"); len(parts) >= 3 {
		arch, product := parts[0], strings.Join(parts[1:len(parts)-1], "-")
		if cpuVulkanProducts[product] {
			return Llvmpipe(), nil
		}
		for _, cand := range []string{product, "mali-" + product, arch} {
			if t := vulkanByName(cand); t != nil {
				return t, nil
			}
		}
	}
	return nil, status.Errorf(status.InvalidArgument, "Unknown Vulkan target '%s' (use an AMD, ARM Mali, NVIDIA or Adreno name such as rdna3, valhall4, ampere, adreno, or llvmpipe, or the default %s)", n, DefaultVulkanTarget)
}

// vulkanByName returns the target a name IREE accepts describes, or nil.
func vulkanByName(n string) *Target {
	switch {
	case n == "" || n == DefaultVulkanTarget:
		return AndroidBaseline2022()
	case n == "llvmpipe":
		return Llvmpipe()
	case n == "videocore_vii":
		t := mobile("videocore_vii", "broadcom", "videocore_vii", 16, SPIRV13)
		delete(t.Capabilities, "Int64")
		return t
	case adrenoName.MatchString(n):
		t := mobile(n, "qualcomm", "adreno", 64, SPIRV13)
		t.MaxWorkgroupSize, t.MaxWorkgroupInvocations = [3]int{1024, 1024, 64}, 1024
		return t
	}
	if arch, ok := amdArch[n]; ok {
		sg := 32
		if cdnaArchs[arch] {
			sg = 64
		}
		shared := 64 << 10
		if arch == "gfx950" {
			shared = 160 << 10
		}
		return desktop(n, "amd", arch, sg, shared)
	}
	if arch, ok := armArch[n]; ok {
		return mobile(n, "arm", arch, 16, SPIRV15)
	}
	if nv, ok := nvidiaTarget[n]; ok {
		return desktop(n, "nvidia", nv.arch, 32, min(nv.shared, 48<<10))
	}
	return nil
}

// applyFeatures replaces t's SPIR-V version and capabilities with those of
// an IREE feature string.
func applyFeatures(t *Target, features string) error {
	t.Capabilities = map[string]bool{}
	for _, f := range strings.Split(features, ",") {
		f = strings.TrimSpace(f)
		switch {
		case f == "":
		case strings.HasPrefix(f, "spirv:v"):
			var major, minor uint32
			v := strings.TrimPrefix(f, "spirv:v")
			maj, mi, ok := strings.Cut(v, ".")
			if !ok || len(maj) != 1 || len(mi) != 1 || maj[0] < '1' || maj[0] > '9' || mi[0] < '0' || mi[0] > '9' {
				return status.Errorf(status.InvalidArgument, "--iree-vulkan-target-features: bad SPIR-V version '%s' (want spirv:v1.N)", f)
			}
			major, minor = uint32(maj[0]-'0'), uint32(mi[0]-'0')
			t.SPIRVVersion = major<<16 | minor<<8
		case strings.HasPrefix(f, "cap:"):
			t.Capabilities[strings.TrimPrefix(f, "cap:")] = true
		case strings.HasPrefix(f, "ext:"):
			// Extensions follow from the version and capabilities here.
		default:
			return status.Errorf(status.InvalidArgument, "--iree-vulkan-target-features: unknown feature '%s' (use spirv:vX.Y, cap:<capability> or ext:<extension>)", f)
		}
	}
	if !t.Capabilities["Shader"] {
		t.Capabilities["Shader"] = true
	}
	if !t.Capabilities["GroupNonUniform"] {
		t.SubgroupSize = 0
	} else if t.SubgroupSize == 0 {
		t.SubgroupSize = 32
	}
	return nil
}
