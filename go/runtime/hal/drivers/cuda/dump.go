package cuda

import "github.com/gree-ml/gree/go/runtime/hal/gpuinfo"

// CUdevice_attribute values the dump reads. Numbers from cuda.h's
// enum CUdevice_attribute_enum (CUDA 12.6; the enum only ever grows, so
// older and newer drivers agree on them). MEM_SYNC_DOMAIN_COUNT needs a
// CUDA 12.0 driver, as in IREE.
const (
	attrMaxThreadsPerBlock                = 1   // CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK
	attrMaxBlockDimX                      = 2   // CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X
	attrMaxBlockDimY                      = 3   // CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y
	attrMaxBlockDimZ                      = 4   // CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z
	attrMaxGridDimX                       = 5   // CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X
	attrMaxGridDimY                       = 6   // CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y
	attrMaxGridDimZ                       = 7   // CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z
	attrMaxSharedMemoryPerBlock           = 8   // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK
	attrWarpSize                          = 10  // CU_DEVICE_ATTRIBUTE_WARP_SIZE
	attrMaxRegistersPerBlock              = 12  // CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK
	attrClockRate                         = 13  // CU_DEVICE_ATTRIBUTE_CLOCK_RATE (kHz)
	attrMultiprocessorCount               = 16  // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
	attrKernelExecTimeout                 = 17  // CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT
	attrIntegrated                        = 18  // CU_DEVICE_ATTRIBUTE_INTEGRATED
	attrCanMapHostMemory                  = 19  // CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY
	attrL2CacheSize                       = 38  // CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE
	attrMaxThreadsPerMultiprocessor       = 39  // CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR
	attrUnifiedAddressing                 = 41  // CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING
	attrComputeCapabilityMajor            = 75  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
	attrComputeCapabilityMinor            = 76  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
	attrMaxSharedMemoryPerMultiprocessor  = 81  // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR
	attrMaxRegistersPerMultiprocessor     = 82  // CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR
	attrManagedMemory                     = 83  // CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY
	attrPageableMemoryAccess              = 88  // CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS
	attrConcurrentManagedAccess           = 89  // CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS
	attrMaxBlocksPerMultiprocessor        = 106 // CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR
	attrTimelineSemaphoreInteropSupported = 114 // CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED
	attrMemoryPoolsSupported              = 115 // CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED
	attrCanUse64BitStreamMemOps           = 122 // CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS
	attrMemSyncDomainCount                = 126 // CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT
)

// dumpSource is what the dump reads from one device: the driver reads
// libcuda, the tests a table.
type dumpSource interface {
	// attribute is cuDeviceGetAttribute for the device.
	attribute(attr int32) (int32, error)
	// driverVersion is cuDriverGetVersion (e.g. 12040 for CUDA 12.4).
	driverVersion() (int32, error)
}

// formatDump writes IREE's CUDA --dump_devices body (cuda_driver.c
// iree_hal_cuda_driver_dump_device_info; REFERENCE §5 "CUDA dump").
func formatDump(src dumpSource) (string, error) {
	version, err := src.driverVersion()
	if err != nil {
		return "", err
	}
	a := gpuinfo.NewAttrs(src.attribute)
	var d gpuinfo.Dump
	d.Item("gpu-compute-capability: %d.%d", a.Get(attrComputeCapabilityMajor), a.Get(attrComputeCapabilityMinor))
	d.Item("driver-max-cuda-version: %d.%d", version/1000, (version%1000)/10)

	d.Group()
	d.Item("launch-max-block-dims: (%d, %d, %d)", a.Get(attrMaxBlockDimX), a.Get(attrMaxBlockDimY), a.Get(attrMaxBlockDimZ))
	d.Item("launch-max-grid-dims: (%d, %d, %d)", a.Get(attrMaxGridDimX), a.Get(attrMaxGridDimY), a.Get(attrMaxGridDimZ))

	d.Group()
	d.Item("block-max-thread-count: %d", a.Get(attrMaxThreadsPerBlock))
	d.Item("block-max-32-bit-register-count: %d", a.Get(attrMaxRegistersPerBlock))
	d.Item("block-max-shared-memory: %d bytes", a.Get(attrMaxSharedMemoryPerBlock))

	d.Group()
	d.Item("multiprocessor-max-thread-count: %d", a.Get(attrMaxThreadsPerMultiprocessor))
	d.Item("multiprocessor-max-block-count: %d", a.Get(attrMaxBlocksPerMultiprocessor))
	d.Item("multiprocessor-max-32-bit-register-count: %d", a.Get(attrMaxRegistersPerMultiprocessor))
	d.Item("multiprocessor-max-shared-memory: %d bytes", a.Get(attrMaxSharedMemoryPerMultiprocessor))

	d.Group()
	d.Item("memory-is-integrated-memory: %d", a.Get(attrIntegrated))
	d.Item("memory-has-unified-address-space: %d", a.Get(attrUnifiedAddressing))
	d.Item("memory-supports-managed-memory: %d", a.Get(attrManagedMemory))
	d.Item("memory-can-map-host-memory-to-device: %d", a.Get(attrCanMapHostMemory))
	d.Item("memory-supports-pageable-memory-access-from-device: %d", a.Get(attrPageableMemoryAccess))
	d.Item("memory-supports-concurrent-managed-access: %d", a.Get(attrConcurrentManagedAccess))
	d.Item("memory-supports-memory-pools: %d", a.Get(attrMemoryPoolsSupported))
	d.Item("memory-l2-cache-size: %d bytes", a.Get(attrL2CacheSize))

	d.Group()
	d.Item("sync-supports-64-bit-stream-mem-ops: %d", a.Get(attrCanUse64BitStreamMemOps))
	d.Item("sync-supports-timeline-semaphore-interop: %d", a.Get(attrTimelineSemaphoreInteropSupported))
	d.Item("sync-mem-domain-count: %d", a.Get(attrMemSyncDomainCount))

	d.Group()
	d.Item("gpu-multiprocessor-count: %d", a.Get(attrMultiprocessorCount))
	d.Item("gpu-clock-rate: %d kHz", a.Get(attrClockRate))
	d.Item("gpu-warp-size: %d", a.Get(attrWarpSize))
	d.Item("kernel-has-execution-timeout: %d", a.Get(attrKernelExecTimeout))

	if err := a.Err(); err != nil {
		return "", err
	}
	return d.Text(), nil
}
