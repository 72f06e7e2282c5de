package tooling

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gree-ml/gree/go/runtime"
	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/vm"
)

// CheckOptions configures RunChecks.
type CheckOptions struct {
	// ExpectFailure inverts the result of every test.
	ExpectFailure bool
	// Filter, if non-empty, runs only tests whose "module.function" name
	// contains it (a simple form of --gtest_filter).
	Filter string
}

// RunChecks runs every test function of the last module (each export not
// starting with "__" and without "$", which must take and return nothing)
// in a fresh context on dev, printing gtest-style results. It returns
// the process exit code.
func RunChecks(dev hal.Device, mods []*vm.Module, opts CheckOptions, w io.Writer) int {
	main := mods[len(mods)-1]
	var tests []string
	for _, name := range main.ExportNames() {
		if strings.HasPrefix(name, "__") || strings.Contains(name, "$") {
			continue
		}
		f, _ := main.Lookup(name)
		if cc := f.CConv(); cc != "0_" {
			fmt.Fprintf(w, "INVALID_ARGUMENT; expected function with no inputs or outputs, but export '%s' has signature '%s'\n", name, cc)
			return 1
		}
		full := main.Name() + "." + name
		if opts.Filter != "" && !strings.Contains(full, opts.Filter) {
			continue
		}
		tests = append(tests, name)
	}
	plural := func(n int, s string) string {
		if n == 1 {
			return fmt.Sprintf("%d %s", n, s)
		}
		return fmt.Sprintf("%d %ss", n, s)
	}
	start := time.Now()
	fmt.Fprintf(w, "[==========] Running %s from 1 test suite.\n", plural(len(tests), "test"))
	fmt.Fprintf(w, "[----------] Global test environment set-up.\n")
	fmt.Fprintf(w, "[----------] %s from %s\n", plural(len(tests), "test"), main.Name())
	var failed []string
	for _, name := range tests {
		full := main.Name() + "." + name
		fmt.Fprintf(w, "[ RUN      ] %s\n", full)
		t0 := time.Now()
		err := runOneCheck(dev, mods, name)
		ok := err == nil
		if opts.ExpectFailure {
			if ok {
				fmt.Fprintf(w, "Test passed but expected failure\n")
			} else {
				fmt.Fprintf(w, "Test failed as expected\n%v\n", err)
			}
			ok = !ok
		} else if !ok {
			fmt.Fprintf(w, "Test failed\n%v\n", err)
		}
		ms := time.Since(t0).Milliseconds()
		if ok {
			fmt.Fprintf(w, "[       OK ] %s (%d ms)\n", full, ms)
		} else {
			fmt.Fprintf(w, "[  FAILED  ] %s (%d ms)\n", full, ms)
			failed = append(failed, full)
		}
	}
	total := time.Since(start).Milliseconds()
	fmt.Fprintf(w, "[----------] %s from %s (%d ms total)\n\n", plural(len(tests), "test"), main.Name(), total)
	fmt.Fprintf(w, "[----------] Global test environment tear-down\n")
	fmt.Fprintf(w, "[==========] %s from 1 test suite ran. (%d ms total)\n", plural(len(tests), "test"), total)
	fmt.Fprintf(w, "[  PASSED  ] %s.\n", plural(len(tests)-len(failed), "test"))
	if len(failed) > 0 {
		fmt.Fprintf(w, "[  FAILED  ] %s, listed below:\n", plural(len(failed), "test"))
		for _, f := range failed {
			fmt.Fprintf(w, "[  FAILED  ] %s\n", f)
		}
		fmt.Fprintf(w, "\n%2d FAILED %s\n", len(failed), map[bool]string{true: "TEST", false: "TESTS"}[len(failed) == 1])
		return 1
	}
	return 0
}

// runOneCheck runs one test function in a fresh context.
func runOneCheck(dev hal.Device, mods []*vm.Module, name string) error {
	s := runtime.NewSessionOn(dev)
	chk := s.WithCheck()
	for _, m := range mods {
		if err := s.AddModule(m); err != nil {
			return err
		}
	}
	main := mods[len(mods)-1]
	_, err := s.Call(main.Name(), name, nil)
	if f := (*vm.CallFailures)(nil); errors.As(err, &f) {
		// Failed expectations (with the call's own error, if any).
		return fmt.Errorf("%s", f.Error())
	}
	if fails := chk.Failures(); len(fails) > 0 {
		msg := strings.Join(fails, "\n")
		if err != nil {
			msg += "\n" + err.Error()
		}
		return fmt.Errorf("%s", msg)
	}
	return err
}
