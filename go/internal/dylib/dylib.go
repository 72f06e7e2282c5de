package dylib

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/ebitengine/purego"

	"github.com/gree-ml/gree/go/status"
)

// Spec says what to load and what to tell a user when it is missing.
type Spec struct {
	// What names the library in errors, e.g. "libcuda.so.1".
	What string
	// Candidates are the file names or paths tried in order.
	Candidates []string
	// Install is a sentence telling how to get the library.
	Install string
}

// Library is an opened native library.
type Library struct {
	// Path is the candidate that loaded.
	Path   string
	handle uintptr
}

// Open loads the first candidate of spec that loads. The library stays
// loaded for the life of the process (drivers hold function pointers into it).
func Open(spec Spec) (*Library, error) {
	var tried []string
	for _, c := range spec.Candidates {
		h, err := purego.Dlopen(c, purego.RTLD_NOW|purego.RTLD_LOCAL)
		if err == nil {
			return &Library{Path: c, handle: h}, nil
		}
		tried = append(tried, fmt.Sprintf("%s (%v)", c, err))
	}
	msg := fmt.Sprintf("%s could not be loaded; tried %s", spec.What, strings.Join(tried, ", "))
	if spec.Install != "" {
		msg += "; " + spec.Install
	}
	return nil, status.New(status.Unavailable, msg)
}

// Lookup returns the address of symbol name, or an UNAVAILABLE error.
func (l *Library) Lookup(name string) (uintptr, error) {
	p, err := purego.Dlsym(l.handle, name)
	if err != nil || p == 0 {
		return 0, status.Errorf(status.Unavailable, "symbol %s not found in %s; the library is older than gree needs", name, l.Path)
	}
	return p, nil
}

// Has reports whether the library exports name.
func (l *Library) Has(name string) bool {
	p, err := purego.Dlsym(l.handle, name)
	return err == nil && p != 0
}

// Bind fills table, a pointer to a struct whose func-typed fields carry a
// `sym:"symbolName"` tag (add ",optional" to leave a missing symbol nil).
// Every required symbol is looked up before any is registered: on error the
// table is left untouched.
func (l *Library) Bind(table any) error {
	v := reflect.ValueOf(table)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return status.Errorf(status.Internal, "dylib: Bind wants a pointer to a struct, got %T", table)
	}
	s := v.Elem()
	type binding struct {
		field int
		addr  uintptr
	}
	var bindings []binding
	var missing []string
	for i := 0; i < s.NumField(); i++ {
		f := s.Type().Field(i)
		tag, ok := f.Tag.Lookup("sym")
		if !ok {
			continue
		}
		if f.Type.Kind() != reflect.Func {
			return status.Errorf(status.Internal, "dylib: field %s tagged sym is not a func", f.Name)
		}
		name, opt, _ := strings.Cut(tag, ",")
		p, err := purego.Dlsym(l.handle, name)
		if err != nil || p == 0 {
			if opt != "optional" {
				missing = append(missing, name)
			}
			continue
		}
		bindings = append(bindings, binding{i, p})
	}
	if len(missing) > 0 {
		return status.Errorf(status.Unavailable, "%s lacks symbols %s; the library is older than gree needs", l.Path, strings.Join(missing, ", "))
	}
	for _, b := range bindings {
		purego.RegisterFunc(s.Field(b.field).Addr().Interface(), b.addr)
	}
	return nil
}

// GoString copies a NUL-terminated C string of at most max bytes.
func GoString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}
