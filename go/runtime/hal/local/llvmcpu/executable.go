package llvmcpu

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/gree-ml/gree/go/schemas/llvmcpu"
	"github.com/gree-ml/gree/go/status"
)

// Executable is a loaded llvm-cpu executable.
type Executable struct {
	x       *llvmcpu.Executable
	res     *loaded
	cleanup runtime.Cleanup
	entries []uintptr
	once    sync.Once
	calls   sync.Pool // *Call, released ones for reuse
}

// loaded is a dlopen'd shared object and the memory file behind it.
type loaded struct {
	handle uintptr
	file   *os.File // the memfd, open while the object may be loaded
	path   string
}

// rtldNoLoad is glibc's RTLD_NOLOAD: dlopen only finds a loaded object.
const rtldNoLoad = 0x4

// release dlcloses the object. The dynamic loader knows objects by path
// (/proc/self/fd/N), so the descriptor is closed (and N may be reused)
// only once the object is really unloaded.
func (l *loaded) release() {
	if l.handle != 0 {
		purego.Dlclose(l.handle)
		l.handle = 0
	}
	if l.file == nil {
		return
	}
	if h, err := purego.Dlopen(l.path, purego.RTLD_NOW|rtldNoLoad); err == nil && h != 0 {
		purego.Dlclose(h) // still loaded: keep the path unique
		return
	}
	l.file.Close()
	l.file = nil
}

var (
	libmOnce sync.Once
	libmErr  error
)

// loadLibm makes libm's symbols global, for the kernels' references.
func loadLibm() error {
	libmOnce.Do(func() {
		var errs []string
		for _, name := range []string{"libm.so.6", "libm.so"} {
			if _, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_GLOBAL); err == nil {
				return
			} else {
				errs = append(errs, err.Error())
			}
		}
		libmErr = status.Errorf(status.Unavailable, "llvm-cpu executables need libm.so.6: %s", strings.Join(errs, "; "))
	})
	return libmErr
}

// Load verifies data, checks the host can run it and loads its shared
// object.
func Load(data []byte) (*Executable, error) {
	x, err := llvmcpu.Decode(data)
	if err != nil {
		return nil, err
	}
	if runtime.GOOS != "linux" {
		return nil, status.Errorf(status.Unimplemented, "llvm-cpu executables are ELF shared objects; this runtime loads them on Linux only (GOOS %s)", runtime.GOOS)
	}
	if a := x.Arch(); a != hostArch() {
		return nil, status.Errorf(status.FailedPrecondition, "llvm-cpu executable was built for %s (%s), this host is %s; recompile with --iree-llvmcpu-target-triple for this host", a, x.Triple, hostArch())
	}
	if miss := missingFeatures(x.Required); len(miss) > 0 {
		return nil, status.Errorf(status.FailedPrecondition, "llvm-cpu executable was built for CPU %q and needs CPU features this host lacks: %s; recompile with --iree-llvmcpu-target-cpu=host (or generic)", x.CPU, strings.Join(miss, ", "))
	}
	if err := ValidateObject(x); err != nil {
		return nil, err
	}
	if err := loadLibm(); err != nil {
		return nil, err
	}
	res, err := openObject(x.Object)
	if err != nil {
		return nil, err
	}
	e := &Executable{x: x, res: res}
	// An executable nobody closes is unloaded when it becomes unreachable.
	e.cleanup = runtime.AddCleanup(e, func(l *loaded) { l.release() }, res)
	for _, en := range x.Entries {
		p, err := purego.Dlsym(res.handle, en.Symbol)
		if err != nil || p == 0 {
			e.Close()
			return nil, status.Errorf(status.InvalidArgument, "llvm-cpu executable: entry %q: symbol %s not found in its shared object", en.Name, en.Symbol)
		}
		e.entries = append(e.entries, p)
	}
	return e, nil
}

// openObject writes so to an anonymous memory file and dlopens it. The
// file stays open while the object is loaded: the dynamic loader knows
// objects by path, and an open descriptor keeps /proc/self/fd/N unique.
func openObject(so []byte) (*loaded, error) {
	fd, err := memfdCreate("gree-llvmcpu")
	var path string
	var keep *os.File
	if err == nil {
		keep = os.NewFile(uintptr(fd), "gree-llvmcpu")
		if _, err := keep.Write(so); err != nil {
			keep.Close()
			return nil, status.Errorf(status.ResourceExhausted, "llvm-cpu: writing the shared object: %v", err)
		}
		path = fmt.Sprintf("/proc/self/fd/%d", fd)
	} else {
		f, err := os.CreateTemp("", "gree-llvmcpu-*.so")
		if err != nil {
			return nil, status.Errorf(status.Unavailable, "llvm-cpu: no memfd and no temporary file for the shared object: %v", err)
		}
		path = f.Name()
		defer os.Remove(path)
		_, err = f.Write(so)
		f.Close()
		if err != nil {
			return nil, status.Errorf(status.ResourceExhausted, "llvm-cpu: writing the shared object: %v", err)
		}
	}
	h, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		if keep != nil {
			keep.Close()
		}
		return nil, status.Errorf(status.InvalidArgument, "llvm-cpu: the executable's shared object does not load: %v", err)
	}
	return &loaded{handle: h, file: keep, path: path}, nil
}

