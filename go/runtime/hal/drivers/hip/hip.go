package hip

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gree-ml/gree/go/internal/dylib"
	"github.com/gree-ml/gree/go/runtime/flags"
	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/hal/gpuinfo"
	"github.com/gree-ml/gree/go/status"
)

// Name is the driver name.
const Name = "hip"

// Factory registers the hip driver.
var Factory = hal.Factory{
	Name:     Name,
	FullName: "HIP HAL driver (via dylib)",
	Create: func() (hal.Driver, error) {
		return create(librarySpec(*flagDylibPath, os.Getenv))
	},
}

// The driver flags of IREE's hip/registration/driver_module.c. Only
// --hip_dylib_path and --hip_default_index change what gree does today; the
// others are kept in the driver for the execution paths that will use them.
var (
	flagDylibPath = flags.List("hip_dylib_path",
		"Path to search for an appropriate libamdhip64.so / amdhip64.dll. If any\npaths are provided, then only the given paths are searched. Otherwise,\nsystem heuristics are used to find the dylib. By default, each path is\ntreated as a directory name, but a distinct file can be given which\nmust match exactly by prefixing with 'file:'.")
	flagUseStreams = flags.Bool("hip_use_streams", true,
		"Use HIP streams (instead of graphs) for executing command buffers.")
	flagAllowInlineExecution = flags.Bool("hip_allow_inline_execution", false,
		"Allow command buffers to execute inline against HIP streams when\npossible.")
	flagAsyncAllocations = flags.Bool("hip_async_allocations", true,
		"Enables HIP asynchronous stream-ordered allocations when supported.")
	flagAsyncCaching = flags.Bool("hip_async_caching", true,
		"Enables caching of HIP asynchronous stream-ordered allocations.")
	flagTracing = flags.Int("hip_tracing", 2,
		"Controls the verbosity of tracing when Tracy instrumentation is enabled.\nThe impact to benchmark timing becomes more severe as the verbosity\nincreases, and thus should be only enabled when needed.\nPermissible values are:\n   0 : stream tracing disabled.\n   1 : coarse command buffer level tracing enabled.\n   2 : fine-grained kernel level tracing enabled.")
	flagDefaultIndex = flags.Int("hip_default_index", 0,
		"Specifies the index of the default HIP device to use")
)

// libraryName is the file looked for in --hip_dylib_path directories.
const libraryName = "libamdhip64.so"

// dylibPathEnv are the environment variables read, in order, when
// --hip_dylib_path is not given: IREE's (hip/registration/driver_module.c)
// and gree's alias. Each holds ';'-separated entries on every platform.
var dylibPathEnv = []string{"IREE_HIP_DYLIB_PATH", "GREE_HIP_DYLIB_PATH"}

// defaultCandidates are tried when no path is given: the loader's search
// (LD_LIBRARY_PATH, ld.so.cache) for the development and versioned names,
// then ROCm's default install prefix.
var defaultCandidates = []string{"libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6", "/opt/rocm/lib/libamdhip64.so"}

// librarySpec returns how to find libamdhip64 given the --hip_dylib_path
// entries and the environment. As in IREE, explicit entries replace the
// default search rather than extend it: the flag's, else the environment
// variables', else defaultCandidates. An entry "file:<path>" is loaded
// verbatim, an existing file as is, anything else as a directory holding
// libamdhip64.so (so a missing directory shows up in the error).
func librarySpec(flagPaths []string, getenv func(string) string) dylib.Spec {
	install := "install ROCm's HIP runtime (it provides libamdhip64.so; see https://rocm.docs.amd.com), or point gree at it with --hip_dylib_path=/opt/rocm/lib or IREE_HIP_DYLIB_PATH=/opt/rocm/lib"
	entries, source := flagPaths, "--hip_dylib_path"
	if len(entries) == 0 {
		source = ""
		for _, v := range dylibPathEnv {
			if s := getenv(v); s != "" {
				entries = append(entries, strings.Split(s, ";")...)
				if source == "" {
					source = v
				}
			}
		}
	}
	var candidates []string
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		if f, ok := strings.CutPrefix(e, "file:"); ok {
			candidates = append(candidates, f)
		} else if st, err := os.Stat(e); err == nil && !st.IsDir() {
			candidates = append(candidates, e)
		} else {
			candidates = append(candidates, filepath.Join(e, libraryName))
		}
	}
	if len(candidates) == 0 {
		candidates = defaultCandidates
	} else {
		install = fmt.Sprintf("only the paths from %s were searched; %s", source, install)
	}
	return dylib.Spec{What: libraryName, Candidates: candidates, Install: install}
}

