// Command iree-benchmark-module times the functions of a module on a HAL
// device and prints Google-Benchmark-style rows (BM_<function>); see
// `iree-benchmark-module --help`.
package main

import (
	"os"
	"time"

	"github.com/gree-ml/gree/go/runtime/flags"
	"github.com/gree-ml/gree/go/runtime/tooling"
)

const usage = `Benchmarks a function within a compiled IREE module.

Usage: iree-benchmark-module --module=file.vmfb [--function=main --input=...]`

var (
	modules  = flags.List("module", "A VM module to load; may be repeated. The last is the main module.")
	function = flags.String("function", "", "Function to benchmark; empty benchmarks every export that takes no inputs.")
	device   = flags.String("device", "", "Device URI (default local-task).")
	inputs   = flags.List("input", "An input value or buffer, as iree-run-module's --input.")
	reps     = flags.Int("benchmark_repetitions", 1, "Number of times to repeat each benchmark (aggregates are reported for more than 1).")
	minTime  = flags.String("benchmark_min_time", "0.5s", "Minimum time per benchmark run, e.g. 0.5s or 100x is not supported.")
	timeUnit = flags.String("time_unit", "ms", "Time unit of the results: ms, us or ns.")
	_        = flags.Int("batch_size", 1, "Accepted for compatibility; gree times one call per iteration.")
	_        = flags.Bool("print_statistics", false, "Accepted for compatibility.")
	dstats   = flags.Bool("print_dispatch_statistics", false, "gree: after the benchmarks, print each CPU (local-sync/local-task) dispatch's count and wall time, largest total first, to stderr.")
)

func main() {
	tooling.DefineDeviceListingFlags(os.Stdout)
	tooling.ParseFlags("iree-benchmark-module", usage, os.Args[1:], flags.UnknownIsKept)
	mt, err := time.ParseDuration(*minTime)
	if err != nil {
		mt = 500 * time.Millisecond
	}
	code := tooling.RunBenchmarks(tooling.BenchOptions{
		Modules: *modules, Function: *function, Device: *device, Inputs: *inputs,
		Repetitions: int(*reps), MinTime: mt, TimeUnit: *timeUnit,
		DispatchStatistics: *dstats,
	}, os.Stdin, os.Stdout, os.Stderr)
	os.Exit(tooling.FinishTrace(code, os.Stderr))
}
