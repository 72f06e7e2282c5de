package llvmcpu

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fakeSite makes a Python prefix under a temporary directory with
// llvmlite's library (an empty file) and dist-info, and returns the
// prefix and the library's path.
func fakeSite(t *testing.T, version string) (prefix, lib string) {
	prefix = t.TempDir()
	site := filepath.Join(prefix, "lib", "python3.12", "site-packages")
	lib = filepath.Join(site, "llvmlite", "binding", liteLibName())
	if err := os.MkdirAll(filepath.Dir(lib), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lib, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(site, "llvmlite-"+version+".dist-info"), 0o755); err != nil {
		t.Fatal(err)
	}
	return prefix, lib
}

func TestLLVMLiteFoundInPrefixes(t *testing.T) {
	prefix, lib := fakeSite(t, "0.47.0")
	// As a prefix, as the site-packages directory itself, and from a
	// directory below the prefix (where pip puts iree_go/_bin).
	if !slices.Contains(siteLibs(prefix), lib) {
		t.Errorf("siteLibs(%s) = %v, want %s", prefix, siteLibs(prefix), lib)
	}
	site := filepath.Dir(filepath.Dir(filepath.Dir(lib)))
	if !slices.Contains(siteLibs(site), lib) {
		t.Errorf("siteLibs(site-packages) misses %s", lib)
	}
	bin := filepath.Join(site, "iree_go", "_bin")
	found := false
	for _, d := range ancestors(bin, 5) {
		found = found || slices.Contains(siteLibs(d), lib)
	}
	if !found {
		t.Errorf("walking up from %s misses %s", bin, lib)
	}
	if v := liteVersion(lib); v != "0.47.0" {
		t.Errorf("version %q, want 0.47.0", v)
	}
	t.Setenv("GREE_LIBLLVMLITE", "")
	t.Setenv("VIRTUAL_ENV", prefix)
	if c := liteCandidates(); !slices.Contains(c, lib) {
		t.Errorf("candidates %v lack $VIRTUAL_ENV's %s", c, lib)
	}
	t.Setenv("GREE_LIBLLVMLITE", "/some/where/libllvmlite.so")
	if c := liteCandidates(); len(c) != 1 || c[0] != "/some/where/libllvmlite.so" {
		t.Errorf("GREE_LIBLLVMLITE set: candidates %v", c)
	}
}

func TestLLVMLiteVersionFromVersionFile(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "llvmlite", "binding", "libllvmlite.so")
	os.MkdirAll(filepath.Dir(lib), 0o755)
	os.WriteFile(filepath.Join(dir, "llvmlite", "_version.py"), []byte("version_version = '0.45.1'\n"), 0o644)
	if v := liteVersion(lib); v != "0.45.1" {
		t.Errorf("version %q, want 0.45.1", v)
	}
}

func TestChoicesFromEnvironment(t *testing.T) {
	for _, c := range []struct{ llvm, linker, wantLLVM, wantLinker string }{
		{"", "", "auto", "auto"}, {"System", "GREE", "system", "gree"}, {"llvmlite", "lld", "llvmlite", "lld"},
	} {
		t.Setenv("GREE_LLVM", c.llvm)
		t.Setenv("GREE_LINKER", c.linker)
		l, err1 := llvmChoice()
		k, err2 := linkerChoice()
		if l != c.wantLLVM || k != c.wantLinker || err1 != nil || err2 != nil {
			t.Errorf("GREE_LLVM=%q GREE_LINKER=%q: %q %q (%v, %v)", c.llvm, c.linker, l, k, err1, err2)
		}
	}
	t.Setenv("GREE_LLVM", "clang")
	if _, err := llvmChoice(); err == nil || !strings.Contains(err.Error(), "GREE_LLVM") {
		t.Errorf("GREE_LLVM=clang: %v", err)
	}
	t.Setenv("GREE_LINKER", "gold")
	if _, err := linkerChoice(); err == nil || !strings.Contains(err.Error(), "GREE_LINKER") {
		t.Errorf("GREE_LINKER=gold: %v", err)
	}
}

func TestLLVMLiteRejectsMissingLibrary(t *testing.T) {
	t.Setenv("GREE_LIBLLVMLITE", filepath.Join(t.TempDir(), "libllvmlite.so"))
	if _, err := loadLLVMLite(); err == nil || !strings.Contains(err.Error(), "libllvmlite") {
		t.Errorf("missing library: %v", err)
	}
}