// options are the flag values a driver was created with.
type options struct {
	useStreams           bool
	allowInlineExecution bool
	asyncAllocations     bool
	asyncCaching         bool
	tracing              int64
	defaultIndex         int
}

// driver is the hip HAL driver.
type driver struct {
	lib         *dylib.Library
	libraryPath string // the loaded file, as dladdr names it
	hip         api
	opts        options
}

var _ hal.Driver = (*driver)(nil)

// create loads libamdhip64 from spec, binds the API and initializes HIP.
func create(spec dylib.Spec) (*driver, error) {
	lib, err := dylib.Open(spec)
	if err != nil {
		return nil, err
	}
	d := &driver{lib: lib}
	if err := lib.Bind(&d.hip); err != nil {
		return nil, err
	}
	d.libraryPath = gpuinfo.SymbolPath(lib, "hipDeviceGet")
	if r := d.hip.Init(0); r != hipSuccess {
		return nil, initError(r, d.hip.errorName(r))
	}
	d.opts = options{
		useStreams:           *flagUseStreams,
		allowInlineExecution: *flagAllowInlineExecution,
		asyncAllocations:     *flagAsyncAllocations,
		asyncCaching:         *flagAsyncCaching,
		tracing:              *flagTracing,
		defaultIndex:         int(*flagDefaultIndex),
	}
	return d, nil
}

// Name returns "hip".
func (d *driver) Name() string { return Name }

