package gpuinfo

import (
	"errors"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/internal/dylib"
)

func TestDumpLayout(t *testing.T) {
	var d Dump
	d.Item("a: %d", 1)
	d.Item("b: %s", "x")
	d.Group()
	d.Item("c: (%d, %d)", 2, 3)
	want := "\n- a: 1\n- b: x\n\n- c: (2, 3)\n"
	if got := d.Text(); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestAttrsKeepsFirstError(t *testing.T) {
	calls := 0
	a := NewAttrs(func(attr int32) (int32, error) {
		calls++
		if attr == 2 {
			return 0, errors.New("attr 2 failed")
		}
		return attr * 10, nil
	})
	if got := a.Get(1); got != 10 {
		t.Errorf("Get(1) = %d", got)
	}
	if got := a.Get(2); got != 0 {
		t.Errorf("Get(2) = %d", got)
	}
	if got := a.Get(3); got != 0 {
		t.Errorf("Get(3) after a failure = %d, want 0", got)
	}
	if a.Err() == nil || a.Err().Error() != "attr 2 failed" {
		t.Errorf("Err = %v", a.Err())
	}
	if calls != 2 {
		t.Errorf("get called %d times, want 2 (no calls after the failure)", calls)
	}
}

func TestCString(t *testing.T) {
	b := []byte("CUDA_ERROR_NO_DEVICE\x00junk")
	if got := CString(&b[0]); got != "CUDA_ERROR_NO_DEVICE" {
		t.Errorf("got %q", got)
	}
	if got := CString(nil); got != "" {
		t.Errorf("nil: got %q", got)
	}
}

func TestSymbolPathNamesTheLoadedFile(t *testing.T) {
	lib, err := dylib.Open(dylib.Spec{What: "libc", Candidates: []string{"libc.so.6"}})
	if err != nil {
		t.Skipf("no libc.so.6: %v", err)
	}
	got := SymbolPath(lib, "strlen")
	if !strings.HasPrefix(got, "/") || !strings.Contains(got, "libc") {
		t.Errorf("SymbolPath(strlen) = %q, want an absolute path to libc", got)
	}
	if got := SymbolPath(lib, "gree_no_such_symbol"); got != lib.Path {
		t.Errorf("missing symbol: got %q, want the candidate %q", got, lib.Path)
	}
}
