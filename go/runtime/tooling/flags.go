package tooling

import (
	"fmt"
	"io"
	"os"

	"github.com/gree-ml/gree/go/runtime"
	"github.com/gree-ml/gree/go/runtime/flags"
)

// exit is os.Exit; tests replace it.
var exit = os.Exit

// deviceAllocators is --device_allocator (nil until defined).
var deviceAllocators *[]string

// DeviceAllocators returns the --device_allocator specs given, in order.
func DeviceAllocators() []string {
	if deviceAllocators == nil {
		return nil
	}
	return *deviceAllocators
}

// DefineDeviceListingFlags defines --list_drivers, --list_devices[=driver]
// and --dump_devices[=driver] in flags.Default. As in IREE they act while
// the flags are parsed: print to w and exit (0, or 1 on error), so flags
// after them are never processed. It also defines --device_allocator
// (see DeviceAllocators), which every tool that creates devices takes.
func DefineDeviceListingFlags(w io.Writer) {
	deviceAllocators = flags.List("device_allocator", "Specifies one or more HAL device allocator specs to augment the base\ndevice allocator, in order: caching[:<heap>=<max size>;<capacity>;<count>,...]\n(pools released buffers by size class) or debug (red zones and a poisoned\nquarantine that report overruns and use after free).")
	flags.Callback("list_drivers", "Lists all available HAL drivers compiled into the binary.", func(string) error {
		ListDrivers(w, runtime.Drivers())
		exit(0)
		return nil
	})
	flags.Callback("list_devices", "Lists all available HAL devices from all drivers or a specific driver (--list_devices=cuda).", func(v string) error {
		finish(ListDevices(w, runtime.Drivers(), v))
		return nil
	})
	flags.Callback("dump_devices", "Dumps detailed information on all available HAL devices from all drivers or a specific driver (--dump_devices=cuda).", func(v string) error {
		finish(DumpDevices(w, runtime.Drivers(), v))
		return nil
	})
}

func finish(err error) {
	if err != nil {
		fmt.Fprintf(os.Stderr, "%v\n", err)
		exit(1)
	}
	exit(0)
}

// ParseFlags parses a runtime tool's command line (without the program
// name) into flags.Default, handling --help (banner, usage, every flag as a
// flagfile; exit 0) and errors (IREE's red "FLAGS ERROR" banner and the
// status on stderr; exit 1). It returns the positional arguments.
func ParseFlags(program, usage string, args []string, mode flags.Mode) []string {
	for _, a := range args {
		if a == "--help" {
			fmt.Printf("# 👻 IREE: %s\n# (gree %s)\n\n%s\n", program, runtime.Version, usage)
			fmt.Print(flags.Default.Help())
			exit(0)
		}
	}
	rest, err := flags.Parse(args, mode)
	if err != nil {
		fmt.Fprintf(os.Stderr, "\x1b[31mFLAGS ERROR: (╯°□°)╯︵👻\x1b[0m\n%v\n", err)
		exit(1)
	}
	return rest
}
