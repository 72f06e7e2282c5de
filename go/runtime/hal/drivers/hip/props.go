package hip

import (
	"github.com/gree-ml/gree/go/internal/dylib"
	"github.com/gree-ml/gree/go/status"
)

// propsLayout says where gcnArchName lies in one version of
// hipDeviceProp_t. gree reads nothing else from the struct (every other
// dump value comes from hipDeviceGetAttribute, whose enum is stable), so
// it never declares the ~100-field struct: it hands HIP a zeroed byte
// buffer larger than any version and reads the two char arrays it needs.
type propsLayout struct {
	symbol      string // the entry point that fills this layout
	gcnArchName int    // offset of char gcnArchName[256]
	size        int    // sizeof the struct, x86_64/aarch64 LP64
}

// Offsets derived from hip/hip_runtime_api.h (ROCm/HIP rocm-6.2.x; the
// struct is unchanged in ROCm 7's rocm-systems/projects/hip) and
// hip/hip_deprecated.h, with LP64 C layout rules (int 4 bytes aligned 4,
// size_t and pointers 8 aligned 8, char arrays unaligned), and checked by
// compiling those struct definitions with gcc and printing offsetof.
//
// hipDeviceProp_tR0600 (hipGetDevicePropertiesR0600, ROCm ≥ 6.0):
//
//	  0 char name[256]              256 hipUUID uuid (char[16])
//	272 char luid[8]                280 unsigned luidDeviceNodeMask, 4 pad
//	288 size_t totalGlobalMem       296 size_t sharedMemPerBlock
//	304 int regsPerBlock, warpSize  312 size_t memPitch
//	320 int maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3], clockRate (→352)
//	352 size_t totalConstMem        360 int major, minor
//	368 size_t textureAlignment, texturePitchAlignment (→384)
//	384 46 ints: deviceOverlap … maxSurfaceCubemapLayered[2] (→568)
//	568 size_t surfaceAlignment     576 16 ints: concurrentKernels … localL1CacheSupported (→640)
//	640 size_t sharedMemPerMultiprocessor
//	648 12 ints: regsPerMultiprocessor … cooperativeMultiDeviceLaunch (→696)
//	696 size_t sharedMemPerBlockOptin
//	704 4 ints: pageableMemoryAccessUsesHostPageTables … accessPolicyMaxWindowSize (→720)
//	720 size_t reservedSharedMemPerBlock
//	728 13 ints/unsigneds: hostRegisterSupported … unifiedFunctionPointers (→780)
//	780 int reserved[63] (→1032)    1032 int hipReserved[32] (→1160)
//	1160 char gcnArchName[256]      1416 size_t maxSharedMemoryPerMultiProcessor … sizeof 1472
//
// hipDeviceProp_tR0000 (the plain hipGetDeviceProperties symbol, ROCm 5):
//
//	  0 char name[256]              256 size_t totalGlobalMem, sharedMemPerBlock
//	272 int regsPerBlock, warpSize, maxThreadsPerBlock, maxThreadsDim[3],
//	    maxGridSize[3], clockRate, memoryClockRate, memoryBusWidth (→320)
//	320 size_t totalConstMem        328 int major, minor, multiProcessorCount,
//	    l2CacheSize, maxThreadsPerMultiProcessor, computeMode, clockInstructionRate (→356)
//	356 hipDeviceArch_t arch (17 unsigned bit-fields: 4 bytes)
//	360 int concurrentKernels, pciDomainID, pciBusID, pciDeviceID (→376)
//	376 size_t maxSharedMemoryPerMultiProcessor
//	384 int isMultiGpuBoard, canMapHostMemory, gcnArch (→396)
//	396 char gcnArchName[256] … sizeof 792
var (
	layoutR0600 = propsLayout{symbol: "hipGetDevicePropertiesR0600", gcnArchName: 1160, size: 1472}
	layoutR0000 = propsLayout{symbol: "hipGetDeviceProperties", gcnArchName: 396, size: 792}
)

// propsBufferSize is the buffer handed to hipGetDeviceProperties*: several
// times the largest layout, so a future, larger struct cannot overrun it.
const propsBufferSize = 8192

// archNameFromProps reads gcnArchName ("gfx942:sramecc+:xnack-") from a
// filled props buffer. name is hipDeviceGetName's answer: the struct's
// name field (offset 0 in every layout) must equal it, which catches a
// layout mismatch before a garbage architecture is printed.
func archNameFromProps(buf []byte, layout propsLayout, name string) (string, error) {
	if len(buf) < layout.size {
		return "", status.Errorf(status.Internal, "hipDeviceProp_t buffer of %d bytes is smaller than %s's %d", len(buf), layout.symbol, layout.size)
	}
	if got := dylib.GoString(buf[:256]); got != name {
		return "", status.Errorf(status.Internal, "%s filled name %q where hipDeviceGetName says %q; the library's hipDeviceProp_t layout is not the one gree expects", layout.symbol, got, name)
	}
	return dylib.GoString(buf[layout.gcnArchName : layout.gcnArchName+256]), nil
}
