package hal

import (
	"fmt"
	"strings"
	"time"

	"github.com/gree-ml/gree/go/runtime/hal/timeline"
	"github.com/gree-ml/gree/go/status"
)

// Device is a created HAL device (IREE's iree_hal_device_t): an allocator,
// an executable loader, and a queue that executes command buffers and host
// calls in the order their semaphores impose. Every queue operation waits
// for the wait list, runs, then signals the signal list; a failure of the
// work (or of a waited semaphore) fails the signal list instead, and the
// method itself returns only errors in the request. The transfer and
// allocation operations IREE's device has (queue fill, copy, update, read,
// write, alloca, dealloca, barrier) are built from these two by the
// package's Queue* functions, once for every driver.
type Device interface {
	// ID is the device identifier: the driver name, e.g. "local-task".
	ID() string
	// Info is the DeviceInfo the device was created from.
	Info() DeviceInfo
	// Close releases the device: queued work still waiting for a
	// semaphore fails with CANCELLED.
	Close() error

	// Allocator returns the device's allocator.
	Allocator() Allocator
	// Formats lists the executable formats the device loads.
	Formats() []string
	// PrepareExecutable loads (and verifies) an executable.
	PrepareExecutable(format string, data []byte) (Executable, error)
	// CreateSemaphore returns a timeline semaphore at initial.
	CreateSemaphore(initial uint64) (Semaphore, error)
	// QueueExecute executes cb (nil: nothing, a barrier) with bindings as
	// its binding table.
	QueueExecute(wait, signal SemaphoreList, cb *CommandBuffer, bindings []BufferRef) error
	// QueueHostCall runs fn on the host in queue order.
	QueueHostCall(wait, signal SemaphoreList, fn func() error) error
}

// DeviceError names the device in err.
func DeviceError(d Device, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("device %s: %w", d.ID(), err)
}

// queueOneShot records a one-shot command buffer with rec and executes it.
func queueOneShot(d Device, wait, signal SemaphoreList, rec func(cb *CommandBuffer) error) error {
	cb, err := NewCommandBuffer(CommandBufferOneShot|CommandBufferAllowInlineExecution, CommandCategoryAny, 0)
	if err != nil {
		return err
	}
	defer cb.Release()
	if err := cb.Begin(); err != nil {
		return err
	}
	if err := rec(cb); err != nil {
		return err
	}
	if err := cb.End(); err != nil {
		return err
	}
	return d.QueueExecute(wait, signal, cb, nil)
}

// QueueFill fills target with pattern in queue order.
func QueueFill(d Device, wait, signal SemaphoreList, target BufferRef, pattern []byte) error {
	return queueOneShot(d, wait, signal, func(cb *CommandBuffer) error { return cb.Fill(target, pattern) })
}

// QueueUpdate copies data (copied now) into target in queue order.
func QueueUpdate(d Device, wait, signal SemaphoreList, data []byte, target BufferRef) error {
	return queueOneShot(d, wait, signal, func(cb *CommandBuffer) error { return cb.Update(data, target) })
}

// QueueCopy copies source into target in queue order.
func QueueCopy(d Device, wait, signal SemaphoreList, source, target BufferRef) error {
	return queueOneShot(d, wait, signal, func(cb *CommandBuffer) error { return cb.Copy(source, target) })
}

// QueueBarrier signals the signal list once the wait list is reached.
func QueueBarrier(d Device, wait, signal SemaphoreList) error {
	return d.QueueExecute(wait, signal, nil, nil)
}

// QueueAllocator is implemented by devices with stream-ordered memory
// pools; other devices allocate at once and order only the signal.
type QueueAllocator interface {
	QueueAlloca(wait, signal SemaphoreList, params BufferParams, size int64) (*Buffer, error)
	QueueDealloca(wait, signal SemaphoreList, b *Buffer) error
}

