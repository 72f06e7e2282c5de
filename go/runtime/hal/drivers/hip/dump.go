package hip

import "github.com/gree-ml/gree/go/runtime/hal/gpuinfo"

// hipDeviceAttribute_t values the dump reads. Numbers from
// hip/hip_runtime_api.h's enum hipDeviceAttribute_t (ROCm 6.2; the same in
// ROCm 5.5, where Unused1/Unused2 were still Name/Uuid, and in ROCm 7).
// Each is the hipDeviceProp_t field IREE's dump prints (clr's
// hipDeviceGetAttribute reads the same field).
const (
	attrClockRate               = 5  // hipDeviceAttributeClockRate (kHz): clockRate
	attrIntegrated              = 16 // hipDeviceAttributeIntegrated: integrated
	attrL2CacheSize             = 19 // hipDeviceAttributeL2CacheSize: l2CacheSize
	attrComputeCapabilityMajor  = 23 // hipDeviceAttributeComputeCapabilityMajor: major
	attrManagedMemory           = 24 // hipDeviceAttributeManagedMemory: managedMemory
	attrMaxBlockDimX            = 26 // hipDeviceAttributeMaxBlockDimX: maxThreadsDim[0]
	attrMaxBlockDimY            = 27 // hipDeviceAttributeMaxBlockDimY: maxThreadsDim[1]
	attrMaxBlockDimZ            = 28 // hipDeviceAttributeMaxBlockDimZ: maxThreadsDim[2]
	attrMaxThreadsPerBlock      = 56 // hipDeviceAttributeMaxThreadsPerBlock: maxThreadsPerBlock
	attrMemoryClockRate         = 60 // hipDeviceAttributeMemoryClockRate (kHz): memoryClockRate
	attrComputeCapabilityMinor  = 61 // hipDeviceAttributeComputeCapabilityMinor: minor
	attrMultiprocessorCount     = 63 // hipDeviceAttributeMultiprocessorCount: multiProcessorCount
	attrMaxRegistersPerBlock    = 71 // hipDeviceAttributeMaxRegistersPerBlock: regsPerBlock
	attrMaxSharedMemoryPerBlock = 74 // hipDeviceAttributeMaxSharedMemoryPerBlock: sharedMemPerBlock
	attrTotalConstantMemory     = 83 // hipDeviceAttributeTotalConstantMemory: totalConstMem (clr caps it at INT32_MAX)
	attrWarpSize                = 87 // hipDeviceAttributeWarpSize: warpSize
)

// dumpSource is what the dump reads from one device: the driver reads
// libamdhip64, the tests a table.
type dumpSource interface {
	// attribute is hipDeviceGetAttribute for the device.
	attribute(attr int32) (int32, error)
	// totalMemory is hipDeviceTotalMem (hipDeviceProp_t.totalGlobalMem).
	totalMemory() (uint64, error)
	// archName is hipDeviceProp_t.gcnArchName, e.g. "gfx1100".
	archName() (string, error)
}

// formatDump writes IREE's HIP --dump_devices body (hip_driver.c
// iree_hal_hip_driver_dump_device_info; REFERENCE §5 "HIP dump"): sizes
// in KB and MB are truncated, clock rates are kHz / 1000 printed with
// IREE's "mHz" unit.
func formatDump(libraryPath string, src dumpSource) (string, error) {
	arch, err := src.archName()
	if err != nil {
		return "", err
	}
	total, err := src.totalMemory()
	if err != nil {
		return "", err
	}
	a := gpuinfo.NewAttrs(src.attribute)
	var d gpuinfo.Dump
	d.Item("amdhip64_dylib_path: %s", libraryPath)
	d.Item("gpu-compute-capability: %d.%d", a.Get(attrComputeCapabilityMajor), a.Get(attrComputeCapabilityMinor))
	d.Item("gpu-arch-name: %s", arch)

	d.Group()
	d.Item("launch-max-block-dims: (%d, %d, %d)", a.Get(attrMaxBlockDimX), a.Get(attrMaxBlockDimY), a.Get(attrMaxBlockDimZ))

	d.Group()
	d.Item("block-max-thread-count: %d", a.Get(attrMaxThreadsPerBlock))
	d.Item("block-max-32-bit-register-count: %d", a.Get(attrMaxRegistersPerBlock))
	d.Item("block-max-shared-memory: %d KB", a.Get(attrMaxSharedMemoryPerBlock)/1024)

	d.Group()
	d.Item("memory-is-integrated-memory: %d", a.Get(attrIntegrated))
	d.Item("memory-supports-managed-memory: %d", a.Get(attrManagedMemory))
	d.Item("memory-total-const-memory-size: %d MB", a.Get(attrTotalConstantMemory)/1024/1024)
	d.Item("memory-total-global-memory-size: %d MB", total/1024/1024)
	d.Item("memory-l2-cache-size: %d bytes", a.Get(attrL2CacheSize))

	d.Group()
	d.Item("gpu-compute-unit-count: %d", a.Get(attrMultiprocessorCount))
	d.Item("gpu-compute-max-clock-rate: %d mHz", a.Get(attrClockRate)/1000)
	d.Item("gpu-memory-max-clock-rate: %d mHz", a.Get(attrMemoryClockRate)/1000)
	d.Item("gpu-warp-size: %d", a.Get(attrWarpSize))

	if err := a.Err(); err != nil {
		return "", err
	}
	return d.Text(), nil
}
