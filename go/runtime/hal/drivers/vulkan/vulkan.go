package vulkan

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"unsafe"

	"github.com/gree-ml/gree/go/internal/dylib"
	"github.com/gree-ml/gree/go/runtime/flags"
	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

// Name is the driver name.
const Name = "vulkan"

// Factory registers the vulkan driver.
var Factory = hal.Factory{
	Name:     Name,
	FullName: "Vulkan 1.x (dynamic)",
	Create: func() (hal.Driver, error) {
		d, err := create(libvulkan, currentOptions())
		if err != nil {
			return nil, err // a nil interface, not a typed nil *driver
		}
		return d, nil
	},
}

// The driver flags, as IREE's vulkan/registration/driver_module.cc names
// them.
var (
	flagValidationLayers = flags.Bool("vulkan_validation_layers", false,
		"Enables standard Vulkan validation layers (VK_LAYER_KHRONOS_validation)\nwhen they are installed.")
	flagDebugVerbosity = flags.Int("vulkan_debug_verbosity", 2,
		"Cutoff for debug output;\n0=none, 1=errors, 2=warnings, 3=info, 4=debug.")
	flagDispatchABI = flags.String("vulkan_dispatch_abi", "all",
		"Executable dispatch ABIs the device accepts (\"all\" or a comma-separated list).")
	flagBufferDeviceAddresses = flags.Bool("vulkan_buffer_device_addresses", true,
		"Enables the bufferDeviceAddress feature (VK_KHR_buffer_device_address)\non devices that support it, for executables that use physical storage\nbuffer pointers.")
)

// libvulkan is how the driver finds the Vulkan loader.
var libvulkan = dylib.Spec{
	What:       "libvulkan.so.1",
	Candidates: []string{"libvulkan.so.1", "libvulkan.so"},
	Install:    "install the Vulkan loader and a driver, e.g. apt-get install libvulkan1 mesa-vulkan-drivers",
}

// validationLayer is the layer --vulkan_validation_layers enables.
const validationLayer = "VK_LAYER_KHRONOS_validation"

// options are the flag values a driver is created with.
type options struct {
	validationLayers      bool
	debugVerbosity        int64
	dispatchABI           string
	bufferDeviceAddresses bool
	// disabled names features (as features.byName spells them) the
	// driver leaves off although the device has them: the tests use it
	// to run the fallbacks (descriptor pools, host semaphores) and the
	// capability checks on a device that has everything.
	disabled map[string]bool
}

func currentOptions() options {
	return options{
		validationLayers:      *flagValidationLayers,
		debugVerbosity:        *flagDebugVerbosity,
		dispatchABI:           *flagDispatchABI,
		bufferDeviceAddresses: *flagBufferDeviceAddresses,
	}
}

// warn reports a problem that does not stop the driver (a requested but
// optional layer that is not installed). Tests replace it.
var warn = func(msg string) { fmt.Fprintf(os.Stderr, "gree: vulkan: %s\n", msg) }

// driver is the vulkan HAL driver: one VkInstance and the physical devices
// it enumerated when it was created.
type driver struct {
	opts          options
	loaderVersion uint32 // vkEnumerateInstanceVersion, or 1.0 without it
	apiVersion    uint32 // the instance's apiVersion
	layers        []string
	instance      uintptr
	vk            instanceAPI
	devices       []*physicalDevice

	// The instance is destroyed when the driver and every device created
	// from it are closed: refs counts the driver itself plus open devices.
	mu     sync.Mutex
	refs   int
	closed bool

	// The debug messenger of --vulkan_validation_layers (debug.go).
	messenger uint64
	debugKey  uintptr
	valMu     sync.Mutex
	valErrors []string
}

var _ hal.Driver = (*driver)(nil)

// physicalDevice is what the driver learned about one VkPhysicalDevice.
type physicalDevice struct {
	handle              uintptr
	info                hal.DeviceInfo
	props               physicalDeviceProperties
	id                  physicalDeviceIDProperties
	hasDriverProps      bool
	driverProps         physicalDeviceDriverProperties
	subgroup            physicalDeviceSubgroupProperties
	queueFamilies       []queueFamilyProperties
	memory              physicalDeviceMemoryProperties
	extensions          map[string]bool
	bufferDeviceAddress bool // the bufferDeviceAddress feature is supported
}

