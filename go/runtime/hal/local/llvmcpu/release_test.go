package llvmcpu

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	schema "github.com/gree-ml/gree/go/schemas/llvmcpu"
)

// sharedObject builds a small shared object with the C compiler (skipping
// without one) that exports gree_entry_0, self-contained and bound at load
// as the llvm-cpu target's objects are (ValidateObject refuses the C
// runtime's constructors and a dependency on libc).
func sharedObject(t *testing.T) []byte {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler: ", err)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "k.c")
	so := filepath.Join(dir, "k.so")
	if err := os.WriteFile(src, []byte("int gree_entry_0(void *d, long f, long n) { return 0; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-O1", "-nostdlib", "-fno-asynchronous-unwind-tables",
		"-Wl,-z,now", "-Wl,-z,noexecstack", "-Wl,--build-id=none", "-Wl,--hash-style=both", "-o", so, src).CombinedOutput(); err != nil {
		t.Skipf("cc cannot build a shared object: %v\n%s", err, out)
	}
	data, err := os.ReadFile(so)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd: ", err)
	}
	return len(ents)
}

// TestCloseFreesTheObject loads and closes executables many times: Close
// unloads the shared object and closes its memory file at once, so the
// open descriptors stay flat without any garbage collection.
func TestCloseFreesTheObject(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("llvm-cpu executables load on Linux only")
	}
	x := &schema.Executable{
		Triple: hostArch() + "-unknown-linux-gnu", CPU: "generic",
		Entries: []schema.Entry{{Name: "k", Symbol: "gree_entry_0", NumBindings: 0}},
		Object:  sharedObject(t),
	}
	data := encode(t, x)
	before := openFDs(t)
	for i := 0; i < 300; i++ {
		e, err := Load(data)
		if err != nil {
			t.Fatalf("load %d: %v", i, err)
		}
		if err := e.Run(0, 0, 1, [3]int64{1, 1, 1}, nil, nil); err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		if n := openFDs(t); n > before+2 {
			t.Fatalf("after %d loads and closes, %d descriptors are open (%d before): Close keeps the memory file", i+1, n, before)
		}
	}
}