// QueueAlloca returns a buffer that may be used once the signal list is
// reached (the caller owns its reference).
func QueueAlloca(d Device, wait, signal SemaphoreList, params BufferParams, size int64) (*Buffer, error) {
	if sp := traceQueue(d, timeline.CatAlloc, "queue alloca"); sp != nil {
		defer sp.End(timeline.Int("bytes", size))
	}
	if qa, ok := d.(QueueAllocator); ok {
		return qa.QueueAlloca(wait, signal, params, size)
	}
	b, err := d.Allocator().Allocate(params, size)
	if err != nil {
		return nil, err
	}
	if err := QueueBarrier(d, wait, signal); err != nil {
		b.Release()
		return nil, err
	}
	return b, nil
}

// QueueDealloca frees b's memory once the wait list is reached, whatever
// references to it remain; its later uses fail.
func QueueDealloca(d Device, wait, signal SemaphoreList, b *Buffer) error {
	if err := b.Check(); err != nil {
		return err
	}
	if sp := traceQueue(d, timeline.CatAlloc, "queue dealloca"); sp != nil {
		defer sp.End(timeline.Int("bytes", b.ByteLength()))
	}
	if qa, ok := d.(QueueAllocator); ok {
		return qa.QueueDealloca(wait, signal, b)
	}
	return d.QueueHostCall(wait, signal, b.Deallocate)
}

// File is what queue reads and writes move data from and to (IREE's
// iree_hal_file_t): host memory or an operating-system file.
type File interface {
	ReadAt(p []byte, off int64) (int, error)
	WriteAt(p []byte, off int64) (int, error)
	Size() int64
}

// QueueRead reads target's bytes from file at offset in queue order. A
// target the host cannot map is filled through a host staging buffer.
func QueueRead(d Device, wait, signal SemaphoreList, file File, offset int64, target BufferRef) error {
	b, off, n, err := target.Resolve(nil)
	if err != nil {
		return err
	}
	if offset < 0 || n > file.Size()-offset {
		return status.Errorf(status.OutOfRange, "reading %d bytes at offset %d of a file of %d bytes", n, offset, file.Size())
	}
	if m, err := b.Map(off, n, MemoryAccessWrite); err == nil {
		return d.QueueHostCall(wait, signal, func() error { return readFull(file, m, offset) })
	}
	staging, err := d.Allocator().Allocate(BufferParams{Type: MemoryTypeHostLocal | MemoryTypeDeviceVisible, Usage: BufferUsageTransfer | BufferUsageMapping}, n)
	if err != nil {
		return err
	}
	defer staging.Release()
	sem, err := d.CreateSemaphore(0)
	if err != nil {
		return err
	}
	sm, err := staging.Map(0, n, MemoryAccessWrite)
	if err != nil {
		return err
	}
	if err := d.QueueHostCall(wait, SemaphoreList{{sem, 1}}, func() error { return readFull(file, sm, offset) }); err != nil {
		return err
	}
	return QueueCopy(d, SemaphoreList{{sem, 1}}, signal, WholeBuffer(staging), BufferRef{Buffer: b, Offset: off, Length: n})
}

// QueueWrite writes source's bytes to file at offset in queue order.
func QueueWrite(d Device, wait, signal SemaphoreList, source BufferRef, file File, offset int64) error {
	b, off, n, err := source.Resolve(nil)
	if err != nil {
		return err
	}
	if offset < 0 {
		return status.Errorf(status.OutOfRange, "writing at negative file offset %d", offset)
	}
	write := func(m []byte) error {
		if _, err := file.WriteAt(m, offset); err != nil {
			return status.Errorf(fileErrorCode(err), "writing %d bytes to a file at offset %d: %v", n, offset, err)
		}
		return nil
	}
	m, err := b.Map(off, n, MemoryAccessRead)
	if err == nil {
		return d.QueueHostCall(wait, signal, func() error { return write(m) })
	}
	if status.CodeOf(err) != status.PermissionDenied {
		return err
	}
	// Device memory the host cannot map: copy it to host staging memory
	// on the queue, then write the staged bytes.
	staging, err := d.Allocator().Allocate(BufferParams{Type: MemoryTypeHostLocal | MemoryTypeDeviceVisible, Usage: BufferUsageTransfer | BufferUsageMapping}, n)
	if err != nil {
		return err
	}
	defer staging.Release()
	sm, err := staging.Map(0, n, MemoryAccessRead)
	if err != nil {
		return err
	}
	sem, err := d.CreateSemaphore(0)
	if err != nil {
		return err
	}
	if err := QueueCopy(d, wait, SemaphoreList{{sem, 1}}, BufferRef{Buffer: b, Offset: off, Length: n}, WholeBuffer(staging)); err != nil {
		return err
	}
	// The host call holds the staging buffer until it has written it.
	staging.Retain()
	if err := d.QueueHostCall(SemaphoreList{{sem, 1}}, signal, func() error {
		defer staging.Release()
		return write(sm)
	}); err != nil {
		staging.Release()
		return err
	}
	return nil
}