// computeQueueFamily returns the index of the first queue family with
// VK_QUEUE_COMPUTE_BIT.
func (pd *physicalDevice) computeQueueFamily() (uint32, bool) {
	for i, q := range pd.queueFamilies {
		if q.queueFlags&queueComputeBit != 0 && q.queueCount > 0 {
			return uint32(i), true
		}
	}
	return 0, false
}

// create loads the loader from spec, creates a VkInstance and enumerates
// the physical devices.
func create(spec dylib.Spec, opts options) (*driver, error) {
	lib, err := dylib.Open(spec)
	if err != nil {
		return nil, err
	}
	var loader loaderAPI
	if err := lib.Bind(&loader); err != nil {
		return nil, err
	}
	var global globalAPI
	if err := bindProcs(&global, func(name string) uintptr { return loader.GetInstanceProcAddr(0, name) },
		"vkGetInstanceProcAddr(NULL) in "+lib.Path); err != nil {
		return nil, err
	}
	d := &driver{opts: opts, loaderVersion: apiVersion1_0}
	if global.EnumerateInstanceVersion != nil {
		var v uint32
		if r := global.EnumerateInstanceVersion(&v); r == vkSuccess {
			d.loaderVersion = v
		}
	}
	if !atLeast(d.loaderVersion, apiVersion1_1) {
		return nil, status.Errorf(status.Unavailable, "the Vulkan loader %s implements Vulkan %s; gree needs 1.1 or newer: update the loader (libvulkan1)", lib.Path, formatVersion(d.loaderVersion))
	}
	d.apiVersion = instanceAPIVersion(d.loaderVersion)

	var layers []string
	if opts.validationLayers {
		available, err := instanceLayers(&global)
		if err != nil {
			return nil, err
		}
		var warnings []string
		layers, warnings, err = selectLayers(available, []string{validationLayer}, nil)
		if err != nil {
			return nil, err
		}
		for _, w := range warnings {
			warn("--vulkan_validation_layers: " + w)
		}
	}
	d.layers = layers
	var extensions []string
	var createFlags uint32
	if len(layers) > 0 {
		// The validation layer reports through VK_EXT_debug_utils.
		available, err := instanceExtensions(&global)
		if err != nil {
			return nil, err
		}
		if available["VK_EXT_debug_utils"] {
			extensions = append(extensions, "VK_EXT_debug_utils")
		}
	}
	if runtime.GOOS == "darwin" {
		// MoltenVK is a portability driver: the loader lists it only when
		// the instance asks for portability drivers.
		available, err := instanceExtensions(&global)
		if err != nil {
			return nil, err
		}
		if available["VK_KHR_portability_enumeration"] {
			extensions = append(extensions, "VK_KHR_portability_enumeration")
			createFlags |= 0x1 // VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR
		}
	}

	if err := d.createInstance(&global, loader.GetInstanceProcAddr, createFlags, extensions); err != nil {
		return nil, err
	}
	d.refs = 1
	if len(layers) > 0 {
		if err := d.createMessenger(); err != nil {
			d.vk.DestroyInstance(d.instance, nil)
			return nil, err
		}
	}
	if err := d.enumerate(); err != nil {
		d.destroyMessenger()
		d.vk.DestroyInstance(d.instance, nil)
		return nil, err
	}
	return d, nil
}

