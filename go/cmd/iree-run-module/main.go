// Command iree-run-module runs a function of a compiled module on a HAL
// device, and lists drivers and devices (--list_drivers, --list_devices,
// --dump_devices). Its flags are IREE's; see `iree-run-module --help`.
package main

import (
	"fmt"
	"os"

	"github.com/gree-ml/gree/go/runtime/flags"
	"github.com/gree-ml/gree/go/runtime/tooling"
)

const usage = `Runs a function within a compiled IREE module and handles I/O parsing
and optional expected value verification/output processing. Modules
can be provided by file path (--module=file.vmfb) or read from stdin
(--module=-) and the function to execute matches the original name
provided to the compiler (--function=foo for 'func.func @foo').

Usage: iree-run-module --module=file.vmfb --function=main --input=...`

var (
	modules  = flags.List("module", "A VM module to load; may be repeated. The last is the main module.\n'-' reads the module from stdin.")
	function = flags.String("function", "", "Name of a function contained in the module specified by --module= to run.\nMay be omitted when the module exports exactly one function.")
	_        = flags.List("device", "Device URI (e.g. local-task, cuda://0); may be repeated. Defaults to local-task.")
	_        = flags.List("input", "An input (a) value or (b) buffer of the format:\n  (a) scalar value\n     value\n     e.g.: --input=\"3.14\"\n  (b) buffer:\n     [shape]xtype=[value]\n     e.g.: --input=\"2x2xi32=1 2 3 4\"")
	_        = flags.List("output", "Specifies how to handle an output from the invocation: '' ignore, '-' print, '@file.npy' write, '+file.npy' append.")
	_        = flags.List("expected_output", "An expected function output following the same format as --input.")
)

func main() {
	tooling.DefineDeviceListingFlags(os.Stdout)
	tooling.ParseFlags("iree-run-module", usage, os.Args[1:], flags.UnknownIsError)
	if len(*modules) == 0 {
		fmt.Fprintln(os.Stderr, "INVALID_ARGUMENT; no user module specified; use --module=file.vmfb to load from a file or --module=- to load from stdin")
		os.Exit(1)
	}
	_ = function
	fmt.Fprintln(os.Stderr, "UNIMPLEMENTED; gree cannot load modules yet: the module format and VM are not built in this version; --list_drivers, --list_devices and --dump_devices work")
	os.Exit(1)
}
