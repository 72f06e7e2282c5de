package cuda

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/hal/allocators"
	"github.com/gree-ml/gree/go/runtime/hal/cts"
)

// TestFakeLibcudaConformanceWrappedAllocators runs the hal suite with the
// allocator specs on memory the host cannot map: reused memory is zeroed
// and red zones and poison are written and checked through the queue.
func TestFakeLibcudaConformanceWrappedAllocators(t *testing.T) {
	spec, _ := fakeLibcuda(t)
	f := hal.Factory{Name: Name, FullName: "cuda driver on the fake libcuda", Create: func() (hal.Driver, error) { return create(spec) }}
	for _, specs := range [][]string{{"caching"}, {"debug"}, {"caching", "debug"}} {
		t.Run(strings.Join(specs, "+"), func(t *testing.T) { cts.Run(t, allocators.WithSpecs(f, specs...)) })
	}
}

// TestFakeLibcudaDebugAllocatorFindsOverrun: on device-only memory the
// debug allocator's red zones are read back through the queue.
func TestFakeLibcudaDebugAllocatorFindsOverrun(t *testing.T) {
	spec, _ := fakeLibcuda(t)
	d := createFake(t, spec)
	defer d.Close()
	dev, err := d.CreateDeviceByPath("", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	dbg := allocators.NewDebug(dev, dev.Allocator())
	dbg.Report = nil
	b, err := dbg.Allocate(hal.BufferParams{Type: hal.MemoryTypeDeviceLocal, Usage: hal.BufferUsageDefault}, 100)
	if err != nil {
		t.Fatal(err)
	}
	root := b.LeaseRoot()
	if root.HostBytes() != nil {
		t.Fatal("the fake's device-local memory is host-visible here; the test needs device-only memory")
	}
	if err := hal.WriteBuffer(dev, root, allocators.RedZone+100, []byte{1}); err != nil {
		t.Fatal(err)
	}
	b.Release()
	if err := dbg.Trim(); err == nil || !strings.Contains(err.Error(), "written up to 1 bytes past its end (overrun)") {
		t.Fatalf("Trim: %v", err)
	}
}