// createInstance creates d.instance and binds the instance commands.
func (d *driver) createInstance(global *globalAPI, getProcAddr func(uintptr, string) uintptr, createFlags uint32, extensions []string) error {
	var m cmem
	defer m.free()
	app := &applicationInfo{
		sType:              sTypeApplicationInfo,
		pApplicationName:   m.str("gree"),
		applicationVersion: 0,
		pEngineName:        m.str("gree"),
		engineVersion:      0,
		apiVersion:         d.apiVersion,
	}
	info := &instanceCreateInfo{
		sType:            sTypeInstanceCreateInfo,
		flags:            createFlags,
		pApplicationInfo: m.pin(unsafe.Pointer(app)),
	}
	info.ppEnabledLayerNames, info.enabledLayerCount = m.strs(d.layers)
	info.ppEnabledExtensionNames, info.enabledExtensionCount = m.strs(extensions)
	m.pin(unsafe.Pointer(info))
	var instance uintptr
	if r := global.CreateInstance(info, nil, &instance); r != vkSuccess {
		return instanceError(r, d.layers)
	}
	if instance == 0 {
		return status.New(status.Unavailable, "vkCreateInstance returned VK_SUCCESS and a NULL instance")
	}
	lookup := func(name string) uintptr { return getProcAddr(instance, name) }
	if err := bindProcs(&d.vk, lookup, "vkGetInstanceProcAddr(instance)"); err != nil {
		var destroy struct {
			DestroyInstance func(uintptr, unsafe.Pointer) `proc:"vkDestroyInstance"`
		}
		if bindProcs(&destroy, lookup, "vkGetInstanceProcAddr(instance)") == nil {
			destroy.DestroyInstance(instance, nil)
		}
		return err
	}
	d.instance = instance
	return nil
}

// instanceLayers lists the installed instance layers.
func instanceLayers(g *globalAPI) (map[string]bool, error) {
	for {
		var count uint32
		if err := check(g.EnumerateInstanceLayerProperties(&count, nil), "vkEnumerateInstanceLayerProperties"); err != nil {
			return nil, err
		}
		props := make([]layerProperties, count+1) // never empty: &props[0] is valid
		r := g.EnumerateInstanceLayerProperties(&count, &props[0])
		if r == vkIncomplete {
			continue // a layer was installed between the calls
		}
		if err := check(r, "vkEnumerateInstanceLayerProperties"); err != nil {
			return nil, err
		}
		names := map[string]bool{}
		for _, p := range props[:count] {
			names[dylib.GoString(p.layerName[:])] = true
		}
		return names, nil
	}
}

// instanceExtensions lists the instance extensions of the loader and the
// implicit layers.
func instanceExtensions(g *globalAPI) (map[string]bool, error) {
	for {
		var count uint32
		if err := check(g.EnumerateInstanceExtensionProperties(nil, &count, nil), "vkEnumerateInstanceExtensionProperties"); err != nil {
			return nil, err
		}
		props := make([]extensionProperties, count+1)
		r := g.EnumerateInstanceExtensionProperties(nil, &count, &props[0])
		if r == vkIncomplete {
			continue
		}
		if err := check(r, "vkEnumerateInstanceExtensionProperties"); err != nil {
			return nil, err
		}
		return extensionNames(props[:count]), nil
	}
}

func extensionNames(props []extensionProperties) map[string]bool {
	names := map[string]bool{}
	for _, p := range props {
		names[dylib.GoString(p.extensionName[:])] = true
	}
	return names
}

// selectLayers returns the layers to enable: every required and every
// available optional layer. A missing optional layer yields a warning and
// is left out; a missing required one is an UNAVAILABLE error.
func selectLayers(available map[string]bool, optional, required []string) (enable []string, warnings []string, err error) {
	for _, l := range required {
		if !available[l] {
			return nil, nil, status.Errorf(status.Unavailable, "required Vulkan layer %s is not installed; %s", l, layerInstallHint(l))
		}
		enable = append(enable, l)
	}
	for _, l := range optional {
		if available[l] {
			enable = append(enable, l)
		} else {
			warnings = append(warnings, fmt.Sprintf("layer %s is not installed; continuing without it (%s)", l, layerInstallHint(l)))
		}
	}
	return enable, warnings, nil
}

func layerInstallHint(layer string) string {
	if layer == validationLayer {
		return "install vulkan-validationlayers or the Vulkan SDK"
	}
	return "install the layer or the Vulkan SDK"
}