func readFull(f File, p []byte, off int64) error {
	for len(p) > 0 {
		n, err := f.ReadAt(p, off)
		p, off = p[n:], off+int64(n)
		if len(p) > 0 && err != nil {
			return status.Errorf(fileErrorCode(err), "reading a file at offset %d: %v", off, err)
		}
	}
	return nil
}

// fileErrorCode keeps the code of a file's status error (DATA_LOSS for an
// I/O error without one).
func fileErrorCode(err error) status.Code {
	if c := status.CodeOf(err); c != status.Unknown {
		return c
	}
	return status.DataLoss
}

// MemoryFile is a File over host memory (IREE's iree_io_file_handle wrap
// of a host allocation).
type MemoryFile struct {
	Data     []byte
	Readable bool
	Writable bool
}

// ReadAt implements File.
func (f *MemoryFile) ReadAt(p []byte, off int64) (int, error) {
	if !f.Readable {
		return 0, status.New(status.PermissionDenied, "the file is not readable")
	}
	if off < 0 || off > int64(len(f.Data)) {
		return 0, status.Errorf(status.OutOfRange, "offset %d outside a %d-byte file", off, len(f.Data))
	}
	n := copy(p, f.Data[off:])
	if n < len(p) {
		return n, status.New(status.OutOfRange, "read past the end of the file")
	}
	return n, nil
}

// WriteAt implements File.
func (f *MemoryFile) WriteAt(p []byte, off int64) (int, error) {
	if !f.Writable {
		return 0, status.New(status.PermissionDenied, "the file is not writable")
	}
	if off < 0 || off+int64(len(p)) > int64(len(f.Data)) {
		return 0, status.Errorf(status.OutOfRange, "writing %d bytes at offset %d past the end of a %d-byte file", len(p), off, len(f.Data))
	}
	return copy(f.Data[off:], p), nil
}

// Size implements File.
func (f *MemoryFile) Size() int64 { return int64(len(f.Data)) }

// ReadBuffer returns a copy of [offset, offset+length) of b, read through
// a mapping when the host can map it, else copied on the device's queue
// into a host staging buffer (waiting for the copy).
func ReadBuffer(d Device, b *Buffer, offset, length int64) ([]byte, error) {
	if err := b.Check(); err != nil {
		return nil, err
	}
	if err := b.CheckRange(offset, length); err != nil {
		return nil, err
	}
	if err := CheckHostAllocation(length, "a host copy of a "+b.describe()); err != nil {
		return nil, err
	}
	out := make([]byte, length)
	if err := ReadBufferInto(d, b, offset, out); err != nil {
		return nil, err
	}
	return out, nil
}

// HostMemoryDevice is implemented by devices whose commands run on the
// host (the local devices): they use any host buffer.
type HostMemoryDevice interface {
	UsesHostMemory() bool
}

// Usable reports whether d's commands can use b: b is d's memory (its
// placement), or host memory and d runs on the host. Other buffers are
// copied into one of d's first (a Vulkan device uses only its own).
func Usable(d Device, b *Buffer) bool {
	if p := b.Placement(); p != nil {
		pd, ok := p.(Device)
		return ok && pd == d
	}
	h, ok := d.(HostMemoryDevice)
	return ok && h.UsesHostMemory()
}

// placementDevice returns d, or when nil the device whose memory b is.
func placementDevice(d Device, b *Buffer) Device {
	if d == nil {
		d, _ = b.Placement().(Device)
	}
	return d
}

