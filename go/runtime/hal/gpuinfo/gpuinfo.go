package gpuinfo

import (
	"fmt"
	"strings"
	"sync"
	"unsafe"

	"github.com/gree-ml/gree/go/internal/dylib"
)

// Dump builds a --dump_devices body the way IREE's CUDA and HIP drivers
// write theirs (cuda_driver.c, hip_driver.c dump_device_info): every item
// starts with "\n- ", so the text begins with an empty line; Group adds the
// blank line between groups; Text ends the body with "\n".
type Dump struct {
	b strings.Builder
}

// Item appends "\n- " and the formatted item.
func (d *Dump) Item(format string, args ...any) {
	d.b.WriteString("\n- ")
	fmt.Fprintf(&d.b, format, args...)
}

// Group starts a new group: the next item follows a blank line.
func (d *Dump) Group() { d.b.WriteString("\n") }

// Text returns the body, ending with "\n".
func (d *Dump) Text() string { return d.b.String() + "\n" }

// Attrs reads integer device attributes (cuDeviceGetAttribute,
// hipDeviceGetAttribute) through a function, so a dump can read every value
// in order and check for failure once. After the first failure Get returns
// 0 and stops calling the function.
type Attrs struct {
	get func(attr int32) (int32, error)
	err error
}

// NewAttrs returns an Attrs reading through get.
func NewAttrs(get func(attr int32) (int32, error)) *Attrs { return &Attrs{get: get} }

// Get returns the attribute's value, or 0 once any read has failed.
func (a *Attrs) Get(attr int32) int32 {
	if a.err != nil {
		return 0
	}
	v, err := a.get(attr)
	if err != nil {
		a.err = err
		return 0
	}
	return v
}

// Err returns the first failure, or nil.
func (a *Attrs) Err() error { return a.err }

// maxCString bounds CString's scan: the strings it reads (CUresult names,
// loader paths) are far shorter.
const maxCString = 4096

// CString copies the NUL-terminated C string at p (memory the native
// library owns, e.g. the name cuGetErrorName returns). nil is "".
func CString(p *byte) string {
	if p == nil {
		return ""
	}
	var b []byte
	for i := 0; i < maxCString; i++ {
		c := *(*byte)(unsafe.Add(unsafe.Pointer(p), i))
		if c == 0 {
			break
		}
		b = append(b, c)
	}
	return string(b)
}

// dlInfo is glibc's Dl_info (<dlfcn.h>): four pointer-sized fields.
type dlInfo struct {
	fname *byte   // dli_fname: path of the shared object
	fbase uintptr // dli_fbase
	sname *byte   // dli_sname
	saddr uintptr // dli_saddr
}

var (
	dladdrOnce sync.Once
	dladdr     func(addr uintptr, info *dlInfo) int32
)

// loadDladdr binds dladdr from libc (glibc ≥ 2.34) or libdl (older glibc).
func loadDladdr() {
	for _, name := range []string{"libc.so.6", "libdl.so.2"} {
		lib, err := dylib.Open(dylib.Spec{What: name, Candidates: []string{name}})
		if err != nil || !lib.Has("dladdr") {
			continue
		}
		var t struct {
			Dladdr func(addr uintptr, info *dlInfo) int32 `sym:"dladdr"`
		}
		if lib.Bind(&t) == nil {
			dladdr = t.Dladdr
			return
		}
	}
}

// SymbolPath returns the file the dynamic loader loaded symbol of lib from,
// as dladdr reports it (what IREE prints as amdhip64_dylib_path). When the
// loader cannot say, it returns lib.Path, the candidate that loaded.
func SymbolPath(lib *dylib.Library, symbol string) string {
	addr, err := lib.Lookup(symbol)
	if err != nil {
		return lib.Path
	}
	dladdrOnce.Do(loadDladdr)
	if dladdr == nil {
		return lib.Path
	}
	var info dlInfo
	if dladdr(addr, &info) == 0 || info.fname == nil {
		return lib.Path
	}
	if p := CString(info.fname); p != "" {
		return p
	}
	return lib.Path
}
