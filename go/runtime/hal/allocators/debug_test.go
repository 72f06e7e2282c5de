package allocators

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/hal/drivers/vulkan"
	"github.com/gree-ml/gree/go/status"
)

func newDebug(t *testing.T, dev hal.Device, base hal.Allocator) (*Debug, *bytes.Buffer) {
	d := NewDebug(dev, base)
	var report bytes.Buffer
	d.Report = &report
	return d, &report
}

func TestDebugCleanUseReportsNothing(t *testing.T) {
	base := hal.NewHeapAllocator()
	d, report := newDebug(t, nil, base)
	b := mustAlloc(t, d, devParams, 100)
	if !bytes.Equal(b.HostBytes(), make([]byte, 100)) || b.ByteLength() != 100 {
		t.Fatal("not a zeroed buffer of 100 bytes")
	}
	copy(b.HostBytes(), bytes.Repeat([]byte{1}, 100)) // every byte, no further
	b.Release()
	if err := d.Trim(); err != nil || report.Len() != 0 {
		t.Fatalf("clean use reported: %v %s", err, report)
	}
	if s := base.Statistics(); s.DeviceBytesAllocated != s.DeviceBytesFreed {
		t.Errorf("quarantine not given back by Trim: %+v", s)
	}
}

func TestDebugFindsOverrunAndUnderrun(t *testing.T) {
	d, report := newDebug(t, nil, hal.NewHeapAllocator())
	b := mustAlloc(t, d, devParams, 100)
	raw := b.LeaseRoot().HostBytes() // what a kernel with a bad index reaches
	raw[RedZone+100+3] = 9
	raw[RedZone-1] = 9
	b.Release()
	text := report.String()
	if !strings.Contains(text, "buffer #1 of 100 bytes") || !strings.Contains(text, "written up to 4 bytes past its end (overrun)") ||
		!strings.Contains(text, "written 1 bytes before its start (underrun)") {
		t.Fatalf("report:\n%s", text)
	}
	err := d.Trim()
	if status.CodeOf(err) != status.DataLoss || !strings.Contains(err.Error(), "2 buffer misuse(s)") {
		t.Fatalf("Trim: %v", err)
	}
	if err := d.Trim(); err != nil {
		t.Errorf("a second Trim repeats what the first returned: %v", err)
	}
}

func TestDebugFindsUseAfterFree(t *testing.T) {
	d, report := newDebug(t, nil, hal.NewHeapAllocator())
	d.SetQuarantine(1<<20, 4)
	b := mustAlloc(t, d, devParams, 64)
	stale := b.HostBytes() // a pointer kept past the release
	b.Release()
	if !bytes.Equal(stale, bytes.Repeat([]byte{PoisonByte}, 64)) {
		t.Fatal("released memory is not poisoned")
	}
	stale[10] = 0
	if _, err := b.Map(0, 1, hal.MemoryAccessRead); status.CodeOf(err) != status.FailedPrecondition {
		t.Errorf("API use after release: %v", err)
	}
	// Leaving quarantine (it holds 4 buffers) checks the poison.
	for range 4 {
		mustAlloc(t, d, devParams, 64).Release()
	}
	if !strings.Contains(report.String(), "buffer #1 of 64 bytes") || !strings.Contains(report.String(), "use after free): byte 10 is 0x00") {
		t.Fatalf("report:\n%s", report)
	}
	if d.Violations() != 1 {
		t.Errorf("%d violations, want 1", d.Violations())
	}
}

// On a device whose memory the host cannot see, the red zones and the
// poison go through the device's queue.
func TestDebugOnDeviceMemory(t *testing.T) {
	drv, err := vulkan.Factory.Create()
	if status.CodeOf(err) == status.Unavailable {
		t.Skipf("vulkan unavailable: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer drv.Close()
	dev, err := drv.CreateDeviceByPath("", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	d, report := newDebug(t, dev, dev.Allocator())
	params := hal.BufferParams{Type: hal.MemoryTypeDeviceLocal, Usage: hal.BufferUsageDefault}
	b := mustAlloc(t, d, params, 1000)
	root := b.LeaseRoot()
	// A device write past the end, as a kernel's would be.
	if err := hal.WriteBuffer(dev, root, RedZone+1000, []byte{1, 2}); err != nil {
		t.Fatal(err)
	}
	b.Release()
	if !strings.Contains(report.String(), "written up to 2 bytes past its end (overrun)") {
		t.Fatalf("report on %s memory:\n%s", root.MemoryType(), report)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
}
