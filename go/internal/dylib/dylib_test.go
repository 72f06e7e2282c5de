package dylib

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/status"
)

// libc is on every Linux machine gree builds on.
var libc = Spec{What: "libc", Candidates: []string{"libc.so.6"}}

func TestOpenMissingNamesLibraryAndFix(t *testing.T) {
	_, err := Open(Spec{
		What:       "libnothere.so.7",
		Candidates: []string{"libnothere.so.7", "/opt/none/libnothere.so"},
		Install:    "install the nothere runtime",
	})
	if status.CodeOf(err) != status.Unavailable {
		t.Fatalf("code = %v, want UNAVAILABLE (%v)", status.CodeOf(err), err)
	}
	for _, want := range []string{"libnothere.so.7", "/opt/none/libnothere.so", "install the nothere runtime"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestBindResolvesAndCalls(t *testing.T) {
	lib, err := Open(libc)
	if err != nil {
		t.Fatal(err)
	}
	var table struct {
		Strlen func(s string) uintptr `sym:"strlen"`
		Abs    func(x int32) int32    `sym:"abs"`
		Absent func() int32           `sym:"gree_no_such_symbol,optional"`
	}
	if err := lib.Bind(&table); err != nil {
		t.Fatal(err)
	}
	if got := table.Strlen("hello"); got != 5 {
		t.Errorf("strlen = %d", got)
	}
	if got := table.Abs(-7); got != 7 {
		t.Errorf("abs = %d", got)
	}
	if table.Absent != nil {
		t.Errorf("optional missing symbol should stay nil")
	}
}

func TestBindMissingRequiredSymbolIsErrorNotPanic(t *testing.T) {
	lib, err := Open(libc)
	if err != nil {
		t.Fatal(err)
	}
	var table struct {
		Abs     func(x int32) int32 `sym:"abs"`
		Missing func() int32        `sym:"gree_no_such_symbol"`
	}
	err = lib.Bind(&table)
	if status.CodeOf(err) != status.Unavailable || !strings.Contains(err.Error(), "gree_no_such_symbol") {
		t.Fatalf("err = %v", err)
	}
	if table.Abs != nil {
		t.Errorf("table must be untouched on error")
	}
}

func TestGoString(t *testing.T) {
	if got := GoString([]byte("abc\x00def")); got != "abc" {
		t.Errorf("got %q", got)
	}
	if got := GoString([]byte("abc")); got != "abc" {
		t.Errorf("got %q", got)
	}
}
