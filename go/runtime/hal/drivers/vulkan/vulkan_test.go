package vulkan

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/internal/dylib"
	"github.com/gree-ml/gree/go/runtime/flags"
	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/hal/cts"
	"github.com/gree-ml/gree/go/status"
)

func TestConformance(t *testing.T) { cts.Run(t, Factory) }

// realDriver creates the driver, or skips with the reason where libvulkan
// or a Vulkan driver is missing.
func realDriver(t *testing.T, opts options) *driver {
	t.Helper()
	d, err := create(libvulkan, opts)
	if status.CodeOf(err) == status.Unavailable {
		t.Skipf("vulkan unavailable here: %v", err)
	}
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func TestFactory(t *testing.T) {
	if Factory.Name != "vulkan" || Factory.FullName != "Vulkan 1.x (dynamic)" {
		t.Errorf("factory = %q %q", Factory.Name, Factory.FullName)
	}
}

func TestRealEnumeration(t *testing.T) {
	d := realDriver(t, currentOptions())
	t.Logf("loader %s, instance apiVersion %s", formatVersion(d.loaderVersion), formatVersion(d.apiVersion))
	if !atLeast(d.apiVersion, apiVersion1_1) {
		t.Errorf("instance apiVersion %s < 1.1", formatVersion(d.apiVersion))
	}
	devices, err := d.QueryAvailableDevices()
	if err != nil {
		t.Fatal(err)
	}
	if len(devices) == 0 {
		t.Skip("the Vulkan loader lists no physical devices (of Vulkan 1.1 or newer)")
	}
	for i, info := range devices {
		pd := d.devices[i]
		if info.Name == "" || info.Name != strings.TrimSpace(info.Name) {
			t.Errorf("device %d: name %q", i, info.Name)
		}
		if len(info.Path) != 36 || strings.Count(info.Path, "-") != 4 || info.Path != strings.ToLower(info.Path) {
			t.Errorf("device %d: path %q is not a bare lower-case UUID", i, info.Path)
		}
		if info.Path != hal.FormatUUID(pd.id.deviceUUID) {
			t.Errorf("device %d: path %q != deviceUUID", i, info.Path)
		}
		if info.ID < 1 {
			t.Errorf("device %d: id %d, want ordinal+1", i, info.ID)
		}
		if !atLeast(pd.props.apiVersion, apiVersion1_1) {
			t.Errorf("device %d: api %s < 1.1", i, formatVersion(pd.props.apiVersion))
		}
		if _, ok := pd.computeQueueFamily(); !ok {
			t.Errorf("device %d: no compute queue family", i)
		}
		if pd.memory.memoryHeapCount < 1 || pd.memory.memoryTypeCount < 1 {
			t.Errorf("device %d: %d heaps, %d types", i, pd.memory.memoryHeapCount, pd.memory.memoryTypeCount)
		}
		if pd.subgroup.subgroupSize == 0 {
			t.Errorf("device %d: subgroup size 0", i)
		}
		if l := pd.props.limits; l.maxComputeWorkGroupInvocations < 128 || l.maxComputeWorkGroupSize[0] < 128 || l.maxComputeSharedMemorySize < 16384 {
			t.Errorf("device %d: limits below the Vulkan minimums (layout wrong?): %+v", i, l)
		}
		// Required minimums deep in VkPhysicalDeviceLimits: a wrong offset
		// reads garbage here.
		pow2 := func(x uint64) bool { return x != 0 && x&(x-1) == 0 }
		if l := pd.props.limits; l.maxPushConstantsSize < 128 || l.maxBoundDescriptorSets < 4 ||
			l.minMemoryMapAlignment < 64 || !pow2(uint64(l.minMemoryMapAlignment)) ||
			!pow2(l.nonCoherentAtomSize) || l.nonCoherentAtomSize > 256 ||
			!pow2(l.minStorageBufferOffsetAlignment) || l.minStorageBufferOffsetAlignment > 256 {
			t.Errorf("device %d: limits break the Vulkan requirements (layout wrong?): %+v", i, l)
		}
		if pd.hasDriverProps && strings.TrimSpace(string(pd.driverProps.driverName[:1])) == "" {
			t.Errorf("device %d: empty driverName", i)
		}
		dump, err := d.DumpDeviceInfo(info.ID)
		if err != nil {
			t.Fatalf("dump: %v", err)
		}
		t.Logf("vulkan://%s (%s):\n%s", info.Path, info.Name, dump)
		for _, key := range []string{"name: ", "path: ", "api: ", "type: ", "vendor_id: 0x", "device_id: 0x",
			"driver: ", "driver_info: ", "device_uuid: ", "driver_uuid: ", "features: bufferDeviceAddress=",
			"subgroup: size=", "limits: maxComputeWorkGroupSize=(", "queue_families: ", "  [0] count=",
			"memory_heaps: ", "memory_types: "} {
			if !strings.Contains(dump, "\n"+key) && !strings.HasPrefix(dump, key) {
				t.Errorf("dump lacks %q", key)
			}
		}
		if !strings.HasPrefix(dump, "name: "+info.Name+"\npath: "+info.Path+"\n") {
			t.Errorf("dump does not start with the name and path")
		}
		if !strings.Contains(dump, "compute") {
			t.Errorf("dump names no compute queue")
		}
	}
}

func TestRealCreateDevice(t *testing.T) {
	d := realDriver(t, currentOptions())
	devices, _ := d.QueryAvailableDevices()
	if len(devices) == 0 {
		t.Skip("no Vulkan devices")
	}
	info := devices[0]
	for _, path := range []string{"", "0", info.Path, "GPU-" + info.Path, strings.ToUpper(info.Path)} {
		dev, err := d.CreateDeviceByPath(path, nil)
		if err != nil {
			t.Errorf("CreateDeviceByPath(%q): %v", path, err)
			continue
		}
		v := dev.(*device)
		if v.ID() != "vulkan" || v.Info() != info {
			t.Errorf("path %q: ID %q Info %+v", path, v.ID(), v.Info())
		}
		if v.handle == 0 || v.queue == 0 {
			t.Errorf("path %q: device %#x queue %#x", path, v.handle, v.queue)
		}
		if d.devices[0].queueFamilies[v.queueFamily].queueFlags&queueComputeBit == 0 {
			t.Errorf("queue family %d has no compute bit", v.queueFamily)
		}
		if err := dev.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		if err := dev.Close(); err != nil {
			t.Errorf("second close: %v", err)
		}
	}
	dev, err := d.CreateDevice(0, nil)
	if err != nil || dev.Info() != info {
		t.Fatalf("CreateDevice(0) = %v, %v; want the first device", dev, err)
	}
	dev.Close()
	if _, err := d.CreateDeviceByPath("ffffffff-1111-2222-3333-444444444444", nil); status.CodeOf(err) != status.NotFound {
		t.Errorf("unknown uuid: %v", err)
	}
}

func TestRealDeviceOutlivesDriver(t *testing.T) {
	d := realDriver(t, currentOptions())
	devices, _ := d.QueryAvailableDevices()
	if len(devices) == 0 {
		t.Skip("no Vulkan devices")
	}
	dev, err := d.CreateDevice(devices[0].ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	if d.instance == 0 {
		t.Fatalf("instance destroyed while a device is open")
	}
	if _, err := d.CreateDevice(devices[0].ID, nil); status.CodeOf(err) != status.FailedPrecondition {
		t.Errorf("create after close: %v", err)
	}
	if err := dev.Close(); err != nil {
		t.Errorf("device close: %v", err)
	}
	if d.instance != 0 {
		t.Errorf("instance not destroyed after the last close")
	}
}

func TestRealBufferDeviceAddressFlag(t *testing.T) {
	for _, on := range []bool{true, false} {
		opts := currentOptions()
		opts.bufferDeviceAddresses = on
		d := realDriver(t, opts)
		devices, _ := d.QueryAvailableDevices()
		if len(devices) == 0 {
			t.Skip("no Vulkan devices")
		}
		dev, err := d.CreateDevice(devices[0].ID, nil)
		if err != nil {
			t.Fatalf("bufferDeviceAddresses=%v: %v", on, err)
		}
		if got, want := dev.(*device).bufferDeviceAddress, on && d.devices[0].bufferDeviceAddress; got != want {
			t.Errorf("bufferDeviceAddresses=%v: enabled %v, want %v", on, got, want)
		}
		dev.Close()
	}
}

func TestRealValidationLayers(t *testing.T) {
	var warnings []string
	saved := warn
	warn = func(msg string) { warnings = append(warnings, msg) }
	defer func() { warn = saved }()
	opts := currentOptions()
	opts.validationLayers = true
	d := realDriver(t, opts)
	enabled := len(d.layers) == 1 && d.layers[0] == validationLayer
	switch {
	case enabled && len(warnings) == 0:
		t.Logf("validation layer enabled")
	case !enabled && len(warnings) == 1 && strings.Contains(warnings[0], validationLayer) && strings.Contains(warnings[0], "vulkan-validationlayers"):
		t.Logf("validation layer missing; warned: %s", warnings[0])
	default:
		t.Errorf("layers %v, warnings %q", d.layers, warnings)
	}
	devices, _ := d.QueryAvailableDevices()
	if len(devices) > 0 {
		dev, err := d.CreateDevice(devices[0].ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		dev.Close()
	}
}

// TestNoDriverIsUnavailable points the loader at a driver manifest that
// does not exist, in a child process (the loader reads the C environment,
// which os.Setenv may not reach), so vkCreateInstance fails with
// VK_ERROR_INCOMPATIBLE_DRIVER.
func TestNoDriverIsUnavailable(t *testing.T) {
	if os.Getenv("GREE_VULKAN_NO_ICD_CHILD") == "1" {
		_, err := create(libvulkan, options{})
		if status.CodeOf(err) != status.Unavailable {
			t.Fatalf("code = %v, want UNAVAILABLE (%v)", status.CodeOf(err), err)
		}
		for _, want := range []string{"vkCreateInstance failed: VK_ERROR_INCOMPATIBLE_DRIVER (-9)", "mesa-vulkan-drivers", "nvidia_icd.json"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q lacks %q", err, want)
			}
		}
		return
	}
	realDriver(t, options{}).Close() // skips without libvulkan
	cmd := exec.Command(os.Args[0], "-test.run=^TestNoDriverIsUnavailable$", "-test.v")
	cmd.Env = append(os.Environ(), "GREE_VULKAN_NO_ICD_CHILD=1",
		"VK_DRIVER_FILES=/nonexistent/gree-test/icd.json", "VK_ICD_FILENAMES=/nonexistent/gree-test/icd.json",
		"VK_ADD_DRIVER_FILES=", "VK_LOADER_LAYERS_DISABLE=~all~")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: TestNoDriverIsUnavailable") {
		t.Fatalf("child did not pass:\n%s", out)
	}
}

// TestNoValidationErrors reruns the tests that call Vulkan in a child
// process with the Khronos validation layer forced on; the layer prints
// "Validation Error" (including leaked objects at vkDestroyInstance) to
// stdout, so the child's output must contain none.
func TestNoValidationErrors(t *testing.T) {
	if os.Getenv("GREE_VULKAN_VALIDATION_CHILD") == "1" {
		t.Skip("in the child")
	}
	realDriver(t, options{}).Close() // skips without libvulkan
	lib, err := dylib.Open(libvulkan)
	if err != nil {
		t.Fatal(err)
	}
	var loader loaderAPI
	var global globalAPI
	if err := lib.Bind(&loader); err != nil {
		t.Fatal(err)
	}
	if err := bindProcs(&global, func(n string) uintptr { return loader.GetInstanceProcAddr(0, n) }, "test"); err != nil {
		t.Fatal(err)
	}
	layers, err := instanceLayers(&global)
	if err != nil {
		t.Fatal(err)
	}
	if !layers[validationLayer] {
		t.Skipf("%s is not installed (apt-get install vulkan-validationlayers)", validationLayer)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^(TestConformance|TestReal.*)$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "GREE_VULKAN_VALIDATION_CHILD=1", "VK_INSTANCE_LAYERS="+validationLayer)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "Validation Error") || strings.Contains(string(out), "VUID-") {
		t.Errorf("the validation layer reported errors:\n%s", out)
	}
	if !strings.Contains(string(out), "--- PASS: TestRealCreateDevice") {
		t.Errorf("child did not run the device tests:\n%s", out)
	}
}

