package cli

import (
	"crypto/ed25519"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/schemas/module"
)

func TestSignedModules(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "signer")
	code, out, stderr := run("--gree-generate-signing-key=" + prefix)
	if code != 0 || !strings.Contains(out, "ed25519:") {
		t.Fatalf("generating a key: code %d, %q %q", code, out, stderr)
	}
	if st, err := os.Stat(prefix + ".key"); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("private key file: %v %v", st, err)
	}
	if code, _, stderr := run("--gree-generate-signing-key=" + prefix); code == 0 || !strings.Contains(stderr, "must not exist") {
		t.Errorf("overwriting a key: code %d, %q", code, stderr)
	}
	pubData, _ := os.ReadFile(prefix + ".pub")
	pub, err := module.ParsePublicKey(pubData)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]ed25519.PublicKey{prefix + ".key": pub}
	if openssl, err := exec.LookPath("openssl"); err == nil {
		k := filepath.Join(dir, "openssl.key")
		if err := exec.Command(openssl, "genpkey", "-algorithm", "ed25519", "-out", k).Run(); err == nil {
			p, err := exec.Command(openssl, "pkey", "-in", k, "-pubout").Output()
			if err != nil {
				t.Fatal(err)
			}
			if keys[k], err = module.ParsePublicKey(p); err != nil {
				t.Fatalf("openssl's public key: %v", err)
			}
		}
	}
	for keyFile, pub := range keys {
		mod := filepath.Join(dir, "m.vmfb")
		code, _, stderr := run("--iree-hal-target-backends=vmvx", "--gree-sign-key="+keyFile, "-o", mod, "../../../samples/simple_mul.mlir")
		if code != 0 {
			t.Fatalf("compiling with %s: %s", keyFile, stderr)
		}
		data, err := os.ReadFile(mod)
		if err != nil {
			t.Fatal(err)
		}
		if err := module.VerifySignature(data, "arithmetic", []ed25519.PublicKey{pub}); err != nil {
			t.Errorf("module signed with %s: %v", keyFile, err)
		}
	}
	for _, args := range [][]string{
		{"--gree-sign-key=" + filepath.Join(dir, "missing.key")},
		{"--gree-sign-key=" + prefix + ".pub"},
		{"--gree-sign-key=" + prefix + ".key", "--compile-to=vm"},
	} {
		code, _, stderr := run(append(args, "--iree-hal-target-backends=vmvx", "-o", filepath.Join(dir, "x.vmfb"), "../../../samples/simple_mul.mlir")...)
		if code == 0 || !strings.Contains(stderr, "--gree-sign-key") {
			t.Errorf("%v: code %d, stderr %q", args, code, stderr)
		}
	}
}