// NumEntries returns the number of entry points.
func (e *Executable) NumEntries() int { return len(e.entries) }

// Entry returns entry i's description.
func (e *Executable) Entry(i int) llvmcpu.Entry { return e.x.Entries[i] }

// Close unloads the shared object; no Run may be in progress or follow.
func (e *Executable) Close() error {
	e.once.Do(func() {
		e.cleanup.Stop()
		e.res.release()
	})
	return nil
}

// The C struct gree_dispatch (see the schema) is three pointers (to the
// bindings' base addresses, their byte counts and the push constants)
// and the grid's three counts: a call lays it out at the start of one
// block of words, the three arrays after it, so that one allocation
// serves them all. The block itself needs no pin (Go's heap does not move
// objects, and Run keeps it alive through the call); the bindings it
// points to are pinned.
const (
	hdrBindings = iota
	hdrCounts
	hdrPush
	hdrGrid
	hdrWords = hdrGrid + 3
)

// Call is one dispatch of an entry point, its arguments pinned for the
// native code: Run it on any number of goroutines (each on its own range
// of workgroups), then Release it. Calls are recycled (see Release).
type Call struct {
	e     *Executable
	entry int
	// block holds the gree_dispatch and its arrays. It holds addresses
	// as integers, so the garbage collector does not see them: the
	// bindings are kept alive by bufs and pinned.
	block []uint64
	bufs  [][]byte
	pin   runtime.Pinner
}

// Prepare checks entry's arguments and pins them for Runs of grid's
// workgroups.
func (e *Executable) Prepare(entry int, grid [3]int64, push []int64, bindings [][]byte) (*Call, error) {
	en := e.x.Entries[entry]
	if len(push) < en.NumPushConstants {
		return nil, status.Errorf(status.InvalidArgument, "llvm-cpu: @%s needs %d push constants, got %d", en.Name, en.NumPushConstants, len(push))
	}
	if len(bindings) != en.NumBindings {
		return nil, status.Errorf(status.InvalidArgument, "llvm-cpu: @%s has %d bindings, got %d", en.Name, en.NumBindings, len(bindings))
	}
	c, _ := e.calls.Get().(*Call)
	if c == nil {
		c = &Call{e: e}
	}
	c.entry = entry
	n, np := max(len(bindings), 1), max(len(push), 1)
	words := hdrWords + 2*n + np
	if cap(c.block) < words {
		c.block = make([]uint64, words)
	}
	b := c.block[:words]
	clear(b)
	addr := func(i int) uint64 { return uint64(uintptr(unsafe.Pointer(&b[i]))) }
	b[hdrBindings], b[hdrCounts], b[hdrPush] = addr(hdrWords), addr(hdrWords+n), addr(hdrWords+2*n)
	for i, g := range grid {
		b[hdrGrid+i] = uint64(g)
	}
	for i, buf := range bindings {
		if len(buf) > 0 {
			c.pin.Pin(&buf[0])
			b[hdrWords+i] = uint64(uintptr(unsafe.Pointer(&buf[0])))
		}
		b[hdrWords+n+i] = uint64(len(buf))
	}
	for i, v := range push {
		b[hdrWords+2*n+i] = uint64(v)
	}
	c.block = b
	c.bufs = bindings
	return c, nil
}

// Release unpins the call's arguments; no Run may be in progress or
// follow.
func (c *Call) Release() {
	c.pin.Unpin()
	e := c.e
	runtime.KeepAlive(c.bufs) // the bindings stayed alive during the calls
	c.bufs = nil
	e.calls.Put(c)
	runtime.KeepAlive(e) // the shared object stayed loaded during the calls
}

// Run runs count workgroups starting at linear index first (x fastest) of
// the call's grid. Out-of-bounds accesses and bad loop steps are
// OUT_OF_RANGE or INVALID_ARGUMENT errors naming the kernel.
func (c *Call) Run(first, count int64) error {
	r := callNative(c.e.entries[c.entry], uintptr(unsafe.Pointer(&c.block[0])), uintptr(first), uintptr(count))
	runtime.KeepAlive(c.block)
	if r != 0 {
		code := int64(r)
		kind, _, _ := llvmcpu.DecodeError(code)
		st := status.OutOfRange
		if kind == llvmcpu.ErrStep {
			st = status.InvalidArgument
		}
		return status.Errorf(st, "llvm-cpu: @%s (workgroups %d..%d): %s", c.e.x.Entries[c.entry].Name, first, first+count-1, llvmcpu.Describe(code))
	}
	return nil
}

// Run runs count workgroups of entry starting at linear index first
// (x fastest) of grid, on bindings: Prepare, Call.Run and Release.
func (e *Executable) Run(entry int, first, count int64, grid [3]int64, push []int64, bindings [][]byte) error {
	c, err := e.Prepare(entry, grid, push, bindings)
	if err != nil {
		return err
	}
	defer c.Release()
	return c.Run(first, count)
}
