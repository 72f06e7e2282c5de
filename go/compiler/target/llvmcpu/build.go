package llvmcpu

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/gree-ml/gree/go/status"
)

// Machine says what code is generated for.
type Machine struct {
	// Triple is the LLVM target triple ("x86_64-unknown-linux-gnu").
	Triple string
	// CPU is the LLVM CPU name ("generic", "skylake-avx512", …).
	CPU string
	// Features is the LLVM feature string ("+avx2,+fma").
	Features string
	// OptLevel is 0 to 3.
	OptLevel int
}

// compileIR parses LLVM IR text, optimizes it with the default<On> pass
// pipeline and returns the object file LLVM emits for m; with optimized
// non-nil it also returns the optimized IR's text there.
func compileIR(src string, m Machine, optimized *string) ([]byte, error) {
	t, err := load()
	if err != nil {
		return nil, err
	}
	return t.compile(src, m, optimized)
}

// link turns object files into one shared object: with ld.lld when it
// was found, else (or with GREE_LINKER=gree) with gree's own linker
// (link.go).
func link(objs [][]byte) ([]byte, error) {
	t, err := load()
	if err != nil {
		return nil, err
	}
	if t.lld == "" {
		return linkShared(objs)
	}
	dir, err := os.MkdirTemp("", "gree-llvmcpu-")
	if err != nil {
		return nil, status.Errorf(status.Unavailable, "llvm-cpu: temporary directory: %v", err)
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "kernels.so")
	args := []string{"-shared", "--build-id=none", "-z", "noexecstack", "-z", "now", "--hash-style=both", "-O1", "-o", out}
	for i, obj := range objs {
		in := filepath.Join(dir, fmt.Sprintf("kernels%d.o", i))
		if err := os.WriteFile(in, obj, 0o600); err != nil {
			return nil, status.Errorf(status.Unavailable, "llvm-cpu: %v", err)
		}
		args = append(args, in)
	}
	cmd := exec.Command(t.lld, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, status.Errorf(status.Internal, "llvm-cpu: %s failed: %v: %s", t.lld, err, stderr.String())
	}
	so, err := os.ReadFile(out)
	if err != nil {
		return nil, status.Errorf(status.Internal, "llvm-cpu: %v", err)
	}
	return so, nil
}
