package hal

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gree-ml/gree/go/status"
)

// FormatGPUUUID formats 16 UUID bytes as nvidia-smi -L prints them:
// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", lower-case hex.
func FormatGPUUUID(b [16]byte) string { return "GPU-" + FormatUUID(b) }

// FormatUUID formats 16 bytes as "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx".
func FormatUUID(b [16]byte) string {
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// SelectDevice picks the device a URI path names among devices, as the
// GPU drivers of IREE do: "" is the device at defaultIndex, a decimal
// integer is an ordinal, anything else must equal a device's Path (a
// "GPU-" prefix is optional on either side, so Vulkan's bare UUIDs and
// CUDA-style GPU-<uuid> paths both match, in any letter case).
func SelectDevice(driver string, devices []DeviceInfo, path string, defaultIndex int) (DeviceInfo, error) {
	if len(devices) == 0 {
		return DeviceInfo{}, status.Errorf(status.NotFound, "driver '%s' found no devices", driver)
	}
	if path == "" {
		if defaultIndex < 0 || defaultIndex >= len(devices) {
			return DeviceInfo{}, status.Errorf(status.OutOfRange, "default device index %d is out of range; driver '%s' has %d device(s)", defaultIndex, driver, len(devices))
		}
		return devices[defaultIndex], nil
	}
	if n, err := strconv.Atoi(path); err == nil {
		if n < 0 || n >= len(devices) {
			return DeviceInfo{}, status.Errorf(status.OutOfRange, "device ordinal %d is out of range; driver '%s' has %d device(s) (%s)", n, driver, len(devices), listURIs(driver, devices))
		}
		return devices[n], nil
	}
	want := normalizePath(path)
	for _, d := range devices {
		if normalizePath(d.Path) == want {
			return d, nil
		}
	}
	return DeviceInfo{}, status.Errorf(status.NotFound, "no device with path '%s' in driver '%s'; available: %s", path, driver, listURIs(driver, devices))
}

// FindDevice returns the device whose ID is id.
func FindDevice(driver string, devices []DeviceInfo, id DeviceID) (DeviceInfo, error) {
	for _, d := range devices {
		if d.ID == id {
			return d, nil
		}
	}
	var ids []string
	for _, d := range devices {
		ids = append(ids, strconv.FormatInt(int64(d.ID), 10))
	}
	return DeviceInfo{}, status.Errorf(status.NotFound, "device id %d not found in driver '%s'; available device ids: [%s]", id, driver, strings.Join(ids, ", "))
}

func normalizePath(p string) string {
	p = strings.ToLower(p)
	return strings.TrimPrefix(p, "gpu-")
}

func listURIs(driver string, devices []DeviceInfo) string {
	var s []string
	for _, d := range devices {
		s = append(s, driver+"://"+d.Path)
	}
	return strings.Join(s, ", ")
}
