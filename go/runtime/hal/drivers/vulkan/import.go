package vulkan

import (
	"fmt"
	"unsafe"
	"weak"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

// hostImport is host memory to import: the aligned range around it.
type hostImport struct {
	start    uintptr // aligned down to minImportedHostPointerAlignment
	size     uint64  // aligned up
	typeBits uint32  // the memory types that can import it
}

// Import wraps host memory without copying it, through
// VK_EXT_external_memory_host: the pages around data are imported (the
// device requires page-aligned ranges) and the buffer starts at data's
// offset into them. data is pinned until the memory is freed.
func (a *allocator) Import(params hal.BufferParams, data []byte, release func()) (*hal.Buffer, error) {
	d := a.d
	if !d.features.externalMemoryHost {
		return nil, status.Errorf(status.Unimplemented, "%s cannot import host memory: it lacks VK_EXT_external_memory_host", d.describe())
	}
	params.Type |= hal.MemoryTypeHostVisible
	_, params = a.QueryCompatibility(params, int64(len(data)))
	if err := d.ref(); err != nil {
		return nil, err
	}
	deviceLocal := params.Type&hal.MemoryTypeDeviceLocal == hal.MemoryTypeDeviceLocal
	s := &storage{a: a, size: int64(len(data)), device: deviceLocal, release: release}
	if len(data) == 0 {
		// Nothing to import: a tiny buffer of the device's own.
		if err := a.create(s, 0, false, deviceLocal, nil); err != nil {
			d.unref()
			return nil, err
		}
		s.host = data
	} else {
		align := uintptr(d.limits.minImportedHostPointerAlignment)
		p := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
		imp := &hostImport{start: p &^ (align - 1)}
		imp.size = uint64((p+uintptr(len(data))+align-1)&^(align-1) - imp.start)
		s.pin.Pin(unsafe.SliceData(data))
		props := &memoryHostPointerProperties{sType: sTypeMemoryHostPointerProperties}
		if err := check(d.vk.GetMemoryHostPointerPropertiesEXT(d.handle, externalMemoryHandleHostPointer, imp.start, props), "vkGetMemoryHostPointerPropertiesEXT"); err != nil {
			s.pin.Unpin()
			d.unref()
			return nil, fmt.Errorf("importing %d bytes of host memory on %s: %w", len(data), d.describe(), err)
		}
		imp.typeBits = props.memoryTypeBits
		if err := a.create(s, uint64(len(data)), true, false, imp); err != nil {
			s.pin.Unpin()
			d.unref()
			return nil, fmt.Errorf("importing host memory: %w", err)
		}
		s.base = int64(p - imp.start)
		s.host = data
	}
	a.track(s, false)
	a.record(deviceLocal, s.size)
	b := hal.NewBuffer(s, s.size, params, d)
	s.root = weak.Make(b)
	return b, nil
}
