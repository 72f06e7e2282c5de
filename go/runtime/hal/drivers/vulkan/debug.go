package vulkan

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/gree-ml/gree/go/status"
)

// With --vulkan_validation_layers the driver registers a
// VK_EXT_debug_utils messenger: messages at or above
// --vulkan_debug_verbosity are printed to stderr, and every validation
// error is also kept, so that the device operation during which it was
// reported (preparing an executable, a submission) fails with it.

// VkDebugUtilsMessageSeverityFlagBitsEXT and message types.
const (
	debugSeverityVerbose = 0x1
	debugSeverityInfo    = 0x10
	debugSeverityWarning = 0x100
	debugSeverityError   = 0x1000
	debugTypesAll        = 0x1 | 0x2 | 0x4
)

// debugLog prints a debug message; tests replace it.
var debugLog = func(msg string) { fmt.Fprintf(os.Stderr, "gree: vulkan: %s\n", msg) }

// The one C callback every driver's messenger shares (purego callbacks
// are never freed): user data is a key into debugDrivers.
var (
	debugOnce     sync.Once
	debugCallback uintptr
	debugMu       sync.Mutex
	debugDrivers  = map[uintptr]*driver{}
	debugNextKey  uintptr
)

func onDebugMessage(severity, types uint32, data *debugUtilsMessengerCallbackData, user uintptr) uint32 {
	debugMu.Lock()
	d := debugDrivers[user]
	debugMu.Unlock()
	if d == nil || data == nil {
		return 0
	}
	d.debugMessage(severity, cString(data.pMessageIdName), cString(data.pMessage))
	return 0 // VK_FALSE: the call goes on
}

// cString copies a NUL-terminated C string.
func cString(p *byte) string {
	if p == nil {
		return ""
	}
	var b strings.Builder
	for q := unsafe.Pointer(p); *(*byte)(q) != 0; q = unsafe.Add(q, 1) {
		b.WriteByte(*(*byte)(q))
	}
	return b.String()
}

// severityThreshold is the lowest severity --vulkan_debug_verbosity
// prints (0: nothing).
func severityThreshold(verbosity int64) uint32 {
	switch {
	case verbosity <= 0:
		return 0
	case verbosity == 1:
		return debugSeverityError
	case verbosity == 2:
		return debugSeverityWarning
	case verbosity == 3:
		return debugSeverityInfo
	}
	return debugSeverityVerbose
}

func severityName(s uint32) string {
	switch {
	case s&debugSeverityError != 0:
		return "error"
	case s&debugSeverityWarning != 0:
		return "warning"
	case s&debugSeverityInfo != 0:
		return "info"
	}
	return "debug"
}

// debugMessage prints and keeps one message.
func (d *driver) debugMessage(severity uint32, id, msg string) {
	if t := severityThreshold(d.opts.debugVerbosity); t != 0 && severity >= t {
		debugLog(fmt.Sprintf("[%s] %s: %s", severityName(severity), id, msg))
	}
	if severity&debugSeverityError != 0 {
		d.valMu.Lock()
		d.valErrors = append(d.valErrors, id+": "+msg)
		d.valMu.Unlock()
	}
}

// createMessenger registers the debug messenger on the instance.
func (d *driver) createMessenger() error {
	if d.vk.CreateDebugUtilsMessenger == nil || d.vk.DestroyDebugUtilsMessenger == nil {
		return nil
	}
	debugOnce.Do(func() { debugCallback = purego.NewCallback(onDebugMessage) })
	debugMu.Lock()
	debugNextKey++
	key := debugNextKey
	debugDrivers[key] = d
	debugMu.Unlock()
	info := &debugUtilsMessengerCreateInfo{
		sType:           sTypeDebugUtilsMessengerCreateInfo,
		messageSeverity: debugSeverityVerbose | debugSeverityInfo | debugSeverityWarning | debugSeverityError,
		messageType:     debugTypesAll,
		pfnUserCallback: debugCallback,
		pUserData:       key,
	}
	if err := check(d.vk.CreateDebugUtilsMessenger(d.instance, info, nil, &d.messenger), "vkCreateDebugUtilsMessengerEXT"); err != nil {
		debugMu.Lock()
		delete(debugDrivers, key)
		debugMu.Unlock()
		return err
	}
	d.debugKey = key
	return nil
}

// destroyMessenger unregisters the messenger (before the instance goes).
func (d *driver) destroyMessenger() {
	if d.messenger == 0 {
		return
	}
	d.vk.DestroyDebugUtilsMessenger(d.instance, d.messenger, nil)
	d.messenger = 0
	debugMu.Lock()
	delete(debugDrivers, d.debugKey)
	debugMu.Unlock()
}

// validationMark returns a mark for validationSince.
func (d *driver) validationMark() int {
	d.valMu.Lock()
	defer d.valMu.Unlock()
	return len(d.valErrors)
}

// validationSince returns the validation errors reported since mark as
// one INTERNAL error (nil when there were none).
func (d *driver) validationSince(mark int) error {
	d.valMu.Lock()
	defer d.valMu.Unlock()
	if len(d.valErrors) <= mark {
		return nil
	}
	return status.Errorf(status.Internal, "Vulkan validation error (the driver misused Vulkan; please report it): %s", strings.Join(d.valErrors[mark:], "; "))
}
