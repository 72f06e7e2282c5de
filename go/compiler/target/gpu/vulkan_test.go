package gpu_test

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/target/gpu"
)

func TestVulkanTargetNames(t *testing.T) {
	for _, c := range []struct {
		name, vendor, arch string
		subgroup           int
		int64              bool
	}{
		{"", "khronos", "vp_android_baseline_2022", 0, false},
		{"vp_android_baseline_2022", "khronos", "vp_android_baseline_2022", 0, false},
		{"llvmpipe", "mesa", "llvmpipe", 8, true},
		{"ampere", "nvidia", "sm_80", 32, true},
		{"RTX4090", "nvidia", "sm_89", 32, true},
		{"rdna3", "amd", "rdna3", 32, true},
		{"mi300x", "amd", "gfx942", 64, true},
		{"valhall4", "arm", "valhall4", 16, true},
		{"mali-g78", "arm", "valhall2", 16, true},
		{"adreno", "qualcomm", "adreno", 64, true},
		{"adreno-740", "qualcomm", "adreno", 64, true},
		{"videocore_vii", "broadcom", "videocore_vii", 16, false},
		// Older target triples.
		{"valhall-g78-android30", "arm", "valhall2", 16, true},
		{"rdna1-5700xt-linux", "amd", "rdna1", 32, true},
		{"ampere-rtx3080-windows", "nvidia", "sm_86", 32, true},
		{"cpu-swiftshader-unknown", "mesa", "llvmpipe", 8, true},
	} {
		tg, err := gpu.VulkanTarget(c.name, "")
		if err != nil {
			t.Errorf("%q: %v", c.name, err)
			continue
		}
		if tg.Vendor != c.vendor || tg.Arch != c.arch || tg.SubgroupSize != c.subgroup || tg.Has("Int64") != c.int64 || !tg.Has("Shader") {
			t.Errorf("%q: got %s", c.name, tg)
		}
	}
}

func TestVulkanTargetErrors(t *testing.T) {
	for name, want := range map[string]string{
		"gfx9999":     "Unknown Vulkan target 'gfx9999'",
		"foo-bar-baz": "rdna3, valhall4, ampere",
	} {
		if _, err := gpu.VulkanTarget(name, ""); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", name, err, want)
		}
	}
	for features, want := range map[string]string{
		"spirv:v1":       "bad SPIR-V version",
		"spirv:v1.6,foo": "unknown feature 'foo'",
	} {
		if _, err := gpu.VulkanTarget("llvmpipe", features); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", features, err, want)
		}
	}
}

func TestVulkanTargetFeatures(t *testing.T) {
	tg, err := gpu.VulkanTarget("llvmpipe", "spirv:v1.3,cap:Shader,cap:Int64,cap:GroupNonUniform,ext:SPV_KHR_storage_buffer_storage_class")
	if err != nil {
		t.Fatal(err)
	}
	if tg.SPIRVVersion != gpu.SPIRV13 || !tg.Has("Int64") || tg.Has("Float64") || tg.SubgroupSize != 8 {
		t.Fatalf("got %s", tg)
	}
	tg, err = gpu.VulkanTarget("ampere", "spirv:v1.5,cap:Int8")
	if err != nil {
		t.Fatal(err)
	}
	if tg.SPIRVVersion != gpu.SPIRV15 || !tg.Has("Shader") || !tg.Has("Int8") || tg.SubgroupSize != 0 {
		t.Fatalf("got %s", tg)
	}
}

func TestThreadsFollowLimits(t *testing.T) {
	if n := gpu.Threads(gpu.Llvmpipe()); n != gpu.DefaultThreads {
		t.Fatalf("llvmpipe: %d threads", n)
	}
	tg := gpu.Llvmpipe()
	tg.MaxWorkgroupInvocations = 32
	if n := gpu.Threads(tg); n != 32 {
		t.Fatalf("32-invocation target: %d threads", n)
	}
}
