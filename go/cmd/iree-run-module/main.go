// Command iree-run-module runs a function of a compiled module on a HAL
// device, and lists drivers and devices (--list_drivers, --list_devices,
// --dump_devices). Its flags are IREE's; see `iree-run-module --help`.
package main

import (
	"bufio"
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

func main() {
	tooling.DefineDeviceListingFlags(os.Stdout)
	options := tooling.DefineRunFlags()
	tooling.ParseFlags("iree-run-module", usage, os.Args[1:], flags.UnknownIsError)
	o, err := options()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(tooling.FinishTrace(1, os.Stderr))
	}
	out := bufio.NewWriter(os.Stdout)
	code := tooling.RunModule(o, os.Stdin, tooling.SyncWriter{Writer: out}, os.Stderr)
	out.Flush()
	os.Exit(tooling.FinishTrace(code, os.Stderr))
}