// QueryAvailableDevices lists the GPUs in HIP's order.
func (d *driver) QueryAvailableDevices() ([]hal.DeviceInfo, error) {
	var count int32
	if err := d.hip.check(d.hip.GetDeviceCount(&count), "hipGetDeviceCount"); err != nil {
		return nil, err
	}
	devices := make([]hal.DeviceInfo, 0, count)
	for i := int32(0); i < count; i++ {
		var dev int32
		if err := d.hip.check(d.hip.DeviceGet(&dev, i), "hipDeviceGet"); err != nil {
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

// maxNameLength is IREE_HAL_HIP_MAX_DEVICE_NAME_LENGTH.
const maxNameLength = 128

// deviceName is hipDeviceGetName.
func (d *driver) deviceName(dev int32) (string, error) {
	var name [maxNameLength]byte
	if err := d.hip.check(d.hip.DeviceGetName(&name[0], int32(len(name)), dev), "hipDeviceGetName"); err != nil {
		return "", err
	}
	return dylib.GoString(name[:]), nil
}

// deviceInfo describes the device with handle dev.
func (d *driver) deviceInfo(dev int32) (hal.DeviceInfo, error) {
	name, err := d.deviceName(dev)
	if err != nil {
		return hal.DeviceInfo{}, err
	}
	var uuid [16]byte
	if err := d.hip.check(d.hip.DeviceGetUUID(&uuid, dev), "hipDeviceGetUuid"); err != nil {
		return hal.DeviceInfo{}, err
	}
	return hal.DeviceInfo{ID: hal.DeviceID(dev) + 1, Path: hal.FormatGPUUUID(uuid), Name: name}, nil
}

// handle is the hipDevice_t of a device id.
func handle(id hal.DeviceID) int32 { return int32(id - 1) }

// DumpDeviceInfo returns IREE's HIP --dump_devices text for the device.
func (d *driver) DumpDeviceInfo(id hal.DeviceID) (string, error) {
	devices, err := d.QueryAvailableDevices()
	if err != nil {
		return "", err
	}
	info, err := hal.FindDevice(Name, devices, id)
	if err != nil {
		return "", err
	}
	return formatDump(d.libraryPath, &source{hip: &d.hip, dev: handle(info.ID), name: info.Name})
}

// source reads dump values from libamdhip64 for one device.
type source struct {
	hip  *api
	dev  int32
	name string
}

func (s *source) attribute(attr int32) (int32, error) {
	var v int32
	if err := s.hip.check(s.hip.DeviceGetAttribute(&v, attr, s.dev), fmt.Sprintf("hipDeviceGetAttribute(%d)", attr)); err != nil {
		return 0, err
	}
	return v, nil
}

func (s *source) totalMemory() (uint64, error) {
	var n uintptr
	if err := s.hip.check(s.hip.DeviceTotalMem(&n, s.dev), "hipDeviceTotalMem"); err != nil {
		return 0, err
	}
	return uint64(n), nil
}

// archName fills hipDeviceProp_t with the newest entry point the library
// has and reads gcnArchName at that layout's offset (props.go).
func (s *source) archName() (string, error) {
	get, layout := s.hip.GetDevicePropertiesR0600, layoutR0600
	if get == nil {
		get, layout = s.hip.GetDevicePropertiesR0000, layoutR0000
	}
	if get == nil {
		return "", status.New(status.Unavailable, "the HIP runtime exports neither hipGetDevicePropertiesR0600 nor hipGetDeviceProperties; gree cannot read the GPU architecture name")
	}
	buf := make([]byte, propsBufferSize)
	if err := s.hip.check(get(&buf[0], s.dev), layout.symbol); err != nil {
		return "", err
	}
	return archNameFromProps(buf, layout, s.name)
}

// CreateDevice creates the device with the given id; 0 is the default
// device, as IREE_HAL_DEVICE_ID_DEFAULT is in IREE. Parameters are accepted
// and ignored.
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
	return d.open(info)
}

// CreateDeviceByPath creates the device a URI path names: "" (the default
// device), an ordinal, or a GPU-<uuid>. A comma-separated list, which IREE
// makes into one multi-queue device, is UNIMPLEMENTED; every entry is
// still checked, so a typo is reported as such.
func (d *driver) CreateDeviceByPath(path string, params map[string]string) (hal.Device, error) {
	devices, err := d.QueryAvailableDevices()
	if err != nil {
		return nil, err
	}
	if strings.Contains(path, ",") {
		var uris []string
		for _, p := range strings.Split(path, ",") {
			if p = strings.TrimSpace(p); p == "" {
				return nil, status.Errorf(status.InvalidArgument, "device path 'hip://%s' has an empty entry; expected ordinals or GPU-<uuid>s separated by commas", path)
			}
			info, err := hal.SelectDevice(Name, devices, p, d.opts.defaultIndex)
			if err != nil {
				return nil, err
			}
			uris = append(uris, "--device="+Name+"://"+info.Path)
		}
		return nil, status.Errorf(status.Unimplemented, "hip://%s names %d GPUs; IREE makes them one multi-queue device, which gree does not support yet; pass one device flag per GPU instead (%s)", path, len(uris), strings.Join(uris, " "))
	}
	info, err := hal.SelectDevice(Name, devices, path, d.opts.defaultIndex)
	if err != nil {
		return nil, err
	}
	return d.open(info)
}

// open retains the device's primary context.
func (d *driver) open(info hal.DeviceInfo) (*gpuinfo.ContextDevice, error) {
	h := handle(info.ID)
	var total, context uintptr
	if err := d.hip.check(d.hip.DeviceTotalMem(&total, h), "hipDeviceTotalMem"); err != nil {
		return nil, err
	}
	if err := d.hip.check(d.hip.PrimaryCtxRetain(&context, h), "hipDevicePrimaryCtxRetain"); err != nil {
		return nil, err
	}
	release := func() error { return d.hip.check(d.hip.PrimaryCtxRelease(h), "hipDevicePrimaryCtxRelease") }
	return gpuinfo.NewContextDevice(Name, info, uint64(total), release), nil
}

// Close releases nothing: libamdhip64 stays loaded for the life of the
// process and devices own their contexts.
func (d *driver) Close() error { return nil }
