package tooling

import (
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	gree "github.com/gree-ml/gree/go/runtime"
	"github.com/gree-ml/gree/go/runtime/hal/local"
	"github.com/gree-ml/gree/go/runtime/tooling/vio"
	"github.com/gree-ml/gree/go/runtime/vm"
	"github.com/gree-ml/gree/go/status"
)

// BenchOptions are iree-benchmark-module's settings.
type BenchOptions struct {
	Modules     []string
	Function    string
	Device      string
	Inputs      []string
	Repetitions int
	MinTime     time.Duration
	TimeUnit    string // ms, us or ns
	// DispatchStatistics prints the local devices' dispatch profile
	// (wall time per entry point) to stderr after the rows.
	DispatchStatistics bool
}

// processCPU returns the CPU time the process has used (all threads).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

type benchRow struct {
	name       string
	real, cpu  float64 // per iteration, in seconds
	iterations int64
	// rate is items_per_second: one item per iteration over real time
	// (IREE's SetItemsProcessed), aggregated as a counter of its own.
	rate float64
}

// RunBenchmarks times each function as Google Benchmark's
// MeasureProcessCPUTime()->UseRealTime() does and prints its console
// table: the context to stderr, the rows to stdout. It returns the exit
// code.
func RunBenchmarks(o BenchOptions, stdin io.Reader, stdout, stderr io.Writer) int {
	if err := runBenchmarks(o, stdin, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

func runBenchmarks(o BenchOptions, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(o.Modules) == 0 {
		return status.New(status.InvalidArgument, "no user module specified; use --module=file.vmfb to load from a file or --module=- to load from stdin")
	}
	mods, err := LoadModules(o.Modules, stdin)
	if err != nil {
		return err
	}
	s, err := gree.NewSessionFor(gree.DeviceOptions{URIs: []string{o.Device}, Allocators: DeviceAllocators()})
	if err != nil {
		return err
	}
	defer s.Close()
	for _, m := range mods {
		if err := s.AddModule(m); err != nil {
			return err
		}
	}
	main := mods[len(mods)-1]
	type job struct {
		fn   string
		args []vm.Value
	}
	var jobs []job
	if o.Function == "" && len(o.Inputs) > 0 {
		fn, err := gree.ResolveFunction(main, "")
		if err != nil {
			return status.Annotate(err, "--input given without --function")
		}
		o.Function = fn
	}
	if o.Function != "" {
		f, ok := main.Lookup(o.Function)
		if !ok {
			return status.Errorf(status.NotFound, "function '%s' not found in module '%s'", o.Function, main.Name())
		}
		cc := f.CConv()
		argCC, _, _ := strings.Cut(cc[1:], "_")
		if gree.IsCoarseFences(f) {
			argCC = argCC[:len(argCC)-2] // CallSync passes the fences
		}
		args, err := vio.ParseInputsFor(o.Inputs, argCC, f.ArgTypes)
		if err != nil {
			return status.Annotate(err, "parsing function inputs")
		}
		// Inputs live on the device before timing starts (as IREE's tool
		// allocates them there): a GPU's calls then time the work, not a
		// copy of host memory per call.
		if args, err = s.PlaceInputs(args); err != nil {
			return err
		}
		jobs = append(jobs, job{o.Function, args})
	} else {
		for _, name := range main.ExportNames() {
			if strings.HasPrefix(name, "__") || strings.Contains(name, "$") {
				continue
			}
			f, _ := main.Lookup(name)
			if !strings.HasPrefix(f.CConv(), "0_") {
				continue // only functions without inputs can be benchmarked unattended
			}
			jobs = append(jobs, job{name, nil})
		}
	}
	if len(jobs) == 0 {
		return status.Errorf(status.InvalidArgument, "no function to benchmark: module '%s' exports no function without inputs; pass --function= and --input=", main.Name())
	}
	unit, scale, err := timeUnit(o.TimeUnit)
	if err != nil {
		return err
	}
	reps := max(o.Repetitions, 1)
	minTime := o.MinTime
	if minTime <= 0 {
		minTime = 500 * time.Millisecond
	}
	host, _ := os.Hostname()
	fmt.Fprintf(stderr, "%s\nRunning %s\nRun on %s (%d X CPU s)\n", time.Now().Format("2006-01-02T15:04:05-07:00"), "iree-benchmark-module", host, runtime.NumCPU())
	var rows []benchRow
	if o.DispatchStatistics {
		p := local.EnableDispatchProfile()
		defer func() {
			local.DisableDispatchProfile()
			p.Write(stderr)
		}()
	}
	for _, j := range jobs {
		name := "BM_" + j.fn + "/process_time/real_time"
		var reals, cpus, rates []float64
		for r := 0; r < reps; r++ {
			row, err := measure(s, main.Name(), j.fn, j.args, minTime)
			if err != nil {
				return err
			}
			row.name = name
			rows = append(rows, row)
			reals, cpus, rates = append(reals, row.real), append(cpus, row.cpu), append(rates, row.rate)
		}
		rows = appendAggregates(rows, name, reals, cpus, rates, reps)
	}
	printBenchRows(stdout, rows, unit, scale)
	return nil
}

// timeUnit returns the --time_unit's name and its scale from seconds.
func timeUnit(unit string) (string, float64, error) {
	switch unit {
	case "", "ms":
		return "ms", 1e3, nil
	case "us":
		return "us", 1e6, nil
	case "ns":
		return "ns", 1e9, nil
	}
	return "", 0, status.Errorf(status.InvalidArgument, "unknown --time_unit=%s (expected ms, us or ns)", unit)
}

// appendAggregates adds the mean, median and stddev rows of a benchmark
// repeated reps times, as Google Benchmark does.
func appendAggregates(rows []benchRow, name string, reals, cpus, rates []float64, reps int) []benchRow {
	if reps <= 1 {
		return rows
	}
	last := rows[len(rows)-1].iterations
	for _, agg := range []string{"mean", "median", "stddev"} {
		rows = append(rows, benchRow{name: name + "_" + agg, real: aggregate(agg, reals), cpu: aggregate(agg, cpus), iterations: last, rate: aggregate(agg, rates)})
	}
	return rows
}

// printBenchRows prints Google Benchmark's console table.
func printBenchRows(stdout io.Writer, rows []benchRow, unit string, scale float64) {
	sep := strings.Repeat("-", 102)
	fmt.Fprintf(stdout, "%s\n%-46s %13s %15s %12s UserCounters...\n%s\n", sep, "Benchmark", "Time", "CPU", "Iterations", sep)
	for _, r := range rows {
		fmt.Fprintf(stdout, "%-46s %10.3f %s %12.3f %s %12d items_per_second=%s/s\n", r.name, r.real*scale, unit, r.cpu*scale, unit, r.iterations, humanReadable(r.rate))
	}
}

// humanReadable formats a counter as Google Benchmark's console does: six
// significant digits and a k, M, G, T or P suffix for powers of 1000.
func humanReadable(v float64) string {
	const suffixes = "kMGTP"
	unit := ""
	for i := 0; math.Abs(v) >= 1000 && i < len(suffixes); i++ {
		v /= 1000
		unit = suffixes[i : i+1]
	}
	return strconv.FormatFloat(v, 'g', 6, 64) + unit
}

// measure runs fn repeatedly (see measureLoop); each call's results go
// back to the device's cache, as IREE's runtime frees them.
func measure(s *gree.Session, mod, fn string, args []vm.Value, minTime time.Duration) (benchRow, error) {
	return measureLoop(minTime, func() error {
		res, err := s.CallSync(mod, fn, args)
		if err != nil {
			return status.Annotate(err, "benchmarking '%s'", fn)
		}
		s.Release(res, args)
		return nil
	})
}

// measureLoop runs step repeatedly, growing the iteration count until a
// batch takes at least minTime, as Google Benchmark does; the row's times
// are per step and its rate steps per second.
func measureLoop(minTime time.Duration, step func() error) (benchRow, error) {
	if minTime <= 0 {
		minTime = 500 * time.Millisecond
	}
	iters := int64(1)
	for {
		c0, t0 := processCPU(), time.Now()
		for i := int64(0); i < iters; i++ {
			if err := step(); err != nil {
				return benchRow{}, err
			}
		}
		el, cpu := time.Since(t0), processCPU()-c0
		if el >= minTime || iters >= 1e9 {
			return benchRow{real: el.Seconds() / float64(iters), cpu: cpu.Seconds() / float64(iters), iterations: iters, rate: float64(iters) / max(el.Seconds(), 1e-12)}, nil
		}
		mult := 10.0
		if el > 0 {
			mult = math.Min(10, 1.4*minTime.Seconds()/el.Seconds())
		}
		iters = int64(math.Max(float64(iters)+1, math.Ceil(float64(iters)*mult)))
	}
}

func aggregate(kind string, xs []float64) float64 {
	n := float64(len(xs))
	mean := 0.0
	for _, x := range xs {
		mean += x
	}
	mean /= n
	switch kind {
	case "mean":
		return mean
	case "median":
		s := append([]float64(nil), xs...)
		sort.Float64s(s)
		if len(s)%2 == 1 {
			return s[len(s)/2]
		}
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	v := 0.0
	for _, x := range xs {
		v += (x - mean) * (x - mean)
	}
	if n > 1 {
		v /= n - 1
	}
	return math.Sqrt(v)
}
