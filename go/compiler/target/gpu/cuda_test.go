package gpu

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/status"
)

func TestCUDATargetNames(t *testing.T) {
	for _, c := range []struct {
		name, features, arch string
		ptx                  int
	}{
		{"", "", "sm_60", 60},
		{"sm_60", "", "sm_60", 60},
		{"pascal", "", "sm_60", 60},
		{"P100", "", "sm_60", 60},
		{"volta", "", "sm_70", 60},
		{"v100", "", "sm_70", 60},
		{"sm_72", "", "sm_72", 61},
		{"turing", "", "sm_75", 63},
		{"rtx2080", "", "sm_75", 63},
		{"ampere", "", "sm_80", 70},
		{"a100", "", "sm_80", 70},
		{"rtx3090", "", "sm_86", 71},
		{"ada", "", "sm_89", 78},
		{"rtx4090", "", "sm_89", 78},
		{"hopper", "", "sm_90", 78},
		{"h100", "", "sm_90", 78},
		{"sm_90a", "", "sm_90a", 80},
		{"blackwell", "", "sm_100", 86},
		{"rtx5090", "", "sm_120", 87},
		{"sm_80", "+ptx76", "sm_80", 76},
		{"sm_60", "+ptx78", "sm_60", 78},
	} {
		tg, err := CUDATarget(c.name, c.features)
		if err != nil {
			t.Errorf("CUDATarget(%q, %q): %v", c.name, c.features, err)
			continue
		}
		if tg.Arch != c.arch || tg.PTXVersion != c.ptx || tg.SubgroupSize != 32 || tg.Vendor != "nvidia" {
			t.Errorf("CUDATarget(%q, %q) = %s PTX %d subgroup %d, want %s PTX %d subgroup 32", c.name, c.features, tg.Arch, tg.PTXVersion, tg.SubgroupSize, c.arch, c.ptx)
		}
		if !tg.Has("Int64") || !tg.Has("Float64") || !tg.Has("Int8") || !tg.Has("Float16") || tg.MaxSharedBytes != 48<<10 {
			t.Errorf("CUDATarget(%q): capabilities %v, shared %d", c.name, tg.CapabilityList(), tg.MaxSharedBytes)
		}
	}
}

func TestCUDATargetErrors(t *testing.T) {
	for _, c := range []struct{ name, features, want string }{
		{"gfx90a", "", "Unknown CUDA target 'gfx90a'"},
		{"sm_xx", "", "Unknown CUDA target 'sm_xx'"},
		{"sm_53", "", "not one gree knows"},
		{"sm_90", "+ptx70", "PTX ISA 7.0 cannot target sm_90 (it needs 7.8 or newer)"},
		{"sm_80", "+ptx99", "newer than gree writes"},
		{"sm_80", "+sm80", "unknown feature '+sm80'"},
	} {
		_, err := CUDATarget(c.name, c.features)
		if status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CUDATarget(%q, %q) = %v, want INVALID_ARGUMENT containing %q", c.name, c.features, err, c.want)
		}
	}
}
