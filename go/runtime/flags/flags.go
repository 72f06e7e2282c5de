package flags

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/gree-ml/gree/go/status"
)

// Kind is the type of a flag's value.
type Kind int

// The flag kinds.
const (
	KindBool Kind = iota
	KindInt
	KindFloat
	KindString
	KindList
	KindCallback
)

// Flag is one registered flag.
type Flag struct {
	Name string
	Help string
	Kind Kind

	b  *bool
	i  *int64
	f  *float64
	s  *string
	l  *[]string
	cb func(value string) error
}

// Set is a set of flags. The runtime tools share Default.
type Set struct {
	mu    sync.Mutex
	flags map[string]*Flag
}

// Default is the process-wide set.
var Default = &Set{}

func (s *Set) add(f *Flag) *Flag {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.flags == nil {
		s.flags = map[string]*Flag{}
	}
	if _, dup := s.flags[f.Name]; dup {
		panic("flags: duplicate flag --" + f.Name)
	}
	s.flags[f.Name] = f
	return f
}

// Bool defines a bool flag: a bare --name, "", "true" or "1" is true.
func (s *Set) Bool(name string, def bool, help string) *bool {
	v := def
	s.add(&Flag{Name: name, Help: help, Kind: KindBool, b: &v})
	return &v
}

// Int defines an integer flag.
func (s *Set) Int(name string, def int64, help string) *int64 {
	v := def
	s.add(&Flag{Name: name, Help: help, Kind: KindInt, i: &v})
	return &v
}

// Float defines a floating-point flag.
func (s *Set) Float(name string, def float64, help string) *float64 {
	v := def
	s.add(&Flag{Name: name, Help: help, Kind: KindFloat, f: &v})
	return &v
}

// String defines a string flag.
func (s *Set) String(name, def, help string) *string {
	v := def
	s.add(&Flag{Name: name, Help: help, Kind: KindString, s: &v})
	return &v
}

// List defines a flag that accumulates one value per occurrence.
func (s *Set) List(name, help string) *[]string {
	var v []string
	s.add(&Flag{Name: name, Help: help, Kind: KindList, l: &v})
	return &v
}

// Callback defines a flag that runs fn with its value when parsed (used by
// --list_drivers and friends, which print and exit).
func (s *Set) Callback(name, help string, fn func(value string) error) {
	s.add(&Flag{Name: name, Help: help, Kind: KindCallback, cb: fn})
}

// Lookup returns the flag called name, or nil.
func (s *Set) Lookup(name string) *Flag {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.flags[name]
}

// Mode says what Parse does with unknown flags.
type Mode int

const (
	// UnknownIsError rejects unknown flags (iree-run-module).
	UnknownIsError Mode = iota
	// UnknownIsKept returns unknown flags with the positional arguments
	// (iree-check-module and iree-benchmark-module pass them on).
	UnknownIsKept
)

// Parse parses args (without the program name). It returns the arguments
// that are not flags (and, with UnknownIsKept, the unknown flags).
func (s *Set) Parse(args []string, mode Mode) ([]string, error) {
	var rest []string
	for _, a := range args {
		if !strings.HasPrefix(a, "--") || a == "--" {
			rest = append(rest, a)
			continue
		}
		name, value, hasValue := strings.Cut(a[2:], "=")
		if name == "flagfile" {
			if !hasValue || value == "" {
				return rest, status.New(status.InvalidArgument, "--flagfile needs a path: --flagfile=path")
			}
			if err := s.parseFlagfile(value, mode, &rest); err != nil {
				return rest, err
			}
			continue
		}
		f := s.Lookup(name)
		if f == nil {
			if mode == UnknownIsKept {
				rest = append(rest, a)
				continue
			}
			return rest, status.Errorf(status.InvalidArgument, "flag '%s' not recognized; run with --help to see the flags", name)
		}
		if err := f.set(value, hasValue); err != nil {
			return rest, err
		}
	}
	return rest, nil
}

func (s *Set) parseFlagfile(path string, mode Mode, rest *[]string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return status.Errorf(status.NotFound, "reading flagfile %s: %v", path, err)
	}
	var args []string
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "//") {
			continue
		}
		if !strings.HasPrefix(line, "--") {
			return status.Errorf(status.InvalidArgument, "%s:%d: positional arguments are not allowed in flagfiles: %q", path, n+1, line)
		}
		args = append(args, line)
	}
	r, err := s.Parse(args, mode)
	*rest = append(*rest, r...)
	return err
}

func (f *Flag) set(value string, hasValue bool) error {
	switch f.Kind {
	case KindBool:
		*f.b = !hasValue || value == "" || value == "true" || value == "1"
	case KindInt:
		n, err := strconv.ParseInt(strings.TrimSpace(value), 0, 64)
		if err != nil {
			return status.Errorf(status.InvalidArgument, "flag --%s wants an integer, got %q", f.Name, value)
		}
		*f.i = n
	case KindFloat:
		x, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil {
			return status.Errorf(status.InvalidArgument, "flag --%s wants a number, got %q", f.Name, value)
		}
		*f.f = x
	case KindString:
		*f.s = value
	case KindList:
		*f.l = append(*f.l, value)
	case KindCallback:
		return f.cb(value)
	}
	return nil
}

// Help returns every flag as a reusable flagfile, sorted by name, each
// preceded by its help as comments.
func (s *Set) Help() string {
	s.mu.Lock()
	var names []string
	for n := range s.flags {
		names = append(names, n)
	}
	s.mu.Unlock()
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		f := s.Lookup(n)
		for _, line := range strings.Split(f.Help, "\n") {
			fmt.Fprintf(&b, "# %s\n", line)
		}
		switch f.Kind {
		case KindBool:
			fmt.Fprintf(&b, "--%s=%v\n", n, *f.b)
		case KindInt:
			fmt.Fprintf(&b, "--%s=%d\n", n, *f.i)
		case KindFloat:
			fmt.Fprintf(&b, "--%s=%g\n", n, *f.f)
		case KindString:
			fmt.Fprintf(&b, "--%s=\"%s\"\n", n, *f.s)
		case KindList:
			if len(*f.l) == 0 {
				fmt.Fprintf(&b, "# --%s=...\n", n)
			}
			for _, v := range *f.l {
				fmt.Fprintf(&b, "--%s=\"%s\"\n", n, v)
			}
		case KindCallback:
			fmt.Fprintf(&b, "# --%s\n", n)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Package-level helpers on Default.

// Bool defines a bool flag in Default.
func Bool(name string, def bool, help string) *bool { return Default.Bool(name, def, help) }

// Int defines an integer flag in Default.
func Int(name string, def int64, help string) *int64 { return Default.Int(name, def, help) }

// Float defines a float flag in Default.
func Float(name string, def float64, help string) *float64 { return Default.Float(name, def, help) }

// String defines a string flag in Default.
func String(name, def, help string) *string { return Default.String(name, def, help) }

// List defines a list flag in Default.
func List(name, help string) *[]string { return Default.List(name, help) }

// Callback defines a callback flag in Default.
func Callback(name, help string, fn func(string) error) { Default.Callback(name, help, fn) }

// Parse parses args with Default.
func Parse(args []string, mode Mode) ([]string, error) { return Default.Parse(args, mode) }
