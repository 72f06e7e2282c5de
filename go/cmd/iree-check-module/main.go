// Command iree-check-module runs the test functions of a check-test module
// (functions with no arguments and no results that call check.expect_*),
// printing gtest-style results; see `iree-check-module --help`.
package main

import (
	"fmt"
	"os"

	"github.com/gree-ml/gree/go/runtime"
	"github.com/gree-ml/gree/go/runtime/flags"
	"github.com/gree-ml/gree/go/runtime/tooling"
)

const usage = `Runs all exported functions of a check-test module as tests.

Usage: iree-check-module --device=local-task --module=file.vmfb`

var (
	modules       = flags.List("module", "A VM module to load; may be repeated. The last is the module under test.")
	device        = flags.String("device", "", "Device URI to run on (default local-task).")
	expectFailure = flags.Bool("expect_failure", false, "Whether the tests are expected to fail.")
	filter        = flags.String("gtest_filter", "", "Run only tests whose name contains this text ('*' accepted as 'all').")
)

func main() {
	tooling.DefineDeviceListingFlags(os.Stdout)
	rest := tooling.ParseFlags("iree-check-module", usage, os.Args[1:], flags.UnknownIsKept)
	paths := *modules
	for _, a := range rest {
		// IREE accepts the module path positionally too.
		if len(a) > 0 && a[0] != '-' {
			paths = append(paths, a)
		}
	}
	if len(paths) == 0 {
		fmt.Fprintln(os.Stderr, "INVALID_ARGUMENT; no user module specified; use --module=file.vmfb to load from a file or --module=- to load from stdin")
		os.Exit(tooling.FinishTrace(1, os.Stderr))
	}
	mods, err := tooling.LoadModules(paths, os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(tooling.FinishTrace(1, os.Stderr))
	}
	s, err := runtime.NewSessionFor(runtime.DeviceOptions{URIs: []string{*device}, Allocators: tooling.DeviceAllocators()})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(tooling.FinishTrace(1, os.Stderr))
	}
	defer s.Close()
	f := *filter
	if f == "*" {
		f = ""
	}
	code := tooling.RunChecks(s.Device, mods, tooling.CheckOptions{ExpectFailure: *expectFailure, Filter: f}, os.Stdout)
	// --trace_output's timeline is written on every exit.
	os.Exit(tooling.FinishTrace(code, os.Stderr))
}
