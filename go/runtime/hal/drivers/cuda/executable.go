package cuda

import (
	"fmt"
	"strings"
	"sync"
	"unsafe"

	"github.com/gree-ml/gree/go/runtime/hal"
	cudaschema "github.com/gree-ml/gree/go/schemas/cuda"
	"github.com/gree-ml/gree/go/status"
)

// executable is a prepared cuda-nvptx-fb executable: the CUmodule of the
// variant the device runs, loaded by the driver's JIT, and a CUfunction
// per entry point. The module is unloaded when the executable is closed
// and no submission in flight uses it, or when the device closes.
type executable struct {
	d       *device
	arch    string
	module  uintptr
	entries []entryPoint

	mu       sync.Mutex
	uses     int    // submissions in flight
	closed   string // why it may no longer be used ("" while open)
	unloaded bool
}

// entryPoint is one entry of the loaded variant.
type entryPoint struct {
	cudaschema.Entry
	fn uintptr // CUfunction
}

var _ hal.Executable = (*executable)(nil)

// jitLogBytes is the size of each JIT log buffer.
const jitLogBytes = 16 << 10

// PrepareExecutable decodes a cuda-nvptx-fb executable, picks the variant
// of the highest architecture the device runs, loads its PTX with
// cuModuleLoadDataEx (a JIT failure's log is in the error) and checks
// every entry point's block size and shared memory against the device.
func (v *device) PrepareExecutable(format string, data []byte) (hal.Executable, error) {
	if err := v.q.open(); err != nil {
		return nil, err
	}
	if format != cudaschema.Format {
		return nil, status.Errorf(status.Unimplemented, "the cuda device cannot run %q executables (it runs %q); compile with --iree-hal-target-backends=cuda", format, cudaschema.Format)
	}
	x, err := cudaschema.Decode(data)
	if err != nil {
		return nil, err
	}
	best := x.Best(v.limits.cc)
	if best < 0 {
		archs := make([]string, len(x.Variants))
		for i, vr := range x.Variants {
			archs[i] = vr.Arch
		}
		return nil, status.Errorf(status.FailedPrecondition, "the executable was built for %s; device %s is %s and runs none of them: compile for --iree-cuda-target=%s",
			strings.Join(archs, ", "), v.describe(), v.limits.arch(), v.limits.arch())
	}
	variant := &x.Variants[best]
	if err := v.ref(); err != nil {
		return nil, err
	}
	e := &executable{d: v, arch: variant.Arch, entries: make([]entryPoint, len(variant.Entries))}
	err = v.w.do(func() error { return e.load(variant) })
	if err != nil {
		v.unref()
		return nil, err
	}
	v.objMu.Lock()
	if v.exes == nil {
		v.objMu.Unlock()
		e.unload()
		return nil, v.closedError()
	}
	v.exes[e] = true
	v.objMu.Unlock()
	return e, nil
}

// load loads the variant's module and resolves and checks its entry
// points (on the worker).
func (e *executable) load(variant *cudaschema.Variant) error {
	v, cu := e.d, e.d.cu
	image := make([]byte, len(variant.PTX)+1) // NUL-terminated
	copy(image, variant.PTX)
	infoLog, errorLog := make([]byte, jitLogBytes), make([]byte, jitLogBytes)
	options := []int32{jitInfoLogBuffer, jitInfoLogBufferBytes, jitErrorLogBuffer, jitErrorLogBufferBytes}
	values := []uintptr{uintptr(unsafe.Pointer(&infoLog[0])), jitLogBytes, uintptr(unsafe.Pointer(&errorLog[0])), jitLogBytes}
	var pin pinner
	defer pin.unpin()
	pin.pin(&image[0], &infoLog[0], &errorLog[0], &options[0], &values[0])
	r := cu.ModuleLoadDataEx(&e.module, unsafe.Pointer(&image[0]), uint32(len(options)), &options[0], &values[0])
	if r != cudaSuccess {
		msg := fmt.Sprintf("loading the %s PTX of an executable on %s: cuModuleLoadDataEx failed: %s (%d)", variant.Arch, v.describe(), cu.errorName(r), r)
		if log := strings.TrimSpace(cString(errorLog)); log != "" {
			msg += "; JIT error log:\n" + log
		}
		if log := strings.TrimSpace(cString(infoLog)); log != "" {
			msg += "\nJIT info log:\n" + log
		}
		return status.New(resultCode(r), msg)
	}
	for i, ent := range variant.Entries {
		if err := e.resolve(i, ent); err != nil {
			cu.ModuleUnload(e.module)
			return err
		}
	}
	return nil
}

