// Command iree-benchmark-executable times one entry point of one
// executable, dispatched on a HAL device directly (no VM, no host
// program), as IREE's tool of that name does; see
// `iree-benchmark-executable --help`.
package main

import (
	"os"
	"time"

	"github.com/gree-ml/gree/go/runtime/flags"
	"github.com/gree-ml/gree/go/runtime/tooling"
)

const usage = `Benchmarks a single entry point within an executable.

The executable comes from a module file (--executable_file=m.vmfb; gree's
--executable=N picks one, else the first of --executable_format) or is an
executable payload of --executable_format. Bindings, push constants and
workgroup counts must be given as the entry point expects them.

Example:
  iree-benchmark-executable --device=local-task --executable_file=m.vmfb \
    --entry_point=0 --binding=4xf32=1,2,3,4 --binding=4xf32=5,6,7,8 \
    --binding=4xf32=0 --workgroup_count=1,1,1`

var (
	device   = flags.String("device", "", "Device URI (default local-task).")
	file     = flags.String("executable_file", "", "Path to the executable to load: a module file, or an executable payload of --executable_format.")
	format   = flags.String("executable_format", "", "Format of the executable (gree's names: vmvx-bytecode, llvm-cpu-elf, vulkan-spirv-fb, cuda-nvptx-fb; IREE's vmvx-bytecode-fb and embedded-elf-* name gree's).")
	exeIndex = flags.Int("executable", -1, "gree: index of the executable within a module file (default: the first of --executable_format, or the first).")
	entry    = flags.String("entry_point", "0", "Entry point ordinal (or name) to run.")
	wgs      = flags.List("workgroup_count", "`x,y,z` workgroup count of each benchmark (one benchmark per occurrence).")
	bindings = flags.List("binding", "Appends a binding: shape, element type and data as iree-run-module's --input (4xf32=1,2,3,4).")
	consts   = flags.List("constant", "Appends a 32-bit push constant value.")
	exConsts = flags.List("executable_constant", "Appends an executable (specialization) constant; gree's executables take none.")
	batch    = flags.Int("batch_size", 64, "Number of dispatches per command buffer submission.")
	reps     = flags.Int("benchmark_repetitions", 1, "Number of times to repeat each benchmark (aggregates are reported for more than 1).")
	minTime  = flags.String("benchmark_min_time", "0.5s", "Minimum time per benchmark run, e.g. 0.5s.")
	timeUnit = flags.String("time_unit", "ns", "Time unit of the results: ms, us or ns.")
)

func main() {
	tooling.DefineDeviceListingFlags(os.Stdout)
	tooling.ParseFlags("iree-benchmark-executable", usage, os.Args[1:], flags.UnknownIsError)
	mt, err := time.ParseDuration(*minTime)
	if err != nil {
		mt = 500 * time.Millisecond
	}
	code := tooling.RunBenchmarkExecutable(tooling.BenchExeOptions{
		Device: *device, File: *file, Format: *format, Executable: int(*exeIndex), EntryPoint: *entry,
		WorkgroupCounts: *wgs, Bindings: *bindings, Constants: *consts, ExecutableConstants: *exConsts,
		BatchSize: int(*batch), MinTime: mt, Repetitions: int(*reps), TimeUnit: *timeUnit,
	}, os.Stdout, os.Stderr)
	os.Exit(tooling.FinishTrace(code, os.Stderr))
}
