package cuda

import (
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
}

// CUresult values gree treats specially (cuda.h, enum cudaError_enum).
const (
	cudaSuccess                         = 0
	cudaErrorInvalidValue               = 1
	cudaErrorOutOfMemory                = 2
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
	case cudaErrorInvalidValue, cudaErrorInvalidDevice:
		return status.InvalidArgument
	case cudaErrorOutOfMemory:
		return status.ResourceExhausted
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
