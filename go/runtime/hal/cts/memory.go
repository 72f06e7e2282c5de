package cts

import (
	"bytes"
	"testing"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

func testAllocator(t *testing.T, dev hal.Device) {
	a := dev.Allocator()
	params := hal.BufferParams{Type: hal.MemoryTypeDeviceLocal, Usage: hal.BufferUsageDefault}
	compat, actual := a.QueryCompatibility(params, 1024)
	if compat&hal.BufferCompatibilityAllocatable == 0 || compat&hal.BufferCompatibilityQueueDispatch == 0 || compat&hal.BufferCompatibilityQueueTransfer == 0 {
		t.Errorf("device-local default buffers: compatibility %s, want allocatable and usable by queue transfers and dispatches", compat)
	}
	if actual.Type&hal.MemoryTypeDeviceLocal != hal.MemoryTypeDeviceLocal || actual.Usage&hal.BufferUsageDefault != hal.BufferUsageDefault {
		t.Errorf("actual parameters %s / %s lost requested bits", actual.Type, actual.Usage)
	}
	before := a.Statistics()
	for _, n := range []int64{0, 1, 13, 4096, 1 << 20} {
		b, err := a.Allocate(params, n)
		must(t, "allocate", err)
		if b.ByteLength() != n || (b.LeaseRoot() == nil && (b.AllocationSize() != n || b.ByteOffset() != 0)) {
			t.Errorf("allocate(%d): length %d, size %d, offset %d", n, b.ByteLength(), b.AllocationSize(), b.ByteOffset())
		}
		if b.MemoryType()&params.Type != params.Type || b.AllowedUsage()&params.Usage != params.Usage {
			t.Errorf("allocate(%d): %s", n, b)
		}
		if data := read(t, dev, b); !bytes.Equal(data, make([]byte, n)) {
			t.Errorf("allocate(%d) is not zeroed", n)
		}
		must(t, "release", b.Release())
	}
	after := a.Statistics()
	if after.DeviceBytesAllocated+after.HostBytesAllocated <= before.DeviceBytesAllocated+before.HostBytesAllocated {
		t.Errorf("statistics did not count allocations: before %+v after %+v", before, after)
	}
	if !hal.KeepsReleasedMemory(a) && after.DeviceBytesFreed+after.HostBytesFreed <= before.DeviceBytesFreed+before.HostBytesFreed {
		t.Errorf("statistics did not count released buffers: before %+v after %+v", before, after)
	}
	if _, err := a.Allocate(params, -1); err == nil {
		t.Error("allocating -1 bytes succeeded")
	}
	_, err := a.Allocate(params, 1<<50)
	wantCode(t, "allocating 1 PiB", err, status.ResourceExhausted)
	must(t, "trim", a.Trim())

	if compat, _ := a.QueryCompatibility(hal.BufferParams{Type: hal.MemoryTypeHostLocal | hal.MemoryTypeDeviceVisible, Usage: hal.BufferUsageDefault}, 64); compat&hal.BufferCompatibilityImportable != 0 {
		host := []byte("imported host memory, not copied")
		released := false
		b, err := a.Import(hal.BufferParams{Type: hal.MemoryTypeHostLocal | hal.MemoryTypeDeviceVisible, Usage: hal.BufferUsageDefault | hal.BufferUsageMapping}, host, func() { released = true })
		must(t, "import", err)
		m, err := b.Map(0, b.ByteLength(), hal.MemoryAccessWrite)
		must(t, "map imported buffer", err)
		m[0] = 'I'
		if host[0] != 'I' {
			t.Error("an imported buffer is a copy of the host memory")
		}
		must(t, "release imported buffer", b.Release())
		if !released {
			t.Error("the import's release callback was not called when the buffer was released")
		}
	}
}

func testBuffer(t *testing.T, dev hal.Device) {
	b := deviceBuffer(t, dev, 64)
	src := []byte("0123456789abcdef0123456789ABCDEF0123456789abcdef0123456789ABCDEF")
	must(t, "write", hal.WriteBuffer(dev, b, 0, src))
	if got := read(t, dev, b); !bytes.Equal(got, src) {
		t.Fatalf("read back %q, want %q", got, src)
	}
	sub, err := b.Subspan(16, 32)
	must(t, "subspan", err)
	if sub.ByteOffset() != b.ByteOffset()+16 || sub.ByteLength() != 32 || sub.AllocationSize() != b.AllocationSize() {
		t.Errorf("subspan: %s", sub)
	}
	got, err := hal.ReadBuffer(dev, sub, 4, 4)
	must(t, "read subspan", err)
	if string(got) != string(src[20:24]) {
		t.Errorf("subspan read %q, want %q", got, src[20:24])
	}
	_, err = b.Subspan(60, 8)
	wantCode(t, "subspan past the end", err, status.OutOfRange)
	_, err = hal.ReadBuffer(dev, sub, 30, 4)
	wantCode(t, "reading past a subspan's end", err, status.OutOfRange)
	// The subspan keeps the allocation alive after its parent's release.
	must(t, "release parent", b.Release())
	if sub.Released() {
		t.Fatal("a subspan was released with its parent")
	}
	if got := read(t, dev, sub); string(got) != string(src[16:48]) {
		t.Errorf("subspan after its parent's release read %q", got)
	}
	must(t, "release subspan", sub.Release())
	wantCode(t, "release twice", sub.Release(), status.FailedPrecondition)
	_, err = hal.ReadBuffer(dev, sub, 0, 4)
	wantCode(t, "read after release", err, status.FailedPrecondition)
	_, err = sub.Map(0, 4, hal.MemoryAccessRead)
	wantCode(t, "map after release", err, status.FailedPrecondition)
	wantCode(t, "retain after release", sub.Retain(), status.FailedPrecondition)

	// Mapping follows the buffer's memory type and usage.
	c := deviceBuffer(t, dev, 16)
	m, err := c.Map(0, 16, hal.MemoryAccessRead)
	switch {
	case c.MemoryType()&hal.MemoryTypeHostVisible == 0 || c.AllowedUsage()&(hal.BufferUsageMappingScoped|hal.BufferUsageMappingPersistent) == 0:
		wantCode(t, "mapping a buffer the host cannot map", err, status.PermissionDenied)
	case err != nil || len(m) != 16:
		t.Errorf("mapping a host-visible, mappable buffer: %d bytes, %v", len(m), err)
	}
}

func testBufferLifetime(t *testing.T, dev hal.Device) {
	b := deviceBuffer(t, dev, 32)
	must(t, "retain", b.Retain())
	must(t, "release one of two", b.Release())
	if b.Released() {
		t.Fatal("released with a reference left")
	}
	must(t, "release the last", b.Release())
	if !b.Released() {
		t.Fatal("not released after the last reference")
	}
	// A command buffer that uses a released buffer is refused.
	cb, err := hal.NewCommandBuffer(hal.CommandBufferOneShot, hal.CommandCategoryAny, 0)
	must(t, "command buffer", err)
	defer cb.Release()
	must(t, "begin", cb.Begin())
	wantCode(t, "recording a fill of a released buffer", cb.Fill(hal.WholeBuffer(b), []byte{1}), status.FailedPrecondition)
}
