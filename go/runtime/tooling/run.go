package tooling

import (
	"bufio"
	"fmt"
	"io"

	"github.com/gree-ml/gree/go/runtime"
	"github.com/gree-ml/gree/go/runtime/tooling/vio"
	"github.com/gree-ml/gree/go/status"
)

// RunOptions are iree-run-module's settings.
type RunOptions struct {
	Modules         []string
	Function        string
	Device          string
	Inputs          []string
	Outputs         []string
	ExpectedOutputs []string
	MaxElements     int
	Compare         vio.CompareOptions

	// Devices are the --device URIs in order (several: a module placing
	// work on several devices uses them by ordinal); Device, when Devices
	// is empty, is the one device.
	Devices []string
	// Allocators are the --device_allocator specs.
	Allocators []string
}

// RunModule loads the modules, runs the function and handles its
// results as iree-run-module does. It returns the exit code; errors go to
// stderr as IREE statuses.
func RunModule(o RunOptions, stdin io.Reader, stdout, stderr io.Writer) int {
	code, err := runModule(o, stdin, stdout)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return code
}

func runModule(o RunOptions, stdin io.Reader, stdout io.Writer) (int, error) {
	if len(o.Modules) == 0 {
		return 1, status.New(status.InvalidArgument, "no user module specified; use --module=file.vmfb to load from a file or --module=- to load from stdin")
	}
	mods, err := LoadModules(o.Modules, stdin)
	if err != nil {
		return 1, err
	}
	s, err := runtime.NewSessionFor(o.deviceOptions())
	if err != nil {
		return 1, err
	}
	defer s.Close()
	for _, m := range mods {
		if err := s.AddModule(m); err != nil {
			return 1, err
		}
	}
	main := mods[len(mods)-1]
	fn, err := runtime.ResolveFunction(main, o.Function)
	if err != nil {
		return 1, err
	}
	f, _ := main.Lookup(fn)
	decl := ""
	for _, r := range f.Reflection {
		if r.Key == "iree.abi.declaration" {
			decl = r.Value
		}
	}
	cc := f.CConv()
	argCC, resCC := cc[1:], ""
	for i := 1; i < len(cc); i++ {
		if cc[i] == '_' {
			argCC, resCC = cc[1:i], cc[i+1:]
		}
	}
	if runtime.IsCoarseFences(f) {
		// The tool passes the wait and signal fences itself.
		argCC = argCC[:len(argCC)-2]
	}
	args, err := vio.ParseInputsFor(o.Inputs, argCC, f.ArgTypes)
	if err != nil {
		err = status.Annotate(err, "parsing function inputs")
		if decl != "" {
			err = status.Annotate(err, "%s", decl)
		}
		return 1, err
	}
	fmt.Fprintf(stdout, "EXEC @%s\n", fn)
	if f, ok := stdout.(interface{ Sync() error }); ok {
		f.Sync()
	}
	results, err := s.CallSync(main.Name(), fn, args)
	if err != nil {
		return 1, status.Annotate(err, "invoking function '%s'", fn)
	}
	if results, err = TransferToHost(s.Device, results); err != nil {
		return 1, status.Annotate(err, "transferring results to the host")
	}
	max := o.MaxElements
	if len(o.ExpectedOutputs) > 0 {
		opts := o.Compare
		opts.ResultCConv = resCC
		ok, err := vio.CompareExpected(results, o.ExpectedOutputs, opts, stdout)
		if err != nil {
			return 1, err
		}
		if len(o.Outputs) > 0 {
			if err := vio.WriteOutputs(results, o.Outputs, stdout, max); err != nil {
				return 1, status.Annotate(err, "outputting results")
			}
		}
		if !ok {
			return 1, nil
		}
		return 0, nil
	}
	if len(o.Outputs) > 0 {
		if err := vio.WriteOutputs(results, o.Outputs, stdout, max); err != nil {
			return 1, status.Annotate(err, "outputting results")
		}
		return 0, nil
	}
	if err := vio.PrintResults(stdout, results, max); err != nil {
		return 1, err
	}
	return 0, nil
}

// deviceOptions are the devices o names.
func (o RunOptions) deviceOptions() runtime.DeviceOptions {
	uris := o.Devices
	if len(uris) == 0 && o.Device != "" {
		uris = []string{o.Device}
	}
	return runtime.DeviceOptions{URIs: uris, Allocators: o.Allocators}
}

// SyncWriter is a buffered stdout whose Sync flushes, so "EXEC @fn"
// shows before a long or failing call, as in IREE's tool.
type SyncWriter struct{ *bufio.Writer }

// Sync flushes the buffer.
func (w SyncWriter) Sync() error { return w.Flush() }
