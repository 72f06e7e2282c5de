package cuda

import (
	"unsafe"

	"github.com/gree-ml/gree/go/runtime/hal/gpuinfo"
	"github.com/gree-ml/gree/go/status"
)

// api is the part of the CUDA driver API gree calls, bound from libcuda by
// dylib.Bind. Signatures follow cuda.h (CUDA 12.6): CUresult, CUdevice and
// CUdevice_attribute are C ints (int32); CUcontext is a pointer (uintptr);
// size_t is uintptr; CUuuid is 16 bytes; char* outputs are *byte into a Go
// buffer. The _v2 names are what cuda.h's #defines map the plain names to
// (cuDeviceTotalMem → cuDeviceTotalMem_v2, cuDevicePrimaryCtxRelease →
// cuDevicePrimaryCtxRelease_v2); cuDeviceGetUuid_v2 is preferred and the
// older cuDeviceGetUuid is the fallback (one of them must exist).
type api struct {
	Init               func(flags uint32) int32                                `sym:"cuInit"`
	DriverGetVersion   func(version *int32) int32                              `sym:"cuDriverGetVersion"`
	DeviceGetCount     func(count *int32) int32                                `sym:"cuDeviceGetCount"`
	DeviceGet          func(device *int32, ordinal int32) int32                `sym:"cuDeviceGet"`
	DeviceGetName      func(name *byte, length int32, device int32) int32      `sym:"cuDeviceGetName"`
	DeviceGetUUIDv2    func(uuid *[16]byte, device int32) int32                `sym:"cuDeviceGetUuid_v2,optional"`
	DeviceGetUUID      func(uuid *[16]byte, device int32) int32                `sym:"cuDeviceGetUuid,optional"`
	DeviceGetAttribute func(value *int32, attribute int32, device int32) int32 `sym:"cuDeviceGetAttribute"`
	DeviceTotalMem     func(bytes *uintptr, device int32) int32                `sym:"cuDeviceTotalMem_v2"`
	GetErrorName       func(result int32, name **byte) int32                   `sym:"cuGetErrorName"`
	PrimaryCtxRetain   func(context *uintptr, device int32) int32              `sym:"cuDevicePrimaryCtxRetain"`
	PrimaryCtxRelease  func(device int32) int32                                `sym:"cuDevicePrimaryCtxRelease_v2"`

	// execAPI is bound separately (dylib.Bind does not descend into
	// embedded structs).
	execAPI
}

