package vm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/runtime/flags"
	"github.com/gree-ml/gree/go/schemas/module"
	"github.com/gree-ml/gree/go/status"
)

// keyPair writes a new key pair under dir and returns the private key's
// contents and the public key file's path.
func keyPair(t *testing.T, dir, name string) ([]byte, string) {
	t.Helper()
	priv, pub, err := module.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name+".pub")
	if err := os.WriteFile(path, pub, 0o644); err != nil {
		t.Fatal(err)
	}
	return priv, path
}

func TestModuleTrust(t *testing.T) {
	dir := t.TempDir()
	priv, pubPath := keyPair(t, dir, "signer")
	otherPriv, _ := keyPair(t, dir, "other")
	data := module.Encode(&module.Module{Name: "trusted_mod"})
	sign := func(p []byte) []byte {
		k, err := module.ParsePrivateKey(p)
		if err != nil {
			t.Fatal(err)
		}
		s, err := module.Sign(data, k)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	signed, wrong := sign(priv), sign(otherPriv)
	t.Cleanup(func() { *flagModuleTrust = nil })

	// Without --module_trust every module loads.
	for _, d := range [][]byte{data, signed} {
		if _, err := LoadModule(d); err != nil {
			t.Fatalf("no trust required: %v", err)
		}
	}
	if _, err := flags.Default.Parse([]string{"--module_trust=" + pubPath}, flags.UnknownIsError); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadModule(signed); err != nil {
		t.Fatalf("signed by the trusted key: %v", err)
	}
	keys, _ := TrustedKeys()
	for name, d := range map[string][]byte{"unsigned": data, "other signer": wrong} {
		_, err := LoadModule(d)
		if status.CodeOf(err) != status.PermissionDenied || !strings.Contains(err.Error(), "'trusted_mod'") || !strings.Contains(err.Error(), module.KeyID(keys[0])) {
			t.Errorf("%s: %v, want PERMISSION_DENIED naming the module and the key", name, err)
		}
	}
	tampered := append([]byte(nil), signed...)
	tampered[strings.Index(string(tampered), "trusted_mod")+10] = 'x' // renamed after signing
	if _, err := LoadModule(tampered); status.CodeOf(err) != status.PermissionDenied || !strings.Contains(err.Error(), "does not verify") {
		t.Errorf("tampered module: %v", err)
	}
	if _, err := flags.Default.Parse([]string{"--module_trust="}, flags.UnknownIsError); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadModule(data); err != nil {
		t.Errorf("after --module_trust= the unsigned module does not load: %v", err)
	}
	*flagModuleTrust = []string{filepath.Join(dir, "missing.pub")}
	if _, err := LoadModule(signed); status.CodeOf(err) != status.NotFound {
		t.Errorf("missing key file: %v", err)
	}
}
