// Package gputest builds the fake GPU runtime libraries (small C files in
// the drivers' testdata) that let the cuda and hip driver tests exercise
// their purego bindings end to end on machines without a GPU.
package gputest

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// BuildSharedLibrary compiles the C file src (with extra compiler flags,
// e.g. -DNAME) into dir/name as a shared library and returns its path. It
// skips the test when no C compiler is installed and fails it when
// compiling fails.
func BuildSharedLibrary(t testing.TB, src, dir, name string, flags ...string) string {
	t.Helper()
	var cc string
	for _, c := range []string{"cc", "gcc", "clang"} {
		if p, err := exec.LookPath(c); err == nil {
			cc = p
			break
		}
	}
	if cc == "" {
		t.Skip("no C compiler (cc, gcc, clang) to build the fake GPU library")
	}
	out := filepath.Join(dir, name)
	args := append([]string{"-shared", "-fPIC", "-O1", "-o", out}, flags...)
	cmd := exec.Command(cc, append(args, src)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", src, err, b)
	}
	return out
}