// enumerate fills d.devices. Devices below Vulkan 1.1 are left out: they
// cannot report the device UUID that names them.
func (d *driver) enumerate() error {
	var handles []uintptr
	for {
		var count uint32
		if err := check(d.vk.EnumeratePhysicalDevices(d.instance, &count, nil), "vkEnumeratePhysicalDevices"); err != nil {
			return err
		}
		handles = make([]uintptr, count+1)
		r := d.vk.EnumeratePhysicalDevices(d.instance, &count, &handles[0])
		if r == vkIncomplete {
			continue
		}
		if err := check(r, "vkEnumeratePhysicalDevices"); err != nil {
			return err
		}
		handles = handles[:count]
		break
	}
	for ordinal, h := range handles {
		pd, err := d.query(h)
		if err != nil {
			return err
		}
		if pd == nil {
			continue
		}
		pd.info = hal.DeviceInfo{
			ID:   hal.DeviceID(ordinal) + 1,
			Path: hal.FormatUUID(pd.id.deviceUUID),
			Name: dylib.GoString(pd.props.deviceName[:]),
		}
		d.devices = append(d.devices, pd)
	}
	return nil
}

// query reads the properties of physical device h; nil for devices below
// Vulkan 1.1.
func (d *driver) query(h uintptr) (*physicalDevice, error) {
	pd := &physicalDevice{handle: h}
	d.vk.GetPhysicalDeviceProperties(h, &pd.props)
	if !atLeast(pd.props.apiVersion, apiVersion1_1) {
		return nil, nil
	}
	exts, err := d.deviceExtensions(h)
	if err != nil {
		return nil, err
	}
	pd.extensions = exts

	// VkPhysicalDeviceProperties2 → ID → subgroup [→ driver].
	var m cmem
	defer m.free()
	pd.id.sType = sTypePhysicalDeviceIDProperties
	pd.subgroup.sType = sTypePhysicalDeviceSubgroupProperties
	pd.id.pNext = m.pin(unsafe.Pointer(&pd.subgroup))
	pd.hasDriverProps = atLeast(pd.props.apiVersion, apiVersion1_2) || exts["VK_KHR_driver_properties"]
	if pd.hasDriverProps {
		pd.driverProps.sType = sTypePhysicalDeviceDriverProperties
		pd.subgroup.pNext = m.pin(unsafe.Pointer(&pd.driverProps))
	}
	props2 := &physicalDeviceProperties2{sType: sTypePhysicalDeviceProperties2, pNext: m.pin(unsafe.Pointer(&pd.id))}
	m.pin(unsafe.Pointer(props2))
	d.vk.GetPhysicalDeviceProperties2(h, props2)
	pd.id.pNext, pd.subgroup.pNext = nil, nil
	pd.props = props2.properties

	// The bufferDeviceAddress feature (core 1.2, an extension before).
	if atLeast(pd.props.apiVersion, apiVersion1_2) || exts["VK_KHR_buffer_device_address"] {
		bda := &physicalDeviceBufferDeviceAddressFeatures{sType: sTypePhysicalDeviceBufferDeviceAddressFeat}
		features := &physicalDeviceFeatures2{sType: sTypePhysicalDeviceFeatures2, pNext: m.pin(unsafe.Pointer(bda))}
		m.pin(unsafe.Pointer(features))
		d.vk.GetPhysicalDeviceFeatures2(h, features)
		pd.bufferDeviceAddress = bda.bufferDeviceAddress != 0
	}

	var count uint32
	d.vk.GetPhysicalDeviceQueueFamilyProperties(h, &count, nil)
	families := make([]queueFamilyProperties, count+1)
	d.vk.GetPhysicalDeviceQueueFamilyProperties(h, &count, &families[0])
	pd.queueFamilies = families[:count]

	d.vk.GetPhysicalDeviceMemoryProperties(h, &pd.memory)
	if pd.memory.memoryTypeCount > maxMemoryTypes || pd.memory.memoryHeapCount > maxMemoryHeaps {
		return nil, status.Errorf(status.Internal, "vkGetPhysicalDeviceMemoryProperties reported %d types and %d heaps (at most %d and %d)", pd.memory.memoryTypeCount, pd.memory.memoryHeapCount, maxMemoryTypes, maxMemoryHeaps)
	}
	return pd, nil
}

