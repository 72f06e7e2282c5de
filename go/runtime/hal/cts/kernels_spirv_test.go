package cts

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gree-ml/gree/go/schemas/spirv"
)

// TestScaleSPIRVAssembles reassembles testdata/scale.spvasm where
// spirv-as is installed (spirv-tools) and compares it with the committed
// module; spirv-val, where installed, validates it for Vulkan 1.1.
func TestScaleSPIRVAssembles(t *testing.T) {
	as, err := exec.LookPath("spirv-as")
	if err != nil {
		t.Skip("spirv-as is not installed (apt-get install spirv-tools); the committed testdata/scale.spv is used as it is")
	}
	out := filepath.Join(t.TempDir(), "scale.spv")
	if msg, err := exec.Command(as, "--target-env", "vulkan1.1", "testdata/scale.spvasm", "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("spirv-as: %v\n%s", err, msg)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, scaleModule) {
		t.Errorf("testdata/scale.spv is not testdata/scale.spvasm assembled (%d bytes, assembled %d): run spirv-as --target-env vulkan1.1 testdata/scale.spvasm -o testdata/scale.spv", len(scaleModule), len(got))
	}
	if val, err := exec.LookPath("spirv-val"); err == nil {
		if msg, err := exec.Command(val, "--target-env", "vulkan1.1", out).CombinedOutput(); err != nil {
			t.Errorf("spirv-val: %v\n%s", err, msg)
		}
	}
}

func TestScaleSPIRVDecodes(t *testing.T) {
	x, err := spirv.Decode(ScaleSPIRV())
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Entries) != 1 || x.Entries[0].Name != "scale" || !x.Entries[0].Reports() || len(x.Entries[0].Bindings) != 2 {
		t.Errorf("entries: %+v", x.Entries)
	}
	for _, formats := range [][]string{{VMVXFormat}, {"x", spirv.Format}, {spirv.Format, VMVXFormat}} {
		f, _, ok := scaleKernel(formats)
		if !ok || (f != VMVXFormat && formats[0] != "x") || (formats[0] == "x" && f != spirv.Format) {
			t.Errorf("scaleKernel(%v) = %q, %v", formats, f, ok)
		}
	}
	if _, _, ok := scaleKernel([]string{"rocm-hsaco-fb"}); ok {
		t.Error("scaleKernel found a kernel for a format the suite has none in")
	}
}
