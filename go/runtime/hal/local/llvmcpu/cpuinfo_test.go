package llvmcpu

import (
	"runtime"
	"testing"

	"golang.org/x/sys/cpu"
)

// TestHostFeaturesMatchLoaderChecks: iree-cpuinfo reports exactly what the
// loader's feature checks decide, for every feature IREE's tool lists.
func TestHostFeaturesMatchLoaderChecks(t *testing.T) {
	for arch, names := range cpuinfoFeatures {
		for _, n := range names {
			if _, ok := featureChecks[n]; !ok {
				t.Errorf("%s feature %q has no check", arch, n)
			}
		}
	}
	got := HostFeatures()
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		if len(got) != 0 {
			t.Fatalf("HostFeatures() on %s = %v, want none", runtime.GOARCH, got)
		}
		return
	}
	if len(got) != len(cpuinfoFeatures[hostArch()]) {
		t.Fatalf("HostFeatures() has %d entries, want %d", len(got), len(cpuinfoFeatures[hostArch()]))
	}
	for _, f := range got {
		if miss := len(missingFeatures([]string{f.Name})) == 1; miss == f.Present {
			t.Errorf("%s: cpuinfo says %v, the loader's check disagrees", f.Name, f.Present)
		}
	}
	if runtime.GOARCH == "amd64" {
		for _, f := range got {
			if f.Name == "avx2" && f.Present != cpu.X86.HasAVX2 {
				t.Errorf("avx2 = %v, cpu.X86.HasAVX2 = %v", f.Present, cpu.X86.HasAVX2)
			}
		}
	}
}
