package cuda

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/gree-ml/gree/go/internal/dylib"
	"github.com/gree-ml/gree/go/runtime/flags"
	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

// Name is the driver name.
const Name = "cuda"

// Factory registers the cuda driver.
var Factory = hal.Factory{
	Name:     Name,
	FullName: "NVIDIA CUDA HAL driver (via dylib)",
	Create: func() (hal.Driver, error) {
		d, err := create(libcudaSpec(os.Getenv))
		if err != nil {
			return nil, err
		}
		return d, nil
	},
}

// The driver flags of IREE's cuda/registration/driver_module.c (see the
// package documentation for what each changes).
var (
	flagUseStreams = flags.Bool("cuda_use_streams", true,
		"Use CUDA streams (instead of graphs) for executing command buffers.")
	flagAllowInlineExecution = flags.Bool("cuda_allow_inline_execution", false,
		"Allow command buffers to execute inline against CUDA streams when\npossible.")
	flagAsyncAllocations = flags.Bool("cuda_async_allocations", true,
		"Enables CUDA asynchronous stream-ordered allocations when supported.")
	flagTracing = flags.Int("cuda_tracing", 2,
		"Controls the verbosity of tracing when Tracy instrumentation is enabled.\nThe impact to benchmark timing becomes more severe as the verbosity\nincreases, and thus should be only enabled when needed.\nPermissible values are:\n   0 : stream tracing disabled.\n   1 : coarse command buffer level tracing enabled.\n   2 : fine-grained kernel level tracing enabled.")
	flagDefaultIndex = flags.Int("cuda_default_index", 0,
		"Index of the default CUDA device.")
	flagDefaultIndexFromMPI = flags.Bool("cuda_default_index_from_mpi", true,
		"Sets the default CUDA device index from the PMI_RANK or\nOMPI_COMM_WORLD_LOCAL_RANK environment variables if set.")
)

// libcuda is how the driver finds libcuda.
var libcuda = dylib.Spec{
	What:       "libcuda.so.1",
	Candidates: []string{"libcuda.so.1", "libcuda.so"},
	Install:    "install the NVIDIA driver (it provides libcuda.so.1); gree needs no CUDA toolkit",
}

// LibraryEnv names the environment variable that, when set, is the path
// of the libcuda the driver loads instead of libcuda.so.1 (a fake libcuda
// for end-to-end tests of the tools, or a particular driver's library).
const LibraryEnv = "GREE_LIBCUDA"

// libcudaSpec is libcuda, or the library LibraryEnv names.
func libcudaSpec(getenv func(string) string) dylib.Spec {
	spec := libcuda
	if p := getenv(LibraryEnv); p != "" {
		spec.What = p + " (from " + LibraryEnv + ")"
		spec.Candidates = []string{p}
		spec.Install = "unset " + LibraryEnv + " to load the NVIDIA driver's libcuda.so.1"
	}
	return spec
}

// options are the flag values a driver was created with.
type options struct {
	useStreams           bool
	allowInlineExecution bool
	asyncAllocations     bool
	tracing              int64
	defaultIndex         int
}

// mpiRankVars are read, in order, for the default device index when
// --cuda_default_index_from_mpi is set (Intel/MS MPI, then OpenMPI).
var mpiRankVars = []string{"PMI_RANK", "OMPI_COMM_WORLD_LOCAL_RANK"}

// defaultIndex is IREE's iree_hal_cuda_infer_device_index_from_env: the
// first of mpiRankVars that is set to an integer, else index.
func defaultIndex(index int64, fromMPI bool, getenv func(string) string) int {
	if fromMPI {
		for _, v := range mpiRankVars {
			if s := strings.TrimSpace(getenv(v)); s != "" {
				if n, err := strconv.ParseInt(s, 10, 32); err == nil {
					return int(n)
				}
			}
		}
	}
	return int(index)
}

// driver is the cuda HAL driver.
type driver struct {
	lib  *dylib.Library
	cu   api
	opts options
	// mapDevice maps device memory for the host, as if it were host
	// memory: only the tests set it, on the fake libcuda, whose device
	// memory is host memory (hal.QueueWrite cannot stage yet).
	mapDevice bool
	// execErr is why devices cannot be created: libcuda lacks symbols
	// that executing needs.
	execErr error
}

var _ hal.Driver = (*driver)(nil)

// create loads libcuda from spec, binds the API and initializes CUDA.
func create(spec dylib.Spec) (*driver, error) {
	lib, err := dylib.Open(spec)
	if err != nil {
		return nil, err
	}
	d := &driver{lib: lib}
	if err := lib.Bind(&d.cu); err != nil {
		return nil, err
	}
	if err := lib.Bind(&d.cu.execAPI); err != nil {
		// Devices are still listed and dumped; creating one fails.
		d.execErr = status.Errorf(status.Unavailable, "the cuda driver cannot execute: %v", err)
	}
	if d.cu.DeviceGetUUIDv2 == nil && d.cu.DeviceGetUUID == nil {
		return nil, status.Errorf(status.Unavailable, "%s lacks symbols cuDeviceGetUuid_v2 and cuDeviceGetUuid; the library is older than gree needs", lib.Path)
	}
	if r := d.cu.Init(0); r != cudaSuccess {
		return nil, initError(r, d.cu.errorName(r))
	}
	d.opts = options{
		useStreams:           *flagUseStreams,
		allowInlineExecution: *flagAllowInlineExecution,
		asyncAllocations:     *flagAsyncAllocations,
		tracing:              *flagTracing,
		defaultIndex:         defaultIndex(*flagDefaultIndex, *flagDefaultIndexFromMPI, os.Getenv),
	}
	return d, nil
}

