package gpu

import (
	"fmt"
	"sort"
	"strings"
)

// Target describes one GPU target: what the shared GPU strategy and the
// emitters may assume of the device the code will run on. Flags and names
// (--iree-vulkan-target=ampere, …) resolve to one.
type Target struct {
	// Name is the canonical name ("llvmpipe", "ampere", "rdna3",
	// "valhall2", "vp_android_baseline_2022", …).
	Name string
	// Vendor is "nvidia", "amd", "arm", "qualcomm", "broadcom", "mesa" or
	// "khronos" (a profile).
	Vendor string
	// Arch is the architecture's name as IREE gives it ("sm_80", "gfx1100",
	// "rdna3", "valhall2", "adreno", …).
	Arch string
	// SPIRVVersion is the highest SPIR-V version the target consumes
	// (0x00010300 is 1.3).
	SPIRVVersion uint32
	// SubgroupSize is the subgroup size kernels are built for; 0 means the
	// target has no subgroup operations.
	SubgroupSize int
	// MaxWorkgroupSize, MaxWorkgroupInvocations and MaxSharedBytes bound a
	// workgroup; MaxGrid bounds the grid; MaxPushConstantBytes the push
	// constants (Vulkan guarantees 128).
	MaxWorkgroupSize        [3]int
	MaxWorkgroupInvocations int
	MaxSharedBytes          int
	MaxGrid                 [3]int
	MaxPushConstantBytes    int
	// MaxLoopIterations, when positive, is the most loop iterations, all
	// loops together, one invocation may run on the device (lavapipe
	// leaves loops once 65535 have run); Legalize then unrolls innermost
	// loops (UnrollInnerLoops) so that each thread's work fits.
	MaxLoopIterations int64
	// Capabilities are the SPIR-V capabilities the target has
	// ("Shader", "Int64", "Float64", "Int16", "Int8", "Float16",
	// "StorageBuffer8BitAccess", "StorageBuffer16BitAccess",
	// "GroupNonUniform", "GroupNonUniformArithmetic",
	// "GroupNonUniformShuffle", …). Element types and index widths
	// follow them.
	Capabilities map[string]bool
	// PTXVersion is the PTX ISA version ×10 a CUDA target writes (78 is
	// .version 7.8); 0 for other targets.
	PTXVersion int
}

// Has reports whether the target has capability c.
func (t *Target) Has(c string) bool { return t.Capabilities[c] }

// CapabilityList returns the capabilities, sorted.
func (t *Target) CapabilityList() []string {
	var out []string
	for c, ok := range t.Capabilities {
		if ok {
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out
}

// String describes the target in one line.
func (t *Target) String() string {
	return fmt.Sprintf("%s (%s %s, SPIR-V %d.%d, subgroup %d, capabilities %s)", t.Name, t.Vendor, t.Arch,
		t.SPIRVVersion>>16, (t.SPIRVVersion>>8)&0xff, t.SubgroupSize, strings.Join(t.CapabilityList(), ","))
}

// clone returns a copy of t with its own capability map.
func (t *Target) clone() *Target {
	c := *t
	c.Capabilities = map[string]bool{}
	for k, v := range t.Capabilities {
		c.Capabilities[k] = v
	}
	return &c
}

// caps makes a capability set.
func caps(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// Capability sets shared by the target tables.
var (
	subgroupCaps = []string{"GroupNonUniform", "GroupNonUniformArithmetic", "GroupNonUniformShuffle", "GroupNonUniformBallot", "GroupNonUniformVote"}
	// desktopCaps: a desktop GPU's compute (every scalar type, 8- and
	// 16-bit storage, subgroup operations).
	desktopCaps = append([]string{"Shader", "Int64", "Float64", "Int16", "Int8", "Float16",
		"StorageBuffer8BitAccess", "StorageBuffer16BitAccess", "Int64Atomics"}, subgroupCaps...)
	// mobileCaps: a recent mobile GPU (no 64-bit floats).
	mobileCaps = append([]string{"Shader", "Int64", "Int16", "Int8", "Float16",
		"StorageBuffer8BitAccess", "StorageBuffer16BitAccess"}, subgroupCaps...)
)

// SPIR-V versions.
const (
	SPIRV13 = 0x00010300
	SPIRV15 = 0x00010500
	SPIRV16 = 0x00010600
)

// desktop returns a desktop GPU's description.
func desktop(name, vendor, arch string, subgroup, shared int) *Target {
	return &Target{Name: name, Vendor: vendor, Arch: arch, SPIRVVersion: SPIRV16, SubgroupSize: subgroup,
		MaxWorkgroupSize: [3]int{1024, 1024, 1024}, MaxWorkgroupInvocations: 1024, MaxSharedBytes: shared,
		MaxGrid: [3]int{1<<31 - 1, 65535, 65535}, MaxPushConstantBytes: 256, Capabilities: caps(desktopCaps...)}
}

// mobile returns a mobile GPU's description.
func mobile(name, vendor, arch string, subgroup int, version uint32) *Target {
	return &Target{Name: name, Vendor: vendor, Arch: arch, SPIRVVersion: version, SubgroupSize: subgroup,
		MaxWorkgroupSize: [3]int{512, 512, 512}, MaxWorkgroupInvocations: 512, MaxSharedBytes: 32 << 10,
		MaxGrid: [3]int{65535, 65535, 65535}, MaxPushConstantBytes: 128, Capabilities: caps(mobileCaps...)}
}

// Llvmpipe is Mesa's lavapipe (llvmpipe): the CPU Vulkan driver CI runs.
func Llvmpipe() *Target {
	t := desktop("llvmpipe", "mesa", "llvmpipe", 8, 32<<10)
	t.MaxGrid = [3]int{65535, 65535, 65535}
	t.MaxPushConstantBytes = 128
	t.MaxLoopIterations = 65535
	return t
}

// AndroidBaseline2022 is Vulkan's vp_android_baseline_2022 profile,
// IREE's default Vulkan target: 32-bit scalars only, no subgroup
// operations, small workgroups. Its modules are meant to run on any
// Vulkan device, lavapipe included, so they keep lavapipe's loop budget
// too (only loops over more than 65535 steps per thread are unrolled).
func AndroidBaseline2022() *Target {
	return &Target{Name: "vp_android_baseline_2022", Vendor: "khronos", Arch: "vp_android_baseline_2022", SPIRVVersion: SPIRV13,
		SubgroupSize: 0, MaxWorkgroupSize: [3]int{128, 128, 64}, MaxWorkgroupInvocations: 128, MaxSharedBytes: 16 << 10,
		MaxGrid: [3]int{65535, 65535, 65535}, MaxPushConstantBytes: 128, MaxLoopIterations: 65535, Capabilities: caps("Shader")}
}
