package ir

import (
	"fmt"
	"strconv"
	"strings"
)

// Location says where an operation or block argument came from. Locations
// are attributes too: String returns "loc(…)", and they may be named by
// "#loc = loc(…)" aliases.
type Location interface {
	Attribute
	// body returns the text inside "loc(…)".
	body() string
}

// UnknownLoc is loc(unknown).
type UnknownLoc struct{}

// Unknown is the unknown location.
var Unknown Location = UnknownLoc{}

// String returns "loc(unknown)".
func (UnknownLoc) String() string { return "loc(unknown)" }
func (UnknownLoc) body() string   { return "unknown" }

// FileLineColLoc is loc("file":line:col), optionally a range ending at
// EndLine:EndCol (zero when not a range).
type FileLineColLoc struct {
	File            string
	Line, Col       int
	EndLine, EndCol int
}

// String returns e.g. `loc("a.mlir":3:5)`.
func (l *FileLineColLoc) String() string { return "loc(" + l.body() + ")" }
func (l *FileLineColLoc) body() string {
	s := Quote(l.File) + ":" + strconv.Itoa(l.Line) + ":" + strconv.Itoa(l.Col)
	if l.EndLine > 0 {
		s += " to " + strconv.Itoa(l.EndLine) + ":" + strconv.Itoa(l.EndCol)
	}
	return s
}

// NameLoc is loc("name") or loc("name"(child)).
type NameLoc struct {
	Name  string
	Child Location // nil when absent
}

// String returns e.g. `loc("x"("a.mlir":1:1))`.
func (l *NameLoc) String() string { return "loc(" + l.body() + ")" }
func (l *NameLoc) body() string {
	s := Quote(l.Name)
	if l.Child != nil {
		s += "(" + l.Child.body() + ")"
	}
	return s
}

// CallSiteLoc is loc(callsite(callee at caller)).
type CallSiteLoc struct{ Callee, Caller Location }

// String returns e.g. `loc(callsite("f":1:2 at "g":3:4))`.
func (l *CallSiteLoc) String() string { return "loc(" + l.body() + ")" }
func (l *CallSiteLoc) body() string {
	return "callsite(" + l.Callee.body() + " at " + l.Caller.body() + ")"
}

// FusedLoc is loc(fused[a, b]) or loc(fused<metadata>[a, b]).
type FusedLoc struct {
	Locs     []Location
	Metadata Attribute // nil when absent
}

// String returns e.g. `loc(fused["a":1:2, "b":3:4])`.
func (l *FusedLoc) String() string { return "loc(" + l.body() + ")" }
func (l *FusedLoc) body() string {
	var sb strings.Builder
	sb.WriteString("fused")
	if l.Metadata != nil {
		sb.WriteString("<" + l.Metadata.String() + ">")
	}
	sb.WriteByte('[')
	for i, c := range l.Locs {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(c.body())
	}
	sb.WriteByte(']')
	return sb.String()
}

// FileLoc returns the location "file":line:col.
func FileLoc(file string, line, col int) *FileLineColLoc {
	return &FileLineColLoc{File: file, Line: line, Col: col}
}

// Diagnostic is a compiler error tied to a source location. It formats as
// MLIR's diagnostics do: "file:line:col: error: message" where the
// location holds a file position; else the location itself follows
// "<unknown>:0: error: " (`<unknown>:0: error: loc("eq"): message` for a
// name-only location; just "<unknown>:0: error: message" for
// loc(unknown)).
type Diagnostic struct {
	Loc Location
	Msg string
}

// Error formats the diagnostic.
func (d *Diagnostic) Error() string {
	if FileLineColOf(d.Loc) != nil {
		return FormatLoc(d.Loc) + ": error: " + d.Msg
	}
	if d.Loc == nil || d.Loc == Unknown {
		return "<unknown>:0: error: " + d.Msg
	}
	return "<unknown>:0: error: " + d.Loc.String() + ": " + d.Msg
}

// Errorf returns a Diagnostic at loc.
func Errorf(loc Location, format string, args ...any) *Diagnostic {
	return &Diagnostic{Loc: loc, Msg: fmt.Sprintf(format, args...)}
}

// OpErrorf returns a Diagnostic at op's location whose message starts with
// "'op.name' op ", as MLIR's verifier messages do.
func OpErrorf(op *Operation, format string, args ...any) *Diagnostic {
	return &Diagnostic{Loc: op.Loc, Msg: "'" + op.Name + "' op " + fmt.Sprintf(format, args...)}
}

// FormatLoc returns "file:line:col" for the first file position found in
// loc (looking through names, call sites and fusions), or "<unknown>".
func FormatLoc(loc Location) string {
	if fl := FileLineColOf(loc); fl != nil {
		return fl.File + ":" + strconv.Itoa(fl.Line) + ":" + strconv.Itoa(fl.Col)
	}
	return "<unknown>"
}

// FileLineColOf returns the first file position inside loc, or nil. For a
// call site it is the callee's position.
func FileLineColOf(loc Location) *FileLineColLoc {
	switch l := loc.(type) {
	case *FileLineColLoc:
		return l
	case *NameLoc:
		return FileLineColOf(l.Child)
	case *CallSiteLoc:
		if fl := FileLineColOf(l.Callee); fl != nil {
			return fl
		}
		return FileLineColOf(l.Caller)
	case *FusedLoc:
		for _, c := range l.Locs {
			if fl := FileLineColOf(c); fl != nil {
				return fl
			}
		}
	}
	return nil
}

// errorf makes a location-less error of this package.
func errorf(format string, args ...any) error {
	return fmt.Errorf("ir: "+format, args...)
}
