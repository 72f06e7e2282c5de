package tooling

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	gree "github.com/gree-ml/gree/go/runtime"
	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/tooling/vio"
	"github.com/gree-ml/gree/go/schemas/module"
	"github.com/gree-ml/gree/go/status"
)

// BenchExeOptions configures iree-benchmark-executable: one entry point of
// one executable, dispatched on the HAL directly (no VM, no host program),
// as IREE's tool of that name does.
type BenchExeOptions struct {
	Device string
	// File is an executable payload of Format, or a module file: then
	// Executable (or the first executable of Format) is benchmarked.
	File, Format string
	Executable   int
	EntryPoint   string // ordinal or name
	// WorkgroupCounts are "x,y,z"; each is one benchmark.
	WorkgroupCounts []string
	// Bindings are buffer specs as --input spells them ("4xf32=1,2,3,4").
	Bindings []string
	// Constants are the dispatch's push constants (32-bit values).
	Constants []string
	// ExecutableConstants are IREE's specialization constants, which
	// gree's executables do not take.
	ExecutableConstants []string
	BatchSize           int
	MinTime             time.Duration
	Repetitions         int
	TimeUnit            string
}

// formatAliases maps IREE's executable format names to gree's.
var formatAliases = map[string]string{
	"vmvx-bytecode-fb": "vmvx-bytecode", "embedded-elf-x86_64": "llvm-cpu-elf", "embedded-elf-arm_64": "llvm-cpu-elf",
	"system-dll-x86_64": "llvm-cpu-elf", "system-elf-x86_64": "llvm-cpu-elf",
}