// deviceExtensions lists the extensions of physical device h.
func (d *driver) deviceExtensions(h uintptr) (map[string]bool, error) {
	for {
		var count uint32
		if err := check(d.vk.EnumerateDeviceExtensionProperties(h, nil, &count, nil), "vkEnumerateDeviceExtensionProperties"); err != nil {
			return nil, err
		}
		props := make([]extensionProperties, count+1)
		r := d.vk.EnumerateDeviceExtensionProperties(h, nil, &count, &props[0])
		if r == vkIncomplete {
			continue
		}
		if err := check(r, "vkEnumerateDeviceExtensionProperties"); err != nil {
			return nil, err
		}
		return extensionNames(props[:count]), nil
	}
}

// Name returns "vulkan".
func (d *driver) Name() string { return Name }

// QueryAvailableDevices lists the physical devices in the loader's order.
func (d *driver) QueryAvailableDevices() ([]hal.DeviceInfo, error) {
	infos := make([]hal.DeviceInfo, len(d.devices))
	for i, pd := range d.devices {
		infos[i] = pd.info
	}
	return infos, nil
}

// find returns the physical device with the given id.
func (d *driver) find(id hal.DeviceID) (*physicalDevice, error) {
	infos, _ := d.QueryAvailableDevices()
	info, err := hal.FindDevice(Name, infos, id)
	if err != nil {
		return nil, err
	}
	return d.byInfo(info), nil
}

func (d *driver) byInfo(info hal.DeviceInfo) *physicalDevice {
	for _, pd := range d.devices {
		if pd.info == info {
			return pd
		}
	}
	return nil
}

// DumpDeviceInfo describes the device: identity, driver, subgroup and
// compute limits, queue families and memory.
func (d *driver) DumpDeviceInfo(id hal.DeviceID) (string, error) {
	pd, err := d.find(id)
	if err != nil {
		return "", err
	}
	return formatDump(pd), nil
}

// CreateDevice creates the device with the given id; 0 is the default
// (first) device, as IREE_HAL_DEVICE_ID_DEFAULT is in IREE.
func (d *driver) CreateDevice(id hal.DeviceID, params map[string]string) (hal.Device, error) {
	if id == 0 {
		return d.CreateDeviceByPath("", params)
	}
	pd, err := d.find(id)
	if err != nil {
		return nil, err
	}
	return d.open(pd)
}

// CreateDeviceByPath creates the device a URI path names: "" (the first
// device), an ordinal, or the device UUID (with or without "GPU-").
func (d *driver) CreateDeviceByPath(path string, params map[string]string) (hal.Device, error) {
	infos, _ := d.QueryAvailableDevices()
	info, err := hal.SelectDevice(Name, infos, path, 0)
	if err != nil {
		return nil, err
	}
	return d.open(d.byInfo(info))
}

// retain counts a new device against the instance.
func (d *driver) retain() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return status.New(status.FailedPrecondition, "the vulkan driver is closed")
	}
	d.refs++
	return nil
}

// release drops one reference; the last destroys the instance.
func (d *driver) release() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.refs--
	if d.refs == 0 && d.instance != 0 {
		d.destroyMessenger()
		d.vk.DestroyInstance(d.instance, nil)
		d.instance = 0
	}
}

// Close releases the driver's hold on the VkInstance; it is destroyed once
// every device created from it is closed too.
func (d *driver) Close() error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	d.closed = true
	d.mu.Unlock()
	d.release()
	return nil
}

// open creates a VkDevice with one queue from the first compute-capable
// queue family.
func (d *driver) open(pd *physicalDevice) (*device, error) {
	family, ok := pd.computeQueueFamily()
	if !ok {
		return nil, status.Errorf(status.Unavailable, "Vulkan device %q (vulkan://%s) has no queue family with VK_QUEUE_COMPUTE_BIT; gree runs dispatches on a compute queue", pd.info.Name, pd.info.Path)
	}
	if err := d.retain(); err != nil {
		return nil, err
	}
	dev, err := d.createDevice(pd, family)
	if err != nil {
		d.release()
		return nil, err
	}
	return dev, nil
}

