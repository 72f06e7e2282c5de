package compiler

import (
	"fmt"
	"io"
	"slices"
	"time"
)

// InstrumentOptions are MLIR's instrumentation flags, applied to gree's
// phases: --mlir-timing (a wall-time report of each phase when the
// compilation ends) and --mlir-print-ir-before-all / -after-all /
// --mlir-print-ir-before=<phase> / --mlir-print-ir-after=<phase> (the IR
// around a phase). Both go to Report (iree-compile: stderr).
type InstrumentOptions struct {
	Timing                        bool
	PrintBeforeAll, PrintAfterAll bool
	PrintBefore, PrintAfter       []string
	Report                        io.Writer
}

// InstrumentedPhases are the phase names the print flags take, in order:
// "import-onnx" (an .onnx input), "parse", "input" (dialect conversion,
// then --iree-input-demote-*), "flow" (fusion and dispatch regions),
// "codegen" (kernel IR, legalized for the target), "executable-targets"
// (the target's executables), "vm" (the host program) and "serialize".
var InstrumentedPhases = []string{"import-onnx", "parse", "input", "flow", "codegen", "executable-targets", "vm", "serialize"}

// instrument times phases and prints the IR around them.
type instrument struct {
	opts  InstrumentOptions
	start time.Time
	names []string
	times []time.Duration
}

func newInstrument(o InstrumentOptions) *instrument {
	return &instrument{opts: o, start: time.Now()}
}

func (in *instrument) printing(all bool, list []string, name string) bool {
	return in.opts.Report != nil && (all || slices.Contains(list, name))
}

// phase runs f as phase name; ir, when not nil, renders the IR the print
// flags show before and after it.
func (in *instrument) phase(name string, ir func() string, f func() error) error {
	if ir != nil && in.printing(in.opts.PrintBeforeAll, in.opts.PrintBefore, name) {
		fmt.Fprintf(in.opts.Report, "// -----// IR Dump Before %s //----- //\n%s\n", name, ir())
	}
	t := time.Now()
	err := f()
	in.names = append(in.names, name)
	in.times = append(in.times, time.Since(t))
	if err == nil && ir != nil && in.printing(in.opts.PrintAfterAll, in.opts.PrintAfter, name) {
		fmt.Fprintf(in.opts.Report, "// -----// IR Dump After %s //----- //\n%s\n", name, ir())
	}
	return err
}

// report writes MLIR's execution time report when --mlir-timing is set.
func (in *instrument) report() {
	if !in.opts.Timing || in.opts.Report == nil {
		return
	}
	total := time.Since(in.start)
	w := in.opts.Report
	line := "===-------------------------------------------------------------------------==="
	fmt.Fprintf(w, "%s\n%s\n%s\n", line, "                         ... Execution time report ...", line)
	fmt.Fprintf(w, "  Total Execution Time: %.4f seconds\n\n", total.Seconds())
	fmt.Fprintf(w, "  ----Wall Time----  ----Name----\n")
	pct := func(d time.Duration) float64 {
		if total <= 0 {
			return 0
		}
		return 100 * d.Seconds() / total.Seconds()
	}
	var sum time.Duration
	for i, n := range in.names {
		sum += in.times[i]
		fmt.Fprintf(w, "  %8.4f (%5.1f%%)  %s\n", in.times[i].Seconds(), pct(in.times[i]), n)
	}
	if rest := total - sum; rest > 0 {
		fmt.Fprintf(w, "  %8.4f (%5.1f%%)  %s\n", rest.Seconds(), pct(rest), "rest")
	}
	fmt.Fprintf(w, "  %8.4f (100.0%%)  Total\n", total.Seconds())
}
