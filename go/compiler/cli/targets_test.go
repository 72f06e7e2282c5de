package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/schemas/module"
)

func TestTargetListsSpelledAsIREEDoes(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--iree-hal-target-backends=vmvx,vulkan-spirv"}, []string{"vmvx", "vulkan-spirv"}},
		{[]string{"--iree-hal-target-backends=vmvx", "--iree-hal-target-backends=cuda"}, []string{"vmvx", "cuda"}},
		{[]string{"--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=vmvx,vmvx-inline"}, []string{"vmvx", "vmvx-inline"}},
		// One flag with a list is IREE's device select: one device.
		{[]string{"--iree-hal-target-device=cuda,local", "--iree-hal-local-target-device-backends=vmvx"}, []string{"cuda", "vmvx"}},
		// The same backend named twice is one target.
		{[]string{"--iree-hal-target-backends=vmvx,vmvx", "--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=vmvx"}, []string{"vmvx"}},
	} {
		p, err := parseArgs(append(c.args, "in.mlir"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := resolveBackends(p)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%v: got %v, %v; want %v", c.args, got, err, c.want)
		}
	}
}

func TestSeveralDevicesAreRejected(t *testing.T) {
	code, _, stderr := run("--iree-hal-target-device=cuda", "--iree-hal-target-device=local",
		"--iree-hal-local-target-device-backends=vmvx", "x.mlir")
	if code == 0 || !strings.Contains(stderr, "multi-device") || !strings.Contains(stderr, "--iree-hal-target-device=cuda,local") {
		t.Fatalf("code %d, stderr %q", code, stderr)
	}
}

func TestSeveralTargetsCompileToOneModule(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "mul.vmfb")
	code, _, stderr := run("--iree-hal-target-backends=vmvx,vulkan-spirv", filepath.Join("..", "..", "..", "samples", "simple_mul.mlir"), "-o", out)
	if code != 0 {
		t.Fatalf("code %d: %s", code, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	m, err := module.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	var formats []string
	for _, e := range m.Executables {
		formats = append(formats, e.Format)
	}
	if !slices.Equal(formats, []string{"vmvx-bytecode", "vulkan-spirv-fb"}) || m.Executables[1].Variant != 1 {
		t.Fatalf("executables %v (variant of the second: %d)", formats, m.Executables[1].Variant)
	}
}