// RunBenchmarkExecutable runs the benchmarks; it returns the exit code.
func RunBenchmarkExecutable(o BenchExeOptions, stdout, stderr io.Writer) int {
	if err := runBenchmarkExecutable(o, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

// loadExecutable returns the format and bytes of the executable o names.
func loadExecutable(o BenchExeOptions) (string, []byte, error) {
	if o.File == "" {
		return "", nil, status.New(status.InvalidArgument, "no executable: pass --executable_file (a module file, or an executable with --executable_format)")
	}
	data, err := os.ReadFile(o.File)
	if err != nil {
		return "", nil, status.Errorf(status.NotFound, "reading --executable_file: %v", err)
	}
	format := o.Format
	if f, ok := formatAliases[format]; ok {
		format = f
	}
	m, merr := module.Decode(data)
	if merr != nil {
		if format == "" {
			return "", nil, status.Errorf(status.InvalidArgument, "%s is not a module (%v); pass --executable_format for an executable file", o.File, merr)
		}
		return format, data, nil
	}
	var names []string
	for i, e := range m.Executables {
		names = append(names, fmt.Sprintf("%d: %s %v", i, e.Format, e.Entries))
		if o.Executable >= 0 && i == o.Executable && (format == "" || e.Format == format) {
			return e.Format, e.Data, nil
		}
		if o.Executable < 0 && (format == "" || e.Format == format) {
			return e.Format, e.Data, nil
		}
	}
	return "", nil, status.Errorf(status.NotFound, "module %s has no executable %d of format %q; it has: %s", o.File, o.Executable, o.Format, strings.Join(names, "; "))
}

// entryOrdinal resolves an entry point given as an ordinal or a name.
func entryOrdinal(exe hal.Executable, spec string) (int, error) {
	if spec == "" {
		spec = "0"
	}
	if n, err := strconv.Atoi(spec); err == nil {
		if n < 0 || n >= exe.NumEntries() {
			return 0, status.Errorf(status.OutOfRange, "--entry_point=%d is out of range: the executable has %d entry points", n, exe.NumEntries())
		}
		return n, nil
	}
	var names []string
	for i := 0; i < exe.NumEntries(); i++ {
		if exe.EntryName(i) == spec {
			return i, nil
		}
		names = append(names, exe.EntryName(i))
	}
	return 0, status.Errorf(status.NotFound, "the executable has no entry point %q (it has %s)", spec, strings.Join(names, ", "))
}

// deviceBindings parses the binding specs and copies each into a buffer
// of dev's.
func deviceBindings(dev hal.Device, specs []string) ([]hal.BufferRef, func(), error) {
	vals, err := vio.ParseInputs(specs, strings.Repeat("r", len(specs)))
	if err != nil {
		return nil, nil, status.Annotate(err, "parsing --binding")
	}
	var refs []hal.BufferRef
	release := func() {
		for _, r := range refs {
			r.Buffer.Release()
		}
	}
	for i, v := range vals {
		bv, ok := v.Ref.(*hal.BufferView)
		if !ok || bv == nil {
			release()
			return nil, nil, status.Errorf(status.InvalidArgument, "--binding %d must be a shaped buffer (4xf32=...)", i)
		}
		b, err := dev.Allocator().Allocate(hal.BufferParams{Type: hal.MemoryTypeDeviceLocal, Usage: hal.BufferUsageDefault}, max(bv.ByteLength(), 4))
		if err != nil {
			release()
			return nil, nil, err
		}
		refs = append(refs, hal.WholeBuffer(b))
		if err := hal.WriteBuffer(dev, b, 0, bv.Bytes()); err != nil {
			release()
			return nil, nil, err
		}
	}
	return refs, release, nil
}

func parseWorkgroupCount(s string) ([3]int64, error) {
	var wg [3]int64
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		return wg, status.Errorf(status.InvalidArgument, "--workgroup_count=%s: expected x,y,z", s)
	}
	for i, p := range parts {
		n, err := strconv.ParseInt(strings.TrimSpace(p), 10, 64)
		if err != nil || n < 0 || n > 1<<31 {
			return wg, status.Errorf(status.InvalidArgument, "--workgroup_count=%s: %q is not a count", s, p)
		}
		wg[i] = n
	}
	return wg, nil
}

func runBenchmarkExecutable(o BenchExeOptions, stdout, stderr io.Writer) error {
	if len(o.ExecutableConstants) > 0 {
		return status.New(status.Unimplemented, "--executable_constant: gree's executables take no specialization constants")
	}
	if len(o.WorkgroupCounts) == 0 {
		o.WorkgroupCounts = []string{"1,1,1"}
	}
	var constants []int64
	for _, c := range o.Constants {
		n, err := strconv.ParseUint(strings.TrimSpace(c), 0, 32)
		if err != nil {
			return status.Errorf(status.InvalidArgument, "--constant=%s is not a 32-bit value", c)
		}
		constants = append(constants, int64(n))
	}
	format, data, err := loadExecutable(o)
	if err != nil {
		return err
	}
	dev, err := gree.CreateDevice(o.Device, DeviceAllocators())
	if err != nil {
		return err
	}
	defer dev.Close()
	exe, err := dev.PrepareExecutable(format, data)
	if err != nil {
		return status.Annotate(err, "loading the %s executable", format)
	}
	defer exe.Close()
	entry, err := entryOrdinal(exe, o.EntryPoint)
	if err != nil {
		return err
	}
	bindings, release, err := deviceBindings(dev, o.Bindings)
	if err != nil {
		return err
	}
	defer release()
	unit, scale, err := timeUnit(o.TimeUnit)
	if err != nil {
		return err
	}
	batch := int64(max(o.BatchSize, 1))
	host, _ := os.Hostname()
	fmt.Fprintf(stderr, "%s\nRunning %s\nRun on %s (%d X CPU s)\n", time.Now().Format("2006-01-02T15:04:05-07:00"), "iree-benchmark-executable", host, runtime.NumCPU())
	var rows []benchRow
	for _, spec := range o.WorkgroupCounts {
		wg, err := parseWorkgroupCount(spec)
		if err != nil {
			return err
		}
		cb, err := recordBatch(exe, entry, wg, constants, bindings, batch)
		if err != nil {
			return err
		}
		name := fmt.Sprintf("BM_dispatch_%dx%dx%d/process_time/real_time", wg[0], wg[1], wg[2])
		invocations := float64(batch * wg[0] * wg[1] * wg[2])
		var reals, cpus, rates []float64
		for r := 0; r < max(o.Repetitions, 1); r++ {
			row, err := measureBatches(dev, cb, o.MinTime)
			if err != nil {
				cb.Release()
				return status.Annotate(err, "dispatching entry point %d", entry)
			}
			row.name, row.rate = name, row.rate*invocations
			rows = append(rows, row)
			reals, cpus, rates = append(reals, row.real), append(cpus, row.cpu), append(rates, row.rate)
		}
		cb.Release()
		rows = appendAggregates(rows, name, reals, cpus, rates, o.Repetitions)
	}
	printBenchRows(stdout, rows, unit, scale)
	return nil
}

// recordBatch records batch dispatches, each after a barrier, in one
// reusable command buffer.
func recordBatch(exe hal.Executable, entry int, wg [3]int64, constants []int64, bindings []hal.BufferRef, batch int64) (*hal.CommandBuffer, error) {
	cb, err := hal.NewCommandBuffer(0, hal.CommandCategoryDispatch, 0)
	if err != nil {
		return nil, err
	}
	if err := cb.Begin(); err != nil {
		return nil, err
	}
	for i := int64(0); i < batch; i++ {
		if err := cb.Dispatch(exe, entry, wg, constants, bindings); err != nil {
			cb.Release()
			return nil, err
		}
		if err := cb.ExecutionBarrier(); err != nil {
			cb.Release()
			return nil, err
		}
	}
	if err := cb.End(); err != nil {
		cb.Release()
		return nil, err
	}
	return cb, nil
}

// measureBatches submits cb and waits for it, repeatedly, until the
// submissions take at least minTime; rate is submissions per second.
func measureBatches(dev hal.Device, cb *hal.CommandBuffer, minTime time.Duration) (benchRow, error) {
	sem, err := dev.CreateSemaphore(0)
	if err != nil {
		return benchRow{}, err
	}
	value := uint64(0)
	return measureLoop(minTime, func() error {
		value++
		if err := dev.QueueExecute(nil, hal.SemaphoreList{{Semaphore: sem, Value: value}}, cb, nil); err != nil {
			return err
		}
		return sem.Wait(value, time.Time{})
	})
}