// Name returns "cuda".
func (d *driver) Name() string { return Name }

// QueryAvailableDevices lists the GPUs in CUDA's order.
func (d *driver) QueryAvailableDevices() ([]hal.DeviceInfo, error) {
	var count int32
	if err := d.cu.check(d.cu.DeviceGetCount(&count), "cuDeviceGetCount"); err != nil {
		return nil, err
	}
	devices := make([]hal.DeviceInfo, 0, count)
	for i := int32(0); i < count; i++ {
		var dev int32
		if err := d.cu.check(d.cu.DeviceGet(&dev, i), "cuDeviceGet"); err != nil {
			return nil, err
		}
		info, err := d.deviceInfo(dev)
		if err != nil {
			return nil, err
		}
		devices = append(devices, info)
	}
	return devices, nil
}

// maxNameLength is IREE_HAL_CUDA_MAX_DEVICE_NAME_LENGTH.
const maxNameLength = 128

// deviceInfo describes the device with handle dev.
func (d *driver) deviceInfo(dev int32) (hal.DeviceInfo, error) {
	var name [maxNameLength]byte
	if err := d.cu.check(d.cu.DeviceGetName(&name[0], int32(len(name)), dev), "cuDeviceGetName"); err != nil {
		return hal.DeviceInfo{}, err
	}
	var uuid [16]byte
	getUUID, call := d.cu.DeviceGetUUIDv2, "cuDeviceGetUuid_v2"
	if getUUID == nil {
		getUUID, call = d.cu.DeviceGetUUID, "cuDeviceGetUuid"
	}
	if err := d.cu.check(getUUID(&uuid, dev), call); err != nil {
		return hal.DeviceInfo{}, err
	}
	return hal.DeviceInfo{
		ID:   hal.DeviceID(dev) + 1,
		Path: hal.FormatGPUUUID(uuid),
		Name: dylib.GoString(name[:]),
	}, nil
}

// handle is the CUdevice of a device id.
func handle(id hal.DeviceID) int32 { return int32(id - 1) }

// DumpDeviceInfo returns IREE's CUDA --dump_devices text for the device.
func (d *driver) DumpDeviceInfo(id hal.DeviceID) (string, error) {
	devices, err := d.QueryAvailableDevices()
	if err != nil {
		return "", err
	}
	info, err := hal.FindDevice(Name, devices, id)
	if err != nil {
		return "", err
	}
	return formatDump(&source{cu: &d.cu, dev: handle(info.ID)})
}

// source reads dump values from libcuda for one device.
type source struct {
	cu  *api
	dev int32
}

func (s *source) attribute(attr int32) (int32, error) {
	var v int32
	if err := s.cu.check(s.cu.DeviceGetAttribute(&v, attr, s.dev), fmt.Sprintf("cuDeviceGetAttribute(%d)", attr)); err != nil {
		return 0, err
	}
	return v, nil
}

func (s *source) driverVersion() (int32, error) {
	var v int32
	if err := s.cu.check(s.cu.DriverGetVersion(&v), "cuDriverGetVersion"); err != nil {
		return 0, err
	}
	return v, nil
}

// CreateDevice creates the device with the given id; 0 is the default
// device, as IREE_HAL_DEVICE_ID_DEFAULT is in IREE. Parameters are accepted
// and ignored, as IREE's cuda driver does.
func (d *driver) CreateDevice(id hal.DeviceID, params map[string]string) (hal.Device, error) {
	devices, err := d.QueryAvailableDevices()
	if err != nil {
		return nil, err
	}
	var info hal.DeviceInfo
	if id == 0 {
		info, err = hal.SelectDevice(Name, devices, "", d.opts.defaultIndex)
	} else {
		info, err = hal.FindDevice(Name, devices, id)
	}
	if err != nil {
		return nil, err
	}
	return d.openDevice(info)
}

// CreateDeviceByPath creates the device a URI path names: "" (the default
// device), an ordinal, or a GPU-<uuid>.
func (d *driver) CreateDeviceByPath(path string, params map[string]string) (hal.Device, error) {
	devices, err := d.QueryAvailableDevices()
	if err != nil {
		return nil, err
	}
	info, err := hal.SelectDevice(Name, devices, path, d.opts.defaultIndex)
	if err != nil {
		return nil, err
	}
	return d.openDevice(info)
}

// openDevice is open as a hal.Device (nil on error).
func (d *driver) openDevice(info hal.DeviceInfo) (hal.Device, error) {
	v, err := d.open(info)
	if err != nil {
		return nil, err
	}
	return v, nil
}

// Close releases nothing: libcuda stays loaded for the life of the process
// and devices own their contexts.
func (d *driver) Close() error { return nil }
