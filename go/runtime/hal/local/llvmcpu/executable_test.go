package llvmcpu

import (
	"strings"
	"testing"

	schema "github.com/gree-ml/gree/go/schemas/llvmcpu"
	"github.com/gree-ml/gree/go/status"
)

func encode(t *testing.T, x *schema.Executable) []byte {
	t.Helper()
	data, err := schema.Encode(x)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func fake(triple string, required ...string) *schema.Executable {
	return &schema.Executable{
		Triple: triple, CPU: "generic", Required: required,
		Entries: []schema.Entry{{Name: "k", Symbol: "gree_entry_0", NumBindings: 1}},
		Object:  []byte("\x7fELF not really a shared object"),
	}
}

func TestLoadRefusals(t *testing.T) {
	host := hostArch() + "-unknown-linux-gnu"
	other := "aarch64-unknown-linux-gnu"
	if hostArch() == "aarch64" {
		other = "x86_64-unknown-linux-gnu"
	}
	for _, tc := range []struct {
		name string
		data []byte
		code status.Code
		msg  string
	}{
		{"garbage", []byte("not an executable at all"), status.InvalidArgument, "llvm-cpu executable (magic"},
		{"truncated", encode(t, fake(host))[:20], status.DataLoss, ""},
		{"other architecture", encode(t, fake(other)), status.FailedPrecondition, "this host is " + hostArch()},
		{"missing feature", encode(t, fake(host, "gree-no-such-feature")), status.FailedPrecondition, "gree-no-such-feature"},
		{"broken shared object", encode(t, fake(host)), status.InvalidArgument, "its shared object is not loadable safely: not an ELF file"},
	} {
		_, err := Load(tc.data)
		if status.CodeOf(err) != tc.code || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: Load error %v, want %v containing %q", tc.name, err, tc.code, tc.msg)
		}
	}
}

func TestHostFeatureChecks(t *testing.T) {
	for arch, fs := range schema.CheckedFeatures {
		for _, f := range fs {
			if _, ok := featureChecks[f]; !ok {
				t.Errorf("%s feature %s is recorded by the compiler but has no check", arch, f)
			}
		}
	}
	if miss := missingFeatures(nil); len(miss) != 0 {
		t.Errorf("missingFeatures(nil) = %v", miss)
	}
}
