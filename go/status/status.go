package status

import (
	"errors"
	"fmt"
)

// Code is an IREE status code. The numbers match iree_status_code_t.
type Code uint32

// The status codes, numbered as IREE numbers them.
const (
	OK                 Code = 0
	Cancelled          Code = 1
	Unknown            Code = 2
	InvalidArgument    Code = 3
	DeadlineExceeded   Code = 4
	NotFound           Code = 5
	AlreadyExists      Code = 6
	PermissionDenied   Code = 7
	ResourceExhausted  Code = 8
	FailedPrecondition Code = 9
	Aborted            Code = 10
	OutOfRange         Code = 11
	Unimplemented      Code = 12
	Internal           Code = 13
	Unavailable        Code = 14
	DataLoss           Code = 15
	Unauthenticated    Code = 16
)

var codeNames = [...]string{
	"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
	"NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
	"FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
	"INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
}

// String returns the code's upper-case IREE name, e.g. "NOT_FOUND".
func (c Code) String() string {
	if int(c) < len(codeNames) {
		return codeNames[c]
	}
	return fmt.Sprintf("CODE_%d", uint32(c))
}

// Error is an error with a status code. Msg is the whole message; Err, when
// set, is the cause whose text Msg already contains.
type Error struct {
	Code Code
	Msg  string
	Err  error
}

// Error formats as IREE formats a status: "<CODE>; <message>".
func (e *Error) Error() string { return e.Code.String() + "; " + e.Msg }

// Unwrap returns the wrapped cause.
func (e *Error) Unwrap() error { return e.Err }

// New returns an error with code and message. New(OK, …) is a programming
// error and yields an INTERNAL error instead.
func New(code Code, msg string) error {
	if code == OK {
		return &Error{Code: Internal, Msg: "status.New called with OK: " + msg}
	}
	return &Error{Code: code, Msg: msg}
}

// Errorf returns an error with code and a formatted message. A %w verb in
// format wraps its argument as the cause.
func Errorf(code Code, format string, args ...any) error {
	wrapped := fmt.Errorf(format, args...)
	e := New(code, wrapped.Error()).(*Error)
	e.Err = errors.Unwrap(wrapped)
	return e
}

// CodeOf returns the status code of err: OK for nil, the code of the
// outermost *Error in its chain, or UNKNOWN for errors without one.
func CodeOf(err error) Code {
	if err == nil {
		return OK
	}
	var se *Error
	if errors.As(err, &se) {
		return se.Code
	}
	return Unknown
}

// Annotate adds context to err as IREE annotates a status: the code is
// kept and the message becomes "<message>; <annotation>". A nil err stays
// nil.
func Annotate(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	note := fmt.Sprintf(format, args...)
	var se *Error
	if errors.As(err, &se) {
		return &Error{Code: se.Code, Msg: se.Msg + "; " + note, Err: err}
	}
	return &Error{Code: Unknown, Msg: err.Error() + "; " + note, Err: err}
}