// execAPI is the part of the driver API that executes: memory, streams,
// events, modules and launches. Signatures follow cuda.h (CUDA 12): a
// CUdeviceptr is a uint64, CUstream, CUevent, CUmodule, CUfunction and
// CUcontext are pointers (uintptr), size_t is uintptr, and "unsigned int"
// is uint32. The names are the ones cuda.h's #defines map the plain names
// to (cuMemAlloc → cuMemAlloc_v2, cuStreamDestroy → cuStreamDestroy_v2, …).
// The stream-ordered allocator (cuMemAllocAsync, CUDA 11.2), the graph
// calls (cuGraphInstantiateWithFlags, CUDA 11.4) and cuEventElapsedTime
// (without it a trace times submissions on the host only) are optional.
//
// Host pointers that C keeps or reads during a call point into pinned Go
// memory or into memory libcuda allocated (cuMemHostAlloc).
type execAPI struct {
	CtxSetCurrent  func(ctx uintptr) int32  `sym:"cuCtxSetCurrent"`
	CtxGetCurrent  func(ctx *uintptr) int32 `sym:"cuCtxGetCurrent"`
	CtxPushCurrent func(ctx uintptr) int32  `sym:"cuCtxPushCurrent_v2"`
	CtxPopCurrent  func(ctx *uintptr) int32 `sym:"cuCtxPopCurrent_v2"`

	MemGetInfo    func(free, total *uintptr) int32                                `sym:"cuMemGetInfo_v2"`
	MemAlloc      func(ptr *uint64, size uintptr) int32                           `sym:"cuMemAlloc_v2"`
	MemFree       func(ptr uint64) int32                                          `sym:"cuMemFree_v2"`
	MemAllocAsync func(ptr *uint64, size uintptr, stream uintptr) int32           `sym:"cuMemAllocAsync,optional"`
	MemFreeAsync  func(ptr uint64, stream uintptr) int32                          `sym:"cuMemFreeAsync,optional"`
	MemHostAlloc  func(ptr *unsafe.Pointer, size uintptr, flags uint32) int32     `sym:"cuMemHostAlloc"`
	MemFreeHost   func(ptr unsafe.Pointer) int32                                  `sym:"cuMemFreeHost"`
	MemcpyHtoD    func(dst uint64, src unsafe.Pointer, n uintptr) int32           `sym:"cuMemcpyHtoD_v2"`
	MemcpyDtoH    func(dst unsafe.Pointer, src uint64, n uintptr) int32           `sym:"cuMemcpyDtoH_v2"`
	MemcpyAsync   func(dst, src uint64, n uintptr, stream uintptr) int32          `sym:"cuMemcpyAsync"`
	MemcpyDtoD    func(dst, src uint64, n uintptr, stream uintptr) int32          `sym:"cuMemcpyDtoDAsync_v2"`
	MemsetD8      func(dst uint64, value uint8, n uintptr) int32                  `sym:"cuMemsetD8_v2"`
	MemsetD8Async func(dst uint64, value uint8, n uintptr, stream uintptr) int32  `sym:"cuMemsetD8Async"`
	MemsetD16     func(dst uint64, value uint16, n uintptr, stream uintptr) int32 `sym:"cuMemsetD16Async"`
	MemsetD32     func(dst uint64, value uint32, n uintptr, stream uintptr) int32 `sym:"cuMemsetD32Async"`

	StreamCreate      func(stream *uintptr, flags uint32) int32 `sym:"cuStreamCreate"`
	StreamDestroy     func(stream uintptr) int32                `sym:"cuStreamDestroy_v2"`
	StreamSynchronize func(stream uintptr) int32                `sym:"cuStreamSynchronize"`
	EventCreate       func(event *uintptr, flags uint32) int32  `sym:"cuEventCreate"`
	EventRecord       func(event, stream uintptr) int32         `sym:"cuEventRecord"`
	EventSynchronize  func(event uintptr) int32                 `sym:"cuEventSynchronize"`
	EventDestroy      func(event uintptr) int32                 `sym:"cuEventDestroy_v2"`
	// EventElapsedTime times the commands of a traced submission (trace.go).
	EventElapsedTime func(ms *float32, start, end uintptr) int32 `sym:"cuEventElapsedTime,optional"`

	ModuleLoadDataEx   func(module *uintptr, image unsafe.Pointer, numOptions uint32, options *int32, values *uintptr) int32 `sym:"cuModuleLoadDataEx"`
	ModuleUnload       func(module uintptr) int32                                                                            `sym:"cuModuleUnload"`
	ModuleGetFunction  func(fn *uintptr, module uintptr, name *byte) int32                                                   `sym:"cuModuleGetFunction"`
	FuncGetAttribute   func(value *int32, attr int32, fn uintptr) int32                                                      `sym:"cuFuncGetAttribute"`
	StreamBeginCapture func(stream uintptr, mode int32) int32                                                                `sym:"cuStreamBeginCapture_v2,optional"`
	StreamEndCapture   func(stream uintptr, graph *uintptr) int32                                                            `sym:"cuStreamEndCapture,optional"`
	GraphInstantiate   func(exec *uintptr, graph uintptr, flags uint64) int32                                                `sym:"cuGraphInstantiateWithFlags,optional"`
	GraphLaunch        func(exec, stream uintptr) int32                                                                      `sym:"cuGraphLaunch,optional"`
	GraphExecDestroy   func(exec uintptr) int32                                                                              `sym:"cuGraphExecDestroy,optional"`
	GraphDestroy       func(graph uintptr) int32                                                                             `sym:"cuGraphDestroy,optional"`

	LaunchKernel func(fn uintptr, gx, gy, gz, bx, by, bz, sharedBytes uint32, stream uintptr, params *unsafe.Pointer, extra *unsafe.Pointer) int32 `sym:"cuLaunchKernel"`
}

// Flags and enum values of the calls above (cuda.h).
const (
	streamNonBlocking     = 0x1 // CU_STREAM_NON_BLOCKING
	eventDisableTiming    = 0x2 // CU_EVENT_DISABLE_TIMING
	eventBlockingSync     = 0x1 // CU_EVENT_BLOCKING_SYNC
	memHostAllocPortable  = 0x1 // CU_MEMHOSTALLOC_PORTABLE
	memHostAllocDeviceMap = 0x2 // CU_MEMHOSTALLOC_DEVICEMAP

	jitInfoLogBuffer       = 3  // CU_JIT_INFO_LOG_BUFFER
	jitInfoLogBufferBytes  = 4  // CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES
	jitErrorLogBuffer      = 5  // CU_JIT_ERROR_LOG_BUFFER
	jitErrorLogBufferBytes = 6  // CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
	jitLogVerbose          = 12 // CU_JIT_LOG_VERBOSE

	captureModeThreadLocal = 1 // CU_STREAM_CAPTURE_MODE_THREAD_LOCAL

	funcAttrMaxThreadsPerBlock = 0 // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
	funcAttrSharedSizeBytes    = 1 // CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES
)

