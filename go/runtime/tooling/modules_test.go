package tooling

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestReadModuleFileWholeFiles: a regular file and a pipe (whose size
// stat reports as 0, as with --module=/dev/stdin or <(…)) both come back
// whole.
func TestReadModuleFileWholeFiles(t *testing.T) {
	want := bytes.Repeat([]byte("gree module bytes "), 50000) // 900 KB: the huge-page path
	path := filepath.Join(t.TempDir(), "m.vmfb")
	if err := os.WriteFile(path, want, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadModuleFile(path, nil)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("regular file: %d bytes, %v; want %d bytes", len(got), err, len(want))
	}
	if runtime.GOOS != "linux" {
		t.Skip("pipes by path need /proc/self/fd")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		w.Write(want)
		w.Close()
	}()
	got, err = ReadModuleFile(fmt.Sprintf("/proc/self/fd/%d", r.Fd()), nil)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("pipe: %d bytes, %v; want %d bytes", len(got), err, len(want))
	}
}
