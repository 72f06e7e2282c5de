package hip

import (
	"github.com/gree-ml/gree/go/status"
)

// api is the part of the HIP runtime API gree calls, bound from
// libamdhip64 by dylib.Bind. Signatures follow hip/hip_runtime_api.h
// (ROCm 6.2, unchanged in ROCm 7): hipError_t, hipDevice_t and
// hipDeviceAttribute_t are C ints (int32); hipCtx_t is a pointer (uintptr);
// size_t is uintptr; hipUUID is 16 bytes; char* outputs are *byte into a Go
// buffer; hipGetErrorName returns a const char* that purego copies into a
// Go string.
//
// hipGetDeviceProperties is a macro for hipGetDevicePropertiesR0600 since
// ROCm 6.0, and the plain symbol fills the older hipDeviceProp_tR0000
// layout (ROCm 5). Both are optional: the R0600 one is used when present
// (see props.go), the plain one otherwise, as IREE's symbol table does.
type api struct {
	Init                     func(flags uint32) int32                                `sym:"hipInit"`
	GetErrorName             func(result int32) string                               `sym:"hipGetErrorName"`
	GetDeviceCount           func(count *int32) int32                                `sym:"hipGetDeviceCount"`
	DeviceGet                func(device *int32, ordinal int32) int32                `sym:"hipDeviceGet"`
	DeviceGetName            func(name *byte, length int32, device int32) int32      `sym:"hipDeviceGetName"`
	DeviceGetUUID            func(uuid *[16]byte, device int32) int32                `sym:"hipDeviceGetUuid"`
	DeviceGetAttribute       func(value *int32, attribute int32, device int32) int32 `sym:"hipDeviceGetAttribute"`
	DeviceTotalMem           func(bytes *uintptr, device int32) int32                `sym:"hipDeviceTotalMem"`
	GetDevicePropertiesR0600 func(props *byte, device int32) int32                   `sym:"hipGetDevicePropertiesR0600,optional"`
	GetDevicePropertiesR0000 func(props *byte, device int32) int32                   `sym:"hipGetDeviceProperties,optional"`
	PrimaryCtxRetain         func(context *uintptr, device int32) int32              `sym:"hipDevicePrimaryCtxRetain"`
	PrimaryCtxRelease        func(device int32) int32                                `sym:"hipDevicePrimaryCtxRelease"`
}

// hipError_t values gree treats specially (hip_runtime_api.h).
const (
	hipSuccess                 = 0
	hipErrorInvalidValue       = 1
	hipErrorOutOfMemory        = 2
	hipErrorNotInitialized     = 3
	hipErrorDeinitialized      = 4
	hipErrorInsufficientDriver = 35
	hipErrorNoDevice           = 100
	hipErrorInvalidDevice      = 101
	hipErrorNotSupported       = 801
)

// errorName returns the hipError_t's enum name (hipGetErrorName, e.g.
// "hipErrorNoDevice"), or "unknown hipError_t".
func (a *api) errorName(result int32) string {
	if a.GetErrorName != nil {
		if s := a.GetErrorName(result); s != "" {
			return s
		}
	}
	return "unknown hipError_t"
}

// check turns a failed call into a status error naming the call and the
// hipError_t ("hipDeviceGet failed: hipErrorInvalidDevice (101)").
func (a *api) check(result int32, call string) error {
	if result == hipSuccess {
		return nil
	}
	return status.Errorf(resultCode(result), "%s failed: %s (%d)", call, a.errorName(result), result)
}

// resultCode maps a hipError_t to a status code for the common cases;
// everything else is INTERNAL.
func resultCode(result int32) status.Code {
	switch result {
	case hipErrorInvalidValue, hipErrorInvalidDevice:
		return status.InvalidArgument
	case hipErrorOutOfMemory:
		return status.ResourceExhausted
	case hipErrorNotInitialized, hipErrorDeinitialized:
		return status.FailedPrecondition
	case hipErrorNotSupported:
		return status.Unimplemented
	case hipErrorNoDevice, hipErrorInsufficientDriver:
		return status.Unavailable
	}
	return status.Internal
}

// initError is the UNAVAILABLE error for a failed hipInit(0).
func initError(result int32, name string) error {
	var fix string
	switch result {
	case hipErrorNoDevice:
		fix = "no AMD GPU is visible to this process; check that rocminfo or amd-smi lists one, that the user can open /dev/kfd and /dev/dri/renderD* (groups video and render), and that HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES do not hide it"
	case hipErrorInsufficientDriver:
		fix = "the amdgpu kernel driver is older than this ROCm runtime; update the driver or use a matching ROCm"
	default:
		fix = "check that the amdgpu kernel driver is loaded and rocminfo works"
	}
	return status.Errorf(status.Unavailable, "hipInit failed: %s (%d); %s", name, result, fix)
}