func TestMissingLibraryIsUnavailableAndNamesLibvulkan(t *testing.T) {
	spec := libvulkan
	spec.Candidates = []string{"/nonexistent/gree-test/libvulkan.so.1", "libvulkan-gree-test-missing.so.1"}
	_, err := create(spec, options{})
	if status.CodeOf(err) != status.Unavailable {
		t.Fatalf("code = %v, want UNAVAILABLE (%v)", status.CodeOf(err), err)
	}
	for _, want := range []string{"libvulkan.so.1", "/nonexistent/gree-test/libvulkan.so.1", "libvulkan-gree-test-missing.so.1", "apt-get install libvulkan1 mesa-vulkan-drivers"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestFactoryErrorWhenUnavailable(t *testing.T) {
	d, err := Factory.Create()
	if err == nil {
		d.Close()
		t.Skip("libvulkan loaded and vkCreateInstance succeeded here")
	}
	if status.CodeOf(err) != status.Unavailable {
		t.Fatalf("code = %v, want UNAVAILABLE (%v)", status.CodeOf(err), err)
	}
	if d != nil {
		t.Errorf("Create returned a non-nil driver %#v with its error", d)
	}
	if !strings.Contains(err.Error(), "libvulkan.so.1") && !strings.Contains(err.Error(), "VK_ERROR_") {
		t.Errorf("error names neither libvulkan.so.1 nor a VkResult: %v", err)
	}
}

func TestFlagsRegistered(t *testing.T) {
	help := flags.Default.Help()
	for _, want := range []string{
		"--vulkan_validation_layers=false\n",
		"--vulkan_debug_verbosity=2\n",
		"--vulkan_dispatch_abi=\"all\"\n",
		"--vulkan_buffer_device_addresses=true\n",
	} {
		if !strings.Contains(help, want) {
			t.Errorf("flag help lacks %q", want)
		}
	}
	if o := currentOptions(); o.validationLayers || o.debugVerbosity != 2 || o.dispatchABI != "all" || !o.bufferDeviceAddresses {
		t.Errorf("default options = %+v", o)
	}
}

func TestNoComputeQueueIsUnavailable(t *testing.T) {
	d := &driver{refs: 1}
	pd := &physicalDevice{
		info:          hal.DeviceInfo{ID: 1, Path: "00000000-1111-2222-3333-444444444444", Name: "Graphics Only"},
		queueFamilies: []queueFamilyProperties{{queueFlags: queueGraphicsBit | queueTransferBit, queueCount: 4}, {queueFlags: queueComputeBit, queueCount: 0}},
	}
	_, err := d.open(pd)
	if status.CodeOf(err) != status.Unavailable || !strings.Contains(err.Error(), "VK_QUEUE_COMPUTE_BIT") || !strings.Contains(err.Error(), "Graphics Only") {
		t.Errorf("err = %v", err)
	}
	if d.refs != 1 {
		t.Errorf("refs = %d after a failed open", d.refs)
	}
	pd.queueFamilies = append(pd.queueFamilies, queueFamilyProperties{queueFlags: queueComputeBit | queueTransferBit, queueCount: 1})
	if f, ok := pd.computeQueueFamily(); !ok || f != 2 {
		t.Errorf("computeQueueFamily = %d, %v; want 2", f, ok)
	}
}