// ReadBufferInto is ReadBuffer into dst. d may be nil: the buffer's own
// device (its placement) is used then.
func ReadBufferInto(d Device, b *Buffer, offset int64, dst []byte) error {
	if err := b.Check(); err != nil {
		return err
	}
	d = placementDevice(d, b)
	if sp := traceTransfer(d, "transfer device->host"); sp != nil {
		defer sp.End(timeline.Int("bytes", int64(len(dst))))
	}
	if m, err := b.Map(offset, int64(len(dst)), MemoryAccessRead); err == nil {
		copy(dst, m)
		return nil
	} else if status.CodeOf(err) != status.PermissionDenied || d == nil {
		return err
	}
	return transfer(d, func(staging *Buffer) (BufferRef, BufferRef) {
		return BufferRef{Buffer: b, Offset: offset, Length: int64(len(dst))}, WholeBuffer(staging)
	}, dst, false)
}

// WriteBuffer copies src into b at offset: through a mapping when the host
// can map b, else through a host staging buffer and a queue copy (waiting
// for it). d may be nil: the buffer's own device is used then.
func WriteBuffer(d Device, b *Buffer, offset int64, src []byte) error {
	if err := b.Check(); err != nil {
		return err
	}
	d = placementDevice(d, b)
	if sp := traceTransfer(d, "transfer host->device"); sp != nil {
		defer sp.End(timeline.Int("bytes", int64(len(src))))
	}
	if m, err := b.Map(offset, int64(len(src)), MemoryAccessWrite); err == nil {
		copy(m, src)
		return nil
	} else if status.CodeOf(err) != status.PermissionDenied || d == nil {
		return err
	}
	return transfer(d, func(staging *Buffer) (BufferRef, BufferRef) {
		return WholeBuffer(staging), BufferRef{Buffer: b, Offset: offset, Length: int64(len(src))}
	}, src, true)
}

// transfer copies between host memory data and a device buffer through a
// staging buffer: up (host to device) or down.
func transfer(d Device, refs func(staging *Buffer) (src, dst BufferRef), data []byte, up bool) error {
	staging, err := d.Allocator().Allocate(BufferParams{Type: MemoryTypeHostLocal | MemoryTypeDeviceVisible, Usage: BufferUsageTransfer | BufferUsageMapping}, int64(len(data)))
	if err != nil {
		return err
	}
	defer staging.Release()
	m, err := staging.Map(0, int64(len(data)), MemoryAccessRead|MemoryAccessWrite)
	if err != nil {
		return err
	}
	if up {
		copy(m, data)
	}
	sem, err := d.CreateSemaphore(0)
	if err != nil {
		return err
	}
	src, dst := refs(staging)
	if err := QueueCopy(d, nil, SemaphoreList{{sem, 1}}, src, dst); err != nil {
		return err
	}
	if err := sem.Wait(1, time.Time{}); err != nil {
		return err
	}
	if !up {
		copy(data, m)
	}
	return nil
}

// Profiler is implemented by devices that record profiles.
type Profiler interface {
	BeginProfiling(ProfilingOptions) error
	FlushProfiling() error
	EndProfiling() error
}

// ProfilingMode is what a device profile records.
type ProfilingMode uint32

// Profiling modes, as IREE names them on the command line and in Python.
const (
	ProfileQueueOperations    ProfilingMode = 1 << 0
	ProfileDispatchCounters   ProfilingMode = 1 << 1
	ProfileExecutableCounters ProfilingMode = 1 << 2
)

// ProfilingOptions selects what a profile records and where it goes.
type ProfilingOptions struct {
	Mode     ProfilingMode
	FilePath string
}

// ParseProfilingMode parses "queue", "dispatch" or "executable" (several
// joined by '|' or ','); "" is queue operations.
func ParseProfilingMode(s string) (ProfilingMode, error) {
	if s == "" {
		return ProfileQueueOperations, nil
	}
	var m ProfilingMode
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == '|' || r == ',' }) {
		switch strings.TrimSpace(part) {
		case "queue":
			m |= ProfileQueueOperations
		case "dispatch":
			m |= ProfileDispatchCounters
		case "executable", "executables":
			m |= ProfileExecutableCounters
		default:
			return 0, status.Errorf(status.InvalidArgument, "unrecognized profiling mode '%s': gree's devices record queue, dispatch or executable profiles (other modes need a profile sink, which gree does not have)", part)
		}
	}
	return m, nil
}
