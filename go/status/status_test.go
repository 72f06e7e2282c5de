package status

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestCodeNumbersMatchIREE(t *testing.T) {
	// iree_status_code_t values, from IREE's runtime/src/iree/base/status.h.
	want := map[Code]uint32{
		OK: 0, Cancelled: 1, Unknown: 2, InvalidArgument: 3, DeadlineExceeded: 4,
		NotFound: 5, AlreadyExists: 6, PermissionDenied: 7, ResourceExhausted: 8,
		FailedPrecondition: 9, Aborted: 10, OutOfRange: 11, Unimplemented: 12,
		Internal: 13, Unavailable: 14, DataLoss: 15, Unauthenticated: 16,
	}
	for c, n := range want {
		if uint32(c) != n {
			t.Errorf("%v = %d, want %d", c, uint32(c), n)
		}
	}
	if got := NotFound.String(); got != "NOT_FOUND" {
		t.Errorf("NotFound.String() = %q", got)
	}
	if got := Code(99).String(); got != "CODE_99" {
		t.Errorf("Code(99).String() = %q", got)
	}
}

func TestCodeSurvivesWrapping(t *testing.T) {
	base := Errorf(NotFound, "no driver '%s' registered", "x")
	wrapped := fmt.Errorf("creating device: %w", base)
	if got := CodeOf(wrapped); got != NotFound {
		t.Fatalf("CodeOf(wrapped) = %v, want NOT_FOUND", got)
	}
	if got, want := wrapped.Error(), "creating device: NOT_FOUND; no driver 'x' registered"; got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
	if CodeOf(nil) != OK {
		t.Errorf("CodeOf(nil) != OK")
	}
	if CodeOf(errors.New("plain")) != Unknown {
		t.Errorf("plain errors should be UNKNOWN")
	}
}

func TestErrorfWrapsCause(t *testing.T) {
	cause := errors.New("disk on fire")
	err := Errorf(DataLoss, "reading module: %w", cause)
	if !errors.Is(err, cause) {
		t.Errorf("errors.Is lost the cause")
	}
	if CodeOf(err) != DataLoss {
		t.Errorf("CodeOf = %v", CodeOf(err))
	}
	if got, want := err.Error(), "DATA_LOSS; reading module: disk on fire"; got != want {
		t.Errorf("got %q want %q", got, want)
	}
}

func TestNewWithOKIsInternal(t *testing.T) {
	if CodeOf(New(OK, "oops")) != Internal {
		t.Errorf("New(OK) should be INTERNAL")
	}
}

func TestFromPanicIsOneLineAndStackOnlyWithDebug(t *testing.T) {
	var buf strings.Builder
	old := debugOut
	debugOut = &buf
	defer func() { debugOut = old }()
	recoverIn := func() (err error) {
		defer func() { err = FromPanic(recover(), "the test") }()
		var m map[string]int
		m["x"] = 1 // panics: assignment to entry in nil map
		return nil
	}
	t.Setenv(DebugEnv, "")
	err := recoverIn()
	if CodeOf(err) != Internal || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "nil map") || !strings.Contains(err.Error(), "in the test") {
		t.Errorf("got %q", err)
	}
	if buf.Len() != 0 {
		t.Errorf("stack written without %s: %q", DebugEnv, buf.String())
	}
	t.Setenv(DebugEnv, "1")
	recoverIn()
	if !strings.Contains(buf.String(), "goroutine") || !strings.Contains(buf.String(), "status_test.go") {
		t.Errorf("with %s=1 the stack was not written: %q", DebugEnv, buf.String())
	}
}