// resolve finds entry i's function and checks it against the device.
func (e *executable) resolve(i int, ent cudaschema.Entry) error {
	v, cu := e.d, e.d.cu
	name := append([]byte(ent.Symbol), 0)
	var fn uintptr
	if err := cu.check(cu.ModuleGetFunction(&fn, e.module, &name[0]), "cuModuleGetFunction("+ent.Symbol+")"); err != nil {
		return fmt.Errorf("entry point %s: %w", ent.Name, err)
	}
	var maxThreads, shared int32
	if err := cu.check(cu.FuncGetAttribute(&maxThreads, funcAttrMaxThreadsPerBlock, fn), "cuFuncGetAttribute"); err != nil {
		return err
	}
	if err := cu.check(cu.FuncGetAttribute(&shared, funcAttrSharedSizeBytes, fn), "cuFuncGetAttribute"); err != nil {
		return err
	}
	b := ent.BlockSize
	threads := b[0] * b[1] * b[2]
	lim := v.limits
	for d := range 3 {
		if b[d] > lim.maxBlock[d] {
			return status.Errorf(status.FailedPrecondition, "entry point %s: block size %v exceeds %s's maximum block dimensions %v", ent.Name, b, v.describe(), lim.maxBlock)
		}
	}
	if threads > lim.maxThreadsPerBlk || threads > int(maxThreads) {
		return status.Errorf(status.FailedPrecondition, "entry point %s: %d threads per block; %s runs at most %d threads per block of it (device limit %d)", ent.Name, threads, v.describe(), maxThreads, lim.maxThreadsPerBlk)
	}
	if n := max(ent.SharedBytes, int(shared)); n > lim.maxShared {
		return status.Errorf(status.FailedPrecondition, "entry point %s: %d bytes of shared memory; %s has %d per block", ent.Name, n, v.describe(), lim.maxShared)
	}
	e.entries[i] = entryPoint{Entry: ent, fn: fn}
	return nil
}

// NumEntries returns the number of entry points.
func (e *executable) NumEntries() int { return len(e.entries) }

// EntryName returns entry point i's name.
func (e *executable) EntryName(i int) string {
	if i < 0 || i >= len(e.entries) {
		return fmt.Sprintf("entry point %d", i)
	}
	return e.entries[i].Name
}

// acquire counts a submission using the executable; it fails once the
// executable is closed.
func (e *executable) acquire() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed != "" {
		return status.Errorf(status.FailedPrecondition, "a dispatch of a cuda executable (%s) used after it was %s", e.arch, e.closed)
	}
	e.uses++
	return nil
}

// releaseUse ends a submission's use; the last use of a closed executable
// unloads its module.
func (e *executable) releaseUse() {
	e.mu.Lock()
	e.uses--
	last := e.uses == 0 && e.closed != "" && !e.unloaded
	e.unloaded = e.unloaded || last
	e.mu.Unlock()
	if last {
		e.unload()
	}
}

// Close releases the executable: its module is unloaded once no
// submission uses it. Later calls do nothing.
func (e *executable) Close() error {
	e.mu.Lock()
	if e.closed != "" {
		e.mu.Unlock()
		return nil
	}
	e.closed = "closed"
	last := e.uses == 0 && !e.unloaded
	e.unloaded = e.unloaded || last
	e.mu.Unlock()
	d := e.d
	d.objMu.Lock()
	if d.exes != nil {
		delete(d.exes, e)
	}
	d.objMu.Unlock()
	if last {
		e.unload()
	}
	return nil
}

// deviceClosed unloads the module when the device closes (its queue has
// finished every submission).
func (e *executable) deviceClosed() {
	e.mu.Lock()
	if e.closed == "" {
		e.closed = "closed with its device"
	}
	unload := !e.unloaded
	e.unloaded = true
	e.mu.Unlock()
	if unload {
		e.unload()
	}
}

// unload unloads the module and lets go of the context.
func (e *executable) unload() {
	d := e.d
	d.w.do(func() error { return d.cu.check(d.cu.ModuleUnload(e.module), "cuModuleUnload") })
	d.unref()
}
