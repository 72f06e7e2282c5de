package runtime

import (
	"fmt"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/modules/check"
	"github.com/gree-ml/gree/go/runtime/modules/halmodule"
	"github.com/gree-ml/gree/go/runtime/vm"
	"github.com/gree-ml/gree/go/schemas/module"
	"github.com/gree-ml/gree/go/status"
)

// DefaultDevice is the device URI used when none is given, as in IREE.
const DefaultDevice = "local-task"

// Session is a device with a VM context: the modules loaded on it and the
// state (globals) they keep between calls. Call, CallWith and CallSync may
// run from several goroutines at once (see vm.Scoper and the context's
// state lock); LoadModule, AddModule, WithCheck and Close may not overlap
// them.
type Session struct {
	Device hal.Device
	// Devices is the device list (Device is its first): a module that
	// places work on several devices resolves device i to Devices[i].
	Devices []hal.Device
	Context *vm.Context
	// Bridge is the VM's device: the context's buffers and its queue.
	Bridge *halmodule.Device
	// Check is the check module when the session was made with one.
	Check *check.Module
	owns  bool
	mods  []*vm.Module
}

// NewSession creates the device named by uri ("" = local-task) and an
// empty context on it (see NewSessionFor for several devices and
// allocator specs).
func NewSession(uri string) (*Session, error) {
	if uri == "" {
		uri = DefaultDevice
	}
	return NewSessionFor(DeviceOptions{URIs: []string{uri}})
}

// NewSessionOn makes a session on an existing device (not closed by
// Session.Close).
func NewSessionOn(dev hal.Device) *Session { return NewSessionOnDevices([]hal.Device{dev}) }

// NewSessionOnDevices makes a session on a device list (not closed by
// Session.Close; see Devices). devs must not be empty.
func NewSessionOnDevices(devs []hal.Device) *Session {
	b := halmodule.NewWithDevices(devs)
	return &Session{Device: devs[0], Devices: b.Devices(), Context: vm.NewContext(b), Bridge: b}
}

// WithCheck registers the check module (for check-test programs).
func (s *Session) WithCheck() *check.Module {
	if s.Check == nil {
		s.Check = check.New(s.Bridge.HostView)
		s.Context.RegisterNative(s.Check)
	}
	return s.Check
}

// LoadModule loads a module file and registers it in the context.
func (s *Session) LoadModule(data []byte) (*vm.Module, error) {
	m, err := vm.LoadModule(data)
	if err != nil {
		return nil, err
	}
	if err := s.AddModule(m); err != nil {
		return nil, err
	}
	return m, nil
}

// AddModule registers an already loaded module.
func (s *Session) AddModule(m *vm.Module) error {
	if err := s.Bridge.RequireDevices(m.Name(), m.Def.Devices()); err != nil {
		return err
	}
	if err := s.Context.Register(m); err != nil {
		return err
	}
	s.mods = append(s.mods, m)
	return nil
}

// Modules returns the bytecode modules in load order.
func (s *Session) Modules() []*vm.Module { return s.mods }

// Call invokes module.fn with args.
func (s *Session) Call(module, fn string, args []vm.Value) (res []vm.Value, err error) {
	return s.CallWith(module, fn, args, nil)
}

// CallWith is Call bounded by opts (a cancel token, an interrupt, a
// deadline: see vm.InvokeOptions); nil bounds nothing.
func (s *Session) CallWith(module, fn string, args []vm.Value, opts *vm.InvokeOptions) (res []vm.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = status.FromPanic(r, "the runtime, calling "+module+"."+fn)
		}
	}()
	return s.Context.InvokeWith(module, fn, args, opts)
}

// lookup returns the exported function module.fn of a loaded module.
func (s *Session) lookup(mod, fn string) *module.Function {
	for _, m := range s.mods {
		if m.Name() == mod {
			if f, ok := m.Lookup(fn); ok {
				return f
			}
		}
	}
	return nil
}

// IsCoarseFences reports whether f has IREE's coarse-fences ABI (its last
// two arguments are a wait and a signal fence).
func IsCoarseFences(f *module.Function) bool {
	return f != nil && f.ReflectionValue("iree.abi.model") == vm.CoarseFencesModel
}

// CallSync calls module.fn and returns once its results are ready: a
// function with the coarse-fences ABI called without its two fences gets
// a wait fence already reached and a signal fence it waits for (as IREE's
// tools call such functions); any other call is Call.
func (s *Session) CallSync(mod, fn string, args []vm.Value) ([]vm.Value, error) {
	f := s.lookup(mod, fn)
	if !IsCoarseFences(f) || len(args) != len(f.Args)-2 {
		return s.Call(mod, fn, args)
	}
	sem, err := s.Device.CreateSemaphore(0)
	if err != nil {
		return nil, err
	}
	signal := hal.FenceAt(sem, 1)
	full := append(append([]vm.Value(nil), args...), vm.RefValue(hal.NewFence(0)), vm.RefValue(signal))
	res, err := s.Call(mod, fn, full)
	if err != nil {
		return nil, err
	}
	if err := signal.Wait(hal.NoDeadline); err != nil {
		return nil, err
	}
	return res, nil
}

// PlaceInputs returns args with every buffer view the device cannot use
// directly (host memory given to a GPU) copied into the device's memory,
// so that calls repeated with the same arguments (a benchmark) do not
// copy them again each time.
func (s *Session) PlaceInputs(args []vm.Value) ([]vm.Value, error) {
	out := append([]vm.Value(nil), args...)
	for i, a := range out {
		v, ok := a.Ref.(*hal.BufferView)
		if !ok {
			continue
		}
		dv, err := s.Bridge.DeviceView(v)
		if err != nil {
			return nil, status.Annotate(err, "placing input %d on %s", i, s.Device.Info().Name)
		}
		if dv != v {
			out[i] = vm.RefValue(dv)
		}
	}
	return out, nil
}

// Release gives the buffers of results the caller no longer needs back
// to the device's cache (inputs and globals are never released).
func (s *Session) Release(results, inputs []vm.Value) { s.Context.Release(results, inputs) }

// Close releases the context (its executables, constants, globals and
// cached buffers: see vm.Context.Close) and then the device if the session
// created it. Results the caller holds stay valid.
func (s *Session) Close() error {
	err := s.Context.Close()
	if s.owns {
		for _, d := range s.Devices {
			if derr := d.Close(); err == nil {
				err = derr
			}
		}
	}
	return err
}

// ResolveFunction picks the function to run as iree-run-module does: the
// named export, or the only export when name is empty (skipping names
// starting with "__" or containing "$").
func ResolveFunction(m *vm.Module, name string) (string, error) {
	if name != "" {
		if _, ok := m.Lookup(name); !ok {
			return "", status.Errorf(status.NotFound, "function '%s' not found in module '%s' (exports: %v)", name, m.Name(), m.ExportNames())
		}
		return name, nil
	}
	var cands []string
	for _, n := range m.ExportNames() {
		if len(n) >= 2 && n[:2] == "__" || containsDollar(n) {
			continue
		}
		cands = append(cands, n)
	}
	switch len(cands) {
	case 0:
		return "", status.New(status.InvalidArgument, "no exported functions found in module; at least one must be present")
	case 1:
		return cands[0], nil
	}
	return "", status.New(status.InvalidArgument, fmt.Sprintf("more than one exported function present; --function= must be specified explicitly (exports: %v)", cands))
}

func containsDollar(s string) bool {
	for _, c := range s {
		if c == '$' {
			return true
		}
	}
	return false
}
