package tooling

import (
	"fmt"
	"io"
	"strings"

	"github.com/gree-ml/gree/go/runtime/hal"
)

var (
	bigRule   = "# " + strings.Repeat("=", 76) + "\n"
	smallRule = "# ===" + strings.Repeat("-", 70) + "===\n"
)

// ListDrivers writes the --list_drivers text: a banner, then each driver's
// name right-aligned in 16 columns and its full name.
func ListDrivers(w io.Writer, r *hal.Registry) {
	fmt.Fprint(w, bigRule)
	fmt.Fprint(w, "# Available HAL drivers\n")
	fmt.Fprint(w, bigRule)
	fmt.Fprint(w, "# Use --list_devices={driver name} to enumerate available devices.\n\n")
	for _, f := range r.Factories() {
		fmt.Fprintf(w, "%16s: %s\n", f.Name, f.FullName)
	}
}

// ListDevices writes one "driver://path" line per device. With driver == ""
// every registered driver is listed and drivers that cannot be created are
// skipped silently; naming a driver makes its creation failure an error.
// An error while querying a created driver is always returned.
func ListDevices(w io.Writer, r *hal.Registry, driver string) error {
	return forEachDriver(r, driver, func(d hal.Driver, devices []hal.DeviceInfo) error {
		for _, info := range devices {
			fmt.Fprintf(w, "%s://%s\n", d.Name(), info.Path)
		}
		return nil
	})
}

// DumpDevices writes the --dump_devices text for one driver or all of them.
func DumpDevices(w io.Writer, r *hal.Registry, driver string) error {
	first := true
	return forEachDriver(r, driver, func(d hal.Driver, devices []hal.DeviceInfo) error {
		if !first {
			fmt.Fprint(w, "\n")
		}
		first = false
		fmt.Fprint(w, bigRule)
		fmt.Fprintf(w, "# Enumerated devices for driver '%s'\n", d.Name())
		fmt.Fprint(w, bigRule)
		fmt.Fprint(w, "\n")
		for _, info := range devices {
			fmt.Fprint(w, smallRule)
			fmt.Fprintf(w, "# --device=%s://%s\n", d.Name(), info.Path)
			fmt.Fprintf(w, "#   %s\n", info.Name)
			fmt.Fprint(w, smallRule)
			text, err := d.DumpDeviceInfo(info.ID)
			if err != nil {
				return fmt.Errorf("dumping %s://%s: %w", d.Name(), info.Path, err)
			}
			fmt.Fprint(w, text)
		}
		return nil
	})
}

func forEachDriver(r *hal.Registry, driver string, fn func(hal.Driver, []hal.DeviceInfo) error) error {
	names := []string{driver}
	if driver == "" {
		names = r.Names()
	}
	for _, name := range names {
		d, err := r.CreateDriver(name)
		if err != nil {
			if driver == "" {
				continue
			}
			return err
		}
		devices, err := d.QueryAvailableDevices()
		if err == nil {
			err = fn(d, devices)
		} else {
			err = fmt.Errorf("querying devices of driver '%s': %w", name, err)
		}
		d.Close()
		if err != nil {
			return err
		}
	}
	return nil
}