func (d *driver) createDevice(pd *physicalDevice, family uint32) (*device, error) {
	var m cmem
	defer m.free()
	priority := new(float32)
	*priority = 1
	queueInfo := &deviceQueueCreateInfo{
		sType:            sTypeDeviceQueueCreateInfo,
		queueFamilyIndex: family,
		queueCount:       1,
		pQueuePriorities: m.pin(unsafe.Pointer(priority)),
	}
	info := &deviceCreateInfo{
		sType:                sTypeDeviceCreateInfo,
		queueCreateInfoCount: 1,
		pQueueCreateInfos:    m.pin(unsafe.Pointer(queueInfo)),
	}
	// The optional features: query what the device has, enable that.
	q := newFeatureQuery(pd, d.apiVersion)
	d.vk.GetPhysicalDeviceFeatures2(pd.handle, q.chain(&m))
	disabled := d.opts.disabled
	if !d.opts.bufferDeviceAddresses {
		disabled = mergeDisabled(disabled, "bufferDeviceAddress")
	}
	f := q.read(disabled)
	extensions := append([]string(nil), q.extensions...)
	f.pushDescriptor = pd.extensions["VK_KHR_push_descriptor"] && !disabled["pushDescriptor"]
	f.externalMemoryHost = pd.extensions["VK_EXT_external_memory_host"] && !disabled["externalMemoryHost"]
	lim := d.queryLimits(pd, q, &f)
	if f.pushDescriptor {
		extensions = append(extensions, "VK_KHR_push_descriptor")
	}
	if f.externalMemoryHost {
		extensions = append(extensions, "VK_EXT_external_memory_host")
	}
	q.enable(f)
	info.pNext = unsafe.Pointer(q.chain(&m))
	info.ppEnabledExtensionNames, info.enabledExtensionCount = m.strs(extensions)
	m.pin(unsafe.Pointer(info))
	var handle uintptr
	if err := check(d.vk.CreateDevice(pd.handle, info, nil, &handle), "vkCreateDevice"); err != nil {
		return nil, fmt.Errorf("creating vulkan://%s (%s) with features %s and extensions %v: %w", pd.info.Path, pd.info.Name, f, extensions, err)
	}
	dev := &device{driver: d, info: pd.info, handle: handle, queueFamily: family, bufferDeviceAddress: f.bufferDeviceAddress,
		features: f, limits: lim, memory: pd.memory}
	lookup := func(name string) uintptr { return d.vk.GetDeviceProcAddr(handle, name) }
	if err := bindProcs(&dev.vk, lookup, "vkGetDeviceProcAddr"); err != nil {
		var destroy struct {
			DestroyDevice func(uintptr, unsafe.Pointer) `proc:"vkDestroyDevice"`
		}
		if bindProcs(&destroy, lookup, "vkGetDeviceProcAddr") == nil {
			destroy.DestroyDevice(handle, nil)
		}
		return nil, err
	}
	// Features whose commands the device did not give are left off.
	if dev.vk.GetSemaphoreCounterValue == nil || dev.vk.SignalSemaphore == nil || dev.vk.WaitSemaphores == nil {
		dev.features.timelineSemaphore = false
	}
	dev.initTimestamps(pd.props.limits.timestampPeriod, pd.queueFamilies[family].timestampValidBits)
	if dev.vk.CmdPushDescriptorSetKHR == nil {
		dev.features.pushDescriptor = false
	}
	if dev.vk.GetMemoryHostPointerPropertiesEXT == nil {
		dev.features.externalMemoryHost = false
	}
	dev.vk.GetDeviceQueue(handle, family, 0, &dev.queue)
	if dev.queue == 0 {
		dev.vk.DestroyDevice(handle, nil)
		return nil, status.Errorf(status.Internal, "vkGetDeviceQueue returned a NULL queue for family %d of vulkan://%s", family, pd.info.Path)
	}
	if err := dev.init(); err != nil {
		dev.destroy()
		return nil, err
	}
	return dev, nil
}

func mergeDisabled(m map[string]bool, name string) map[string]bool {
	out := map[string]bool{name: true}
	for k, v := range m {
		out[k] = v
	}
	return out
}
