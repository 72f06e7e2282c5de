package vulkan

import (
	"fmt"
	"strings"

	"github.com/gree-ml/gree/go/internal/dylib"
	"github.com/gree-ml/gree/go/runtime/hal"
)

// formatDump writes the --dump_devices text of a physical device, one
// "key: value" per line in the layout of IREE's rewritten Vulkan driver
// (REFERENCE §5 "Vulkan dump"):
//
//	name: llvmpipe (LLVM 15.0.6, 256 bits)
//	path: 6d657361-3232-2e33-2e36-000000000000
//	api: 1.3.230
//	type: cpu
//	vendor_id: 0x10005
//	device_id: 0x0000
//	driver: llvmpipe
//	driver_info: Mesa 22.3.6 (LLVM 15.0.6)
//	device_uuid: 6d657361-3232-2e33-2e36-000000000000
//	driver_uuid: 6c6c766d-7069-7065-5555-494400000000
//	features: bufferDeviceAddress=1
//	subgroup: size=8 stages=0x... operations=0x...
//	limits: maxComputeWorkGroupSize=(1024, 1024, 1024) maxComputeWorkGroupInvocations=1024 maxComputeSharedMemorySize=65536
//	queue_families: 1
//	  [0] count=1 flags=graphics|compute|transfer timestampValidBits=64
//	memory_heaps: 1
//	  [0] size=... flags=0x1
//	memory_types: 1
//	  [0] heap=0 flags=device-local|host-visible|host-coherent|host-cached
func formatDump(pd *physicalDevice) string {
	var b strings.Builder
	line := func(format string, args ...any) {
		fmt.Fprintf(&b, format, args...)
		b.WriteByte('\n')
	}
	p := &pd.props
	line("name: %s", dylib.GoString(p.deviceName[:]))
	line("path: %s", pd.info.Path)
	line("api: %s", formatVersion(p.apiVersion))
	line("type: %s", formatDeviceType(p.deviceType))
	line("vendor_id: 0x%04x", p.vendorID)
	line("device_id: 0x%04x", p.deviceID)
	driverName, driverInfo := "unknown", "unknown"
	if pd.hasDriverProps {
		driverName = dylib.GoString(pd.driverProps.driverName[:])
		driverInfo = dylib.GoString(pd.driverProps.driverInfo[:])
	}
	line("driver: %s", driverName)
	line("driver_info: %s", driverInfo)
	line("device_uuid: %s", hal.FormatUUID(pd.id.deviceUUID))
	line("driver_uuid: %s", hal.FormatUUID(pd.id.driverUUID))
	line("features: bufferDeviceAddress=%d", boolInt(pd.bufferDeviceAddress))
	line("subgroup: size=%d stages=0x%x operations=0x%x",
		pd.subgroup.subgroupSize, pd.subgroup.supportedStages, pd.subgroup.supportedOperations)
	l := &p.limits
	line("limits: maxComputeWorkGroupSize=(%d, %d, %d) maxComputeWorkGroupInvocations=%d maxComputeSharedMemorySize=%d",
		l.maxComputeWorkGroupSize[0], l.maxComputeWorkGroupSize[1], l.maxComputeWorkGroupSize[2],
		l.maxComputeWorkGroupInvocations, l.maxComputeSharedMemorySize)
	line("queue_families: %d", len(pd.queueFamilies))
	for i, q := range pd.queueFamilies {
		line("  [%d] count=%d flags=%s timestampValidBits=%d", i, q.queueCount, formatQueueFlags(q.queueFlags), q.timestampValidBits)
	}
	mem := &pd.memory
	line("memory_heaps: %d", mem.memoryHeapCount)
	for i := uint32(0); i < mem.memoryHeapCount && i < maxMemoryHeaps; i++ {
		h := mem.memoryHeaps[i]
		line("  [%d] size=%d flags=0x%x", i, h.size, h.flags)
	}
	line("memory_types: %d", mem.memoryTypeCount)
	for i := uint32(0); i < mem.memoryTypeCount && i < maxMemoryTypes; i++ {
		t := mem.memoryTypes[i]
		line("  [%d] heap=%d flags=%s", i, t.heapIndex, formatMemoryProperties(t.propertyFlags))
	}
	return b.String()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
