package vulkan

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

func TestResultNames(t *testing.T) {
	for r, want := range map[int32]string{
		0:           "VK_SUCCESS",
		5:           "VK_INCOMPLETE",
		-1:          "VK_ERROR_OUT_OF_HOST_MEMORY",
		-4:          "VK_ERROR_DEVICE_LOST",
		-9:          "VK_ERROR_INCOMPATIBLE_DRIVER",
		-13:         "VK_ERROR_UNKNOWN",
		-1000069000: "VK_ERROR_OUT_OF_POOL_MEMORY",
		-1000011001: "VK_ERROR_VALIDATION_FAILED_EXT",
		1000297000:  "VK_PIPELINE_COMPILE_REQUIRED",
		-77:         "VkResult(-77)",
	} {
		if got := resultName(r); got != want {
			t.Errorf("resultName(%d) = %q, want %q", r, got, want)
		}
	}
}

func TestCheck(t *testing.T) {
	if err := check(vkSuccess, "vkX"); err != nil {
		t.Errorf("success: %v", err)
	}
	if err := check(vkIncomplete, "vkX"); err != nil {
		t.Errorf("VK_INCOMPLETE is a success code: %v", err)
	}
	err := check(vkErrorOutOfDeviceMemory, "vkCreateDevice")
	if status.CodeOf(err) != status.ResourceExhausted || !strings.Contains(err.Error(), "vkCreateDevice failed: VK_ERROR_OUT_OF_DEVICE_MEMORY (-2)") {
		t.Errorf("err = %v", err)
	}
	if got := resultCode(vkErrorIncompatibleDriver); got != status.Unavailable {
		t.Errorf("INCOMPATIBLE_DRIVER → %v", got)
	}
	if got := resultCode(vkErrorExtensionNotPresent); got != status.Unimplemented {
		t.Errorf("EXTENSION_NOT_PRESENT → %v", got)
	}
	if got := resultCode(-12345); got != status.Internal {
		t.Errorf("unknown → %v", got)
	}
}