// CUresult values gree treats specially (cuda.h, enum cudaError_enum).
const (
	cudaSuccess                         = 0
	cudaErrorInvalidValue               = 1
	cudaErrorOutOfMemory                = 2
	cudaErrorInvalidImage               = 200
	cudaErrorInvalidContext             = 201
	cudaErrorNoBinaryForGPU             = 209
	cudaErrorInvalidPTX                 = 218
	cudaErrorUnsupportedPTXVersion      = 222
	cudaErrorNotFound                   = 500
	cudaErrorNotReady                   = 600
	cudaErrorIllegalAddress             = 700
	cudaErrorLaunchOutOfResources       = 701
	cudaErrorLaunchFailed               = 719
	cudaErrorNotInitialized             = 3
	cudaErrorDeinitialized              = 4
	cudaErrorStubLibrary                = 34
	cudaErrorInsufficientDriver         = 35
	cudaErrorDeviceUnavailable          = 46
	cudaErrorNoDevice                   = 100
	cudaErrorInvalidDevice              = 101
	cudaErrorNotSupported               = 801
	cudaErrorSystemNotReady             = 802
	cudaErrorSystemDriverMismatch       = 803
	cudaErrorCompatNotSupportedOnDevice = 804
)

// errorName returns the CUresult's enum name (cuGetErrorName, e.g.
// "CUDA_ERROR_NO_DEVICE"), or "unknown CUresult" when libcuda does not know it.
func (a *api) errorName(result int32) string {
	var p *byte
	if a.GetErrorName != nil && a.GetErrorName(result, &p) == cudaSuccess && p != nil {
		if s := gpuinfo.CString(p); s != "" {
			return s
		}
	}
	return "unknown CUresult"
}

// check turns a failed call into a status error naming the call and the
// CUresult ("cuDeviceGet failed: CUDA_ERROR_INVALID_DEVICE (101)").
func (a *api) check(result int32, call string) error {
	if result == cudaSuccess {
		return nil
	}
	return status.Errorf(resultCode(result), "%s failed: %s (%d)", call, a.errorName(result), result)
}

// resultCode maps a CUresult to a status code as IREE's
// iree_hal_cuda_result_to_status does for the common cases; everything
// else is INTERNAL.
func resultCode(result int32) status.Code {
	switch result {
	case cudaErrorInvalidValue, cudaErrorInvalidDevice, cudaErrorInvalidImage, cudaErrorInvalidPTX,
		cudaErrorUnsupportedPTXVersion, cudaErrorNoBinaryForGPU:
		return status.InvalidArgument
	case cudaErrorOutOfMemory, cudaErrorLaunchOutOfResources:
		return status.ResourceExhausted
	case cudaErrorNotFound:
		return status.NotFound
	case cudaErrorNotInitialized, cudaErrorDeinitialized:
		return status.FailedPrecondition
	case cudaErrorNotSupported:
		return status.Unimplemented
	case cudaErrorStubLibrary, cudaErrorInsufficientDriver, cudaErrorDeviceUnavailable,
		cudaErrorNoDevice, cudaErrorSystemNotReady, cudaErrorSystemDriverMismatch,
		cudaErrorCompatNotSupportedOnDevice:
		return status.Unavailable
	}
	return status.Internal
}

// initError is the UNAVAILABLE error for a failed cuInit(0): it names the
// CUresult and says how to fix the usual causes.
func initError(result int32, name string) error {
	var fix string
	switch result {
	case cudaErrorNoDevice:
		fix = "no NVIDIA GPU is visible to this process; check that nvidia-smi lists one and that CUDA_VISIBLE_DEVICES does not hide it"
	case cudaErrorInsufficientDriver, cudaErrorSystemDriverMismatch, cudaErrorCompatNotSupportedOnDevice:
		fix = "the libcuda.so.1 that loaded does not match the NVIDIA kernel driver; reinstall or update the NVIDIA driver so both come from the same version"
	case cudaErrorStubLibrary:
		fix = "the libcuda.so.1 that loaded is the CUDA toolkit's stub library; put the NVIDIA driver's libcuda.so.1 first in the library search path"
	case cudaErrorDeviceUnavailable:
		fix = "the GPU is busy or in exclusive-process compute mode; check nvidia-smi"
	default:
		fix = "check that the NVIDIA kernel driver is loaded (nvidia-smi) and that /dev/nvidia* are accessible"
	}
	return status.Errorf(status.Unavailable, "cuInit failed: %s (%d); %s", name, result, fix)
}
