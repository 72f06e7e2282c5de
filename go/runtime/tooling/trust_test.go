package tooling

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/runtime/flags"
	"github.com/gree-ml/gree/go/schemas/module"
	"github.com/gree-ml/gree/go/status"
)

// TestModuleTrustFlag loads module files as the tools do with
// --module_trust given: signed ones load, an unsigned one is
// PERMISSION_DENIED naming its file.
func TestModuleTrustFlag(t *testing.T) {
	dir := t.TempDir()
	priv, pub, err := module.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	key, _ := module.ParsePrivateKey(priv)
	data := module.Encode(&module.Module{Name: "m"})
	signed, err := module.Sign(data, key)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"key.pub": pub, "unsigned.vmfb": data, "signed.vmfb": signed}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := flags.Parse([]string{"--module_trust=" + filepath.Join(dir, "key.pub")}, flags.UnknownIsError); err != nil {
		t.Fatal(err)
	}
	defer flags.Parse([]string{"--module_trust="}, flags.UnknownIsError)
	if _, err := LoadModules([]string{filepath.Join(dir, "signed.vmfb")}, nil); err != nil {
		t.Fatalf("signed module: %v", err)
	}
	_, err = LoadModules([]string{filepath.Join(dir, "unsigned.vmfb")}, nil)
	if status.CodeOf(err) != status.PermissionDenied || !strings.Contains(err.Error(), "unsigned.vmfb") || !strings.Contains(err.Error(), "is not signed") {
		t.Errorf("unsigned module: %v", err)
	}
}