func TestInstanceErrorNamesResultAndFix(t *testing.T) {
	err := instanceError(vkErrorIncompatibleDriver, nil)
	if status.CodeOf(err) != status.Unavailable {
		t.Errorf("code = %v, want UNAVAILABLE", status.CodeOf(err))
	}
	for _, want := range []string{"vkCreateInstance failed: VK_ERROR_INCOMPATIBLE_DRIVER (-9)", "mesa-vulkan-drivers", "lavapipe", "nvidia_icd.json"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	err = instanceError(vkErrorLayerNotPresent, []string{validationLayer})
	if status.CodeOf(err) != status.Unavailable || !strings.Contains(err.Error(), validationLayer) {
		t.Errorf("layer: %v", err)
	}
	err = instanceError(vkErrorInitializationFail, nil)
	if !strings.Contains(err.Error(), "VK_ERROR_INITIALIZATION_FAILED (-3)") || !strings.Contains(err.Error(), "vulkaninfo") {
		t.Errorf("init failed: %v", err)
	}
}

func TestVersions(t *testing.T) {
	for v, want := range map[uint32]string{
		makeAPIVersion(0, 1, 3, 230):  "1.3.230",
		makeAPIVersion(0, 1, 1, 0):    "1.1.0",
		makeAPIVersion(0, 1, 2, 4095): "1.2.4095",
		4206830:                       "1.3.238", // 1<<22 | 3<<12 | 238
		makeAPIVersion(1, 1, 0, 0):    "variant 1 1.0.0",
	} {
		if got := formatVersion(v); got != want {
			t.Errorf("formatVersion(%#x) = %q, want %q", v, got, want)
		}
	}
	if apiVersion1_3 != 4206592 || apiVersion1_1 != 4198400 {
		t.Errorf("VK_API_VERSION_1_3 = %d, VK_API_VERSION_1_1 = %d", apiVersion1_3, apiVersion1_1)
	}
	for loader, want := range map[uint32]uint32{
		makeAPIVersion(0, 1, 3, 239): apiVersion1_3,
		makeAPIVersion(0, 1, 4, 300): apiVersion1_3,
		makeAPIVersion(0, 1, 2, 198): apiVersion1_2,
		makeAPIVersion(0, 1, 1, 70):  apiVersion1_1,
	} {
		if got := instanceAPIVersion(loader); got != want {
			t.Errorf("instanceAPIVersion(%s) = %s, want %s", formatVersion(loader), formatVersion(got), formatVersion(want))
		}
	}
	if !atLeast(makeAPIVersion(0, 1, 1, 0), apiVersion1_1) || atLeast(makeAPIVersion(0, 1, 0, 999), apiVersion1_1) ||
		!atLeast(makeAPIVersion(0, 2, 0, 0), apiVersion1_3) || atLeast(makeAPIVersion(0, 1, 2, 4095), apiVersion1_3) {
		t.Errorf("atLeast is wrong")
	}
}

func TestFlagNames(t *testing.T) {
	for v, want := range map[uint32]string{
		0:                 "none",
		0x1:               "graphics",
		0x7:               "graphics|compute|transfer",
		0xf:               "graphics|compute|transfer|sparse",
		0x2 | 0x8:         "compute|sparse",
		0x20 | 0x40:       "video-decode|video-encode",
		0x2 | 0x10 | 0x80: "compute|protected|0x80",
	} {
		if got := formatQueueFlags(v); got != want {
			t.Errorf("formatQueueFlags(%#x) = %q, want %q", v, got, want)
		}
	}
	if got := formatMemoryProperties(0xf); got != "device-local|host-visible|host-coherent|host-cached" {
		t.Errorf("memory flags 0xf = %q", got)
	}
	if got := formatMemoryProperties(0); got != "none" {
		t.Errorf("memory flags 0 = %q", got)
	}
	for ty, want := range map[uint32]string{0: "other", 1: "integrated-gpu", 2: "discrete-gpu", 3: "virtual-gpu", 4: "cpu", 9: "unknown(9)"} {
		if got := formatDeviceType(ty); got != want {
			t.Errorf("formatDeviceType(%d) = %q, want %q", ty, got, want)
		}
	}
}

func TestBindProcsNullIsAnError(t *testing.T) {
	var table instanceAPI
	err := bindProcs(&table, func(name string) uintptr {
		if name == "vkCreateDevice" || name == "vkDestroyInstance" {
			return 0
		}
		return 0x1000 // never called
	}, "vkGetInstanceProcAddr(instance)")
	if status.CodeOf(err) != status.Unavailable {
		t.Fatalf("code = %v (%v)", status.CodeOf(err), err)
	}
	if !strings.Contains(err.Error(), "vkDestroyInstance, vkCreateDevice") || !strings.Contains(err.Error(), "NULL") {
		t.Errorf("err = %v", err)
	}
	if table.EnumeratePhysicalDevices != nil || table.DestroyInstance != nil {
		t.Errorf("bindProcs set fields although it failed")
	}
	// An optional command may be missing.
	var g globalAPI
	var asked []string
	err = bindProcs(&g, func(name string) uintptr {
		asked = append(asked, name)
		return 0
	}, "x")
	if err == nil || strings.Contains(err.Error(), "vkEnumerateInstanceVersion") || !strings.Contains(err.Error(), "vkCreateInstance") {
		t.Errorf("optional: %v", err)
	}
	if len(asked) != 4 {
		t.Errorf("asked %v", asked)
	}
	if err := bindProcs(g, nil, "x"); status.CodeOf(err) != status.Internal {
		t.Errorf("non-pointer: %v", err)
	}
}

func TestSelectLayers(t *testing.T) {
	available := map[string]bool{"VK_LAYER_MESA_device_select": true}
	enable, warnings, err := selectLayers(available, []string{validationLayer}, nil)
	if err != nil || len(enable) != 0 || len(warnings) != 1 || !strings.Contains(warnings[0], validationLayer) {
		t.Errorf("optional missing: %v %q %v", enable, warnings, err)
	}
	available[validationLayer] = true
	enable, warnings, err = selectLayers(available, []string{validationLayer}, nil)
	if err != nil || len(warnings) != 0 || !cmp.Equal(enable, []string{validationLayer}) {
		t.Errorf("optional present: %v %q %v", enable, warnings, err)
	}
	_, _, err = selectLayers(map[string]bool{}, nil, []string{validationLayer})
	if status.CodeOf(err) != status.Unavailable || !strings.Contains(err.Error(), "required Vulkan layer "+validationLayer) {
		t.Errorf("required missing: %v", err)
	}
}

func TestFormatDump(t *testing.T) {
	pd := &physicalDevice{
		info:           hal.DeviceInfo{ID: 1, Path: "00000000-1111-2222-3333-444444444444", Name: "Test GPU"},
		hasDriverProps: true,
		queueFamilies: []queueFamilyProperties{
			{queueFlags: 0xf, queueCount: 1, timestampValidBits: 64},
			{queueFlags: 0x6, queueCount: 4, timestampValidBits: 36},
		},
		bufferDeviceAddress: true,
	}
	copy(pd.props.deviceName[:], "Test GPU")
	pd.props.apiVersion = makeAPIVersion(0, 1, 3, 275)
	pd.props.deviceType = 2
	pd.props.vendorID = 0x1002
	pd.props.deviceID = 0x744c
	pd.props.limits.maxComputeWorkGroupSize = [3]uint32{1024, 1024, 1024}
	pd.props.limits.maxComputeWorkGroupInvocations = 1024
	pd.props.limits.maxComputeSharedMemorySize = 65536
	copy(pd.driverProps.driverName[:], "radv")
	copy(pd.driverProps.driverInfo[:], "Mesa 24.0.5")
	pd.id.deviceUUID = [16]byte{0, 0, 0, 0, 0x11, 0x11, 0x22, 0x22, 0x33, 0x33, 0x44, 0x44, 0x44, 0x44, 0x44, 0x44}
	pd.id.driverUUID = [16]byte{0xde, 0xad, 0xbe, 0xef}
	pd.subgroup = physicalDeviceSubgroupProperties{subgroupSize: 64, supportedStages: 0x20, supportedOperations: 0xff}
	pd.memory.memoryHeapCount = 2
	pd.memory.memoryHeaps[0] = memoryHeap{size: 48 << 30, flags: 1}
	pd.memory.memoryHeaps[1] = memoryHeap{size: 16 << 30}
	pd.memory.memoryTypeCount = 2
	pd.memory.memoryTypes[0] = memoryType{propertyFlags: 0x1, heapIndex: 0}
	pd.memory.memoryTypes[1] = memoryType{propertyFlags: 0x6, heapIndex: 1}
	want := `name: Test GPU
path: 00000000-1111-2222-3333-444444444444
api: 1.3.275
type: discrete-gpu
vendor_id: 0x1002
device_id: 0x744c
driver: radv
driver_info: Mesa 24.0.5
device_uuid: 00000000-1111-2222-3333-444444444444
driver_uuid: deadbeef-0000-0000-0000-000000000000
features: bufferDeviceAddress=1
subgroup: size=64 stages=0x20 operations=0xff
limits: maxComputeWorkGroupSize=(1024, 1024, 1024) maxComputeWorkGroupInvocations=1024 maxComputeSharedMemorySize=65536
queue_families: 2
  [0] count=1 flags=graphics|compute|transfer|sparse timestampValidBits=64
  [1] count=4 flags=compute|transfer timestampValidBits=36
memory_heaps: 2
  [0] size=51539607552 flags=0x1
  [1] size=17179869184 flags=0x0
memory_types: 2
  [0] heap=0 flags=device-local
  [1] heap=1 flags=host-visible|host-coherent
`
	if diff := cmp.Diff(want, formatDump(pd)); diff != "" {
		t.Errorf("dump (-want +got):\n%s", diff)
	}
	pd.hasDriverProps = false
	if got := formatDump(pd); !strings.Contains(got, "\ndriver: unknown\ndriver_info: unknown\n") {
		t.Errorf("without driver properties:\n%s", got)
	}
}
