package vm

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gree-ml/gree/go/schemas/module"
	"github.com/gree-ml/gree/go/status"
)

// Module is a loaded, verified bytecode module.
type Module struct {
	Def *module.Module
	// Data is the file image Def aliases; it is kept alive with the module.
	Data []byte
}

// LoadModule decodes and verifies a module file; when --module_trust
// names trusted signers (TrustedKeys), the file must carry a signature by
// one of them. data must stay unchanged while the module is in use.
func LoadModule(data []byte) (*Module, error) {
	keys, err := TrustedKeys()
	if err != nil {
		return nil, err
	}
	return LoadTrustedModule(data, keys)
}

// Name returns the module name.
func (m *Module) Name() string { return m.Def.Name }

// ExportNames returns the exported function names in export order.
func (m *Module) ExportNames() []string {
	var out []string
	for _, e := range m.Def.Exports {
		out = append(out, e.Name)
	}
	return out
}

// Lookup returns the function exported as name.
func (m *Module) Lookup(name string) (*module.Function, bool) {
	for _, e := range m.Def.Exports {
		if e.Name == name {
			return &m.Def.Functions[e.Function], true
		}
	}
	return nil, false
}

// NativeModule is a module implemented in Go (check, …) that bytecode
// modules import functions from.
type NativeModule interface {
	Name() string
	// Lookup returns the function called name with its signature, or
	// false.
	Lookup(name string) (NativeFunc, bool)
}

// NativeFunc is one function of a native module.
type NativeFunc struct {
	Args, Results []module.Kind
	Call          func(args []Value) ([]Value, error)
	// CallIn, when set, is called instead of Call with the outermost
	// invocation the call is part of (to record failures of that
	// invocation only: Call.Fail).
	CallIn func(call *Call, args []Value) ([]Value, error)
}

// Device performs the buffer and dispatch operations of host programs;
// runtime/modules/halmodule implements it over a HAL device. Dispatches
// (and the copies and fills behind Alloc and Clone) may run after the
// method returns, in the order they were made: Load and Store wait for
// them, and the interpreter calls Sync before it hands buffers to a native
// module or returns them to its caller. The slices the interpreter passes
// (dims, idx, push, bindings, refs, keep) are its scratch, valid only
// until the method returns: a device copies what it keeps.
type Device interface {
	// PrepareExecutable loads an executable of the module.
	PrepareExecutable(e *module.Executable) (any, error)
	// Constant returns a buffer view of a module constant. Its storage
	// must never be storage that Release could recycle (the interpreter
	// does not look for other references to it).
	Constant(c *module.Constant) (any, error)
	// Alloc returns a new buffer view; its contents are zero, or
	// unspecified when uninitialized is set (a kernel writes all of it).
	Alloc(elementType uint32, dims []int64, uninitialized bool) (any, error)
	Dim(ref any, i int) (int64, error)
	// Shape returns a buffer view's element type and dimensions.
	Shape(ref any) (uint32, []int64, error)
	// Reshape returns a view of ref's storage with other dimensions.
	Reshape(ref any, dims []int64) (any, error)
	Clone(ref any) (any, error)
	// Load reads one element of scalar type t (module.Type*).
	Load(ref any, t uint8, idx []int64) (Value, error)
	Store(ref any, t uint8, idx []int64, v Value) error
	Dispatch(exe any, entry int, grid [3]int64, push []int64, bindings []any) error
	// Trace hands buffer views to the trace sink under a key (a debugging
	// aid: by default they are printed); a sink's error fails the call.
	Trace(key string, refs []any) error
	// Sync waits for every operation made so far; it returns the first
	// failure among them.
	Sync() error
	// Release returns the storage of refs the device allocated to its
	// cache for reuse, except storage any of keep uses. The caller
	// promises not to use refs afterwards.
	Release(refs []any, keep []any)
	// Recyclable reports whether Release could reuse ref's storage (the
	// device allocated it and caches buffers of its size), so that the
	// interpreter looks for other references only when that matters.
	Recyclable(ref any) bool
}

// Mover is implemented by devices that can tell when a buffer view's
// storage is the program's alone: Exclusive reports whether the device
// allocated ref's storage for the running call and none of live (every
// other reference the program can still read) uses it, so that a clone
// of a value that dies at the clone (module.CloneMayMove) takes the
// storage over instead of copying it.
type Mover interface {
	Exclusive(ref any, live []any) bool
}

// Copier is implemented by devices that copy one buffer view's bytes into
// part of another (module.OpCopy: a concatenation written piece by piece,
// a contiguous block inserted into a copy of a tensor).
type Copier interface {
	// CopyInto copies all of src's bytes into dst from byte offset off
	// on, in order with the operations made before.
	CopyInto(dst, src any, off int64) error
}

// Subviewer is implemented by devices that view part of a buffer in
// place (module.OpSubview: a concatenation's piece that a dispatch writes
// where the concatenation's buffer holds it).
type Subviewer interface {
	// Subview returns a view with dimensions dims of ref's bytes from
	// byte offset off on, sharing ref's storage without holding it: the
	// program keeps ref's storage while the view is live.
	Subview(ref any, off int64, dims []int64) (any, error)
}

// Adopter is implemented by devices that cannot use every buffer a caller
// passes (a GPU uses its own memory): Adopt returns ref itself, or a copy
// in the device's memory, for each reference argument of a call.
type Adopter interface {
	Adopt(ref any) (any, error)
}

// Holder is implemented by devices whose buffers are reference counted:
// the VM holds a reference to each buffer a module global keeps, so that a
// caller releasing its own reference to a buffer it passed in (a state
// tensor a function stored) does not free it.
type Holder interface {
	Hold(ref any)
	Drop(ref any)
}

// AsyncDevice is implemented by devices that run functions with IREE's
// coarse-fences ABI: WaitFor makes the device work the call records wait
// for a fence (a wait fence of the call), SignalWhenDone submits it so that
// it signals another (the call's signal fence) when it completes, without
// waiting, and Fail fails a fence with an error of the call.
type AsyncDevice interface {
	WaitFor(fence any) error
	SignalWhenDone(fence any) error
	Fail(fence any, err error)
}

// CoarseFencesModel is the iree.abi.model reflection value of functions
// with the coarse-fences ABI (the last two arguments are a wait and a
// signal fence).
const CoarseFencesModel = "coarse-fences"

// Warmer is implemented by devices that can keep their workers ready
// while a function runs (hal.Warmer); Invoke brackets each call with it.
type Warmer interface {
	Warm() (done func())
}

// Context is a set of modules with resolved imports and per-module state,
// bound to one device.
type Context struct {
	dev     Device
	natives map[string]NativeModule
	mods    []*instance
	byName  map[string]*instance
	stacks  sync.Pool // *stack: the scratch of finished invocations
	closed  atomic.Bool
	params  ParameterSource // see params.go

	// state orders calls of functions that use mutable globals (see
	// concurrency.go).
	state sync.RWMutex
}

// instance is a bytecode module in a context.
type instance struct {
	m       *Module
	ctx     *Context
	globals []global // see concurrency.go
	execs   []any
	sels    []variantSel // per executable group: see prepareExecutables
	imports []resolved
	// refRegs lists, per function, its registers of kind ref (what a
	// discard scans for other references to a buffer).
	refRegs [][]int32
	// state is, per function, how it uses mutable globals (stateUse).
	state []uint8
	// consts holds a view of each module constant, made once at
	// registration (views over the module's data, never written: see
	// Device.Constant), which every load of the constant shares.
	consts []any
	// frames holds, per function, register files of finished calls for
	// the next call to reuse (a model's main function has a thousand
	// registers; a fresh file each call costs more than the rest of the
	// interpreter's work), and zero the file each starts from.
	frames []sync.Pool // of *[]Value
	zero   [][]Value
}

type resolved struct {
	native *NativeFunc
	inst   *instance
	fn     int
}

// NewContext returns an empty context on dev.
func NewContext(dev Device) *Context {
	return &Context{dev: dev, natives: map[string]NativeModule{}, byName: map[string]*instance{}}
}

// RegisterNative adds a native module.
func (c *Context) RegisterNative(n NativeModule) error {
	if _, dup := c.natives[n.Name()]; dup || c.byName[n.Name()] != nil {
		return status.Errorf(status.AlreadyExists, "a module named '%s' is already registered", n.Name())
	}
	c.natives[n.Name()] = n
	return nil
}

// HasModule reports whether a module named name is registered.
func (c *Context) HasModule(name string) bool {
	return c.natives[name] != nil || c.byName[name] != nil
}

// Register adds a bytecode module: its imports are resolved against the
// modules registered before it, its executables prepared on the device and
// its globals initialized.
func (c *Context) Register(m *Module) error {
	if c.closed.Load() {
		return errClosed()
	}
	if c.HasModule(m.Name()) {
		return status.Errorf(status.AlreadyExists, "a module named '%s' is already registered", m.Name())
	}
	inst := &instance{m: m, ctx: c, refRegs: refRegisters(m.Def), frames: make([]sync.Pool, len(m.Def.Functions))}
	for i := range m.Def.Functions {
		inst.zero = append(inst.zero, zeroRegisters(m.Def.Functions[i].Regs))
	}
	for _, im := range m.Def.Imports {
		r, err := c.resolve(im)
		if err != nil {
			return err
		}
		inst.imports = append(inst.imports, r)
	}
	inst.state = stateUse(m.Def, inst.imports)
	consts, err := c.parameterConstants(m)
	if err != nil {
		return err
	}
	for i := range consts {
		ref, err := c.dev.Constant(&consts[i])
		if err != nil {
			return fmt.Errorf("module '%s': constant %d: %w", m.Name(), i, err)
		}
		inst.consts = append(inst.consts, ref)
	}
	execs, sels, err := c.prepareExecutables(m)
	if err != nil {
		return err
	}
	inst.execs, inst.sels = execs, sels
	var globals []Value
	for _, g := range m.Def.Globals {
		v, err := c.initGlobal(consts, g)
		if err != nil {
			return err
		}
		globals = append(globals, v)
	}
	inst.globals = newGlobals(globals)
	c.mods = append(c.mods, inst)
	c.byName[m.Name()] = inst
	return nil
}

func (c *Context) initGlobal(consts []module.Constant, g module.Global) (Value, error) {
	switch g.Kind {
	case module.KindI32:
		return I32(int32(g.InitI)), nil
	case module.KindI64:
		return I64(g.InitI), nil
	case module.KindF32:
		return F32(float32(g.InitF)), nil
	case module.KindF64:
		return F64(g.InitF), nil
	}
	if g.Init < 0 {
		return Value{Kind: KindNull}, nil
	}
	ref, err := c.dev.Constant(&consts[g.Init])
	if err != nil {
		return Value{}, err
	}
	// Globals are mutable state: give each its own copy.
	if g.Mutable {
		if ref, err = c.dev.Clone(ref); err != nil {
			return Value{}, err
		}
	}
	return RefValue(ref), nil
}

func (c *Context) resolve(im module.Import) (resolved, error) {
	if n, ok := c.natives[im.Module]; ok {
		fn, ok := n.Lookup(im.Name)
		if !ok {
			if im.Optional {
				return resolved{}, nil
			}
			return resolved{}, status.Errorf(status.NotFound, "module '%s' has no function '%s'", im.Module, im.Name)
		}
		if !sameKinds(fn.Args, im.Args) || !sameKinds(fn.Results, im.Results) {
			return resolved{}, status.Errorf(status.InvalidArgument, "import %s.%s has a different signature than the function the module provides", im.Module, im.Name)
		}
		return resolved{native: &fn}, nil
	}
	if inst, ok := c.byName[im.Module]; ok {
		for _, e := range inst.m.Def.Exports {
			if e.Name == im.Name {
				f := &inst.m.Def.Functions[e.Function]
				if !sameKinds(f.Args, im.Args) || !sameKinds(f.Results, im.Results) {
					return resolved{}, status.Errorf(status.InvalidArgument, "import %s.%s has signature %s but the module exports %s", im.Module, im.Name, cconv(im.Args, im.Results), f.CConv())
				}
				return resolved{inst: inst, fn: e.Function}, nil
			}
		}
		return resolved{}, status.Errorf(status.NotFound, "module '%s' does not export '%s'", im.Module, im.Name)
	}
	if im.Optional {
		return resolved{}, nil
	}
	var have []string
	for _, m := range c.mods {
		have = append(have, m.m.Name())
	}
	for n := range c.natives {
		have = append(have, n)
	}
	return resolved{}, status.Errorf(status.NotFound, "required module '%s' not registered in the context (have: %s); load it first with another --module", im.Module, strings.Join(have, ", "))
}

func sameKinds(a, b []module.Kind) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func cconv(args, results []module.Kind) string {
	f := module.Function{Args: args, Results: results}
	return f.CConv()
}

// Invoke calls the function exported as fn by the module named mod.
func (c *Context) Invoke(mod, fn string, args []Value) ([]Value, error) {
	return c.invoke(mod, fn, args, nil)
}

// invoke is Invoke bounded by opts (see InvokeWith).
func (c *Context) invoke(mod, fn string, args []Value, opts *InvokeOptions) ([]Value, error) {
	if c.closed.Load() {
		return nil, errClosed()
	}
	inst, ok := c.byName[mod]
	if !ok {
		if hi, ok := c.natives[mod].(*hostInstance); ok {
			return c.invokeHost(hi, fn, args, opts)
		}
		return nil, status.Errorf(status.NotFound, "module '%s' is not registered", mod)
	}
	for _, e := range inst.m.Def.Exports {
		if e.Name == fn {
			if err := c.checkTensorArgs(&inst.m.Def.Functions[e.Function], args); err != nil {
				return nil, err
			}
			args, err := c.adopt(args)
			if err != nil {
				return nil, err
			}
			defer c.lockState(inst, e.Function)()
			if w, ok := c.dev.(Warmer); ok {
				defer w.Warm()()
			}
			st, _ := c.stacks.Get().(*stack)
			if st == nil {
				st = &stack{}
			}
			st.reset(args)
			defer func() {
				st.w.end()
				st.reset(nil)
				c.stacks.Put(st)
			}()
			defer c.scope(st)()
			if err := st.w.begin(opts, mod, fn); err != nil {
				return nil, err
			}
			f := &inst.m.Def.Functions[e.Function]
			if ad, ok := st.dev.(AsyncDevice); ok && f.ReflectionValue("iree.abi.model") == CoarseFencesModel && len(args) >= 2 {
				res, err := inst.callAsync(ad, e.Function, args, st)
				err = st.call.failed(err)
				c.drain(st, err)
				return res, err
			}
			res, err := inst.call(e.Function, args, st)
			if err == nil && st.dev != nil {
				err = st.dev.Sync()
			}
			if err = st.call.failed(err); err != nil {
				c.drain(st, err)
				return nil, err
			}
			return res, nil
		}
	}
	return nil, status.Errorf(status.NotFound, "module '%s' has no exported function '%s'", mod, fn)
}

// adopt passes the reference arguments through the device's Adopter,
// copying args only when one of them changes.
func (c *Context) adopt(args []Value) ([]Value, error) {
	ad, ok := c.dev.(Adopter)
	if !ok {
		return args, nil
	}
	out := args
	for i, a := range args {
		if a.Ref == nil {
			continue
		}
		r, err := ad.Adopt(a.Ref)
		if err != nil {
			return nil, fmt.Errorf("argument %d: %w", i, err)
		}
		if r != a.Ref {
			if &out[0] == &args[0] {
				out = append([]Value(nil), args...)
			}
			out[i].Ref = r
		}
	}
	return out, nil
}

// callAsync runs a coarse-fences function: its device work waits for the
// wait fence (the next-to-last argument) and signals the signal fence (the
// last) when done; the call returns without waiting for it. A failure of
// the host program fails the signal fence too, so that its waiters wake.
func (inst *instance) callAsync(ad AsyncDevice, fi int, args []Value, st *stack) ([]Value, error) {
	wait, signal := args[len(args)-2].Ref, args[len(args)-1].Ref
	if err := ad.WaitFor(wait); err != nil {
		ad.Fail(signal, err)
		return nil, err
	}
	res, err := inst.call(fi, args, st)
	if err == nil {
		err = ad.SignalWhenDone(signal)
	}
	if err != nil {
		ad.Fail(signal, err)
		return nil, err
	}
	return res, nil
}

// checkTensorArgs verifies that buffer-view arguments have the element
// type and static dimensions the function was compiled for.
func (c *Context) checkTensorArgs(f *module.Function, args []Value) error {
	if err := checkArgs(f, args); err != nil {
		return err
	}
	for i, t := range f.ArgTypes {
		if t.ElementType == 0 {
			continue
		}
		want := tensorTypeText(t.ElementType, t.Dims)
		if args[i].Kind != KindRef {
			return status.Errorf(status.InvalidArgument, "function '%s' argument %d: expected %s, got null", f.Name, i, want)
		}
		et, dims, err := c.dev.Shape(args[i].Ref)
		if err != nil {
			return status.Errorf(status.InvalidArgument, "function '%s' argument %d: expected %s: %v", f.Name, i, want, err)
		}
		ok := compatibleElements(et, t.ElementType) && len(dims) == len(t.Dims)
		for j := 0; ok && j < len(dims); j++ {
			ok = t.Dims[j] < 0 || t.Dims[j] == dims[j]
		}
		if !ok {
			return status.Errorf(status.InvalidArgument, "function '%s' argument %d: expected %s, got %s", f.Name, i, want, tensorTypeText(et, dims))
		}
	}
	return nil
}

// tensorTypeText formats "tensor<4x?xf32>" from an IREE element-type word.
func tensorTypeText(et uint32, dims []int64) string {
	var b strings.Builder
	b.WriteString("tensor<")
	for _, d := range dims {
		if d < 0 {
			b.WriteString("?x")
		} else {
			fmt.Fprintf(&b, "%dx", d)
		}
	}
	b.WriteString(elementText(et))
	b.WriteString(">")
	return b.String()
}

func elementText(et uint32) string {
	bits := et & 0xff
	switch et >> 24 {
	case 0x10:
		return fmt.Sprintf("i%d", bits)
	case 0x11:
		return fmt.Sprintf("si%d", bits)
	case 0x12:
		return fmt.Sprintf("ui%d", bits)
	case 0x13:
		return "i1"
	case 0x21:
		return fmt.Sprintf("f%d", bits)
	case 0x22:
		return "bf16"
	case 0x23:
		return fmt.Sprintf("complex<f%d>", bits/2)
	case 0x24, 0x25, 0x26, 0x27, 0x28, 0x29:
		return [...]string{"f8E5M2", "f8E4M3FN", "f8E5M2FNUZ", "f8E4M3FNUZ", "f8E8M0FNU", "f4E2M1FN"}[et>>24-0x24]
	}
	return fmt.Sprintf("x%d", bits)
}

// compatibleElements reports element types that may be passed for one
// another: equal ones, and integers of the same width whatever their
// signedness (numpy's int32 for a signless i32), as IREE allows.
func compatibleElements(got, want uint32) bool {
	if got == want {
		return true
	}
	isInt := func(t uint32) bool { n := t >> 24; return n >= 0x10 && n <= 0x12 }
	return isInt(got) && isInt(want) && got&0xff == want&0xff
}

// Release hands the buffers of values (results the caller is done with)
// back to the device for reuse, keeping any storage that keep or a module
// global still uses.
func (c *Context) Release(values []Value, keep []Value) {
	var refs, held []any
	for _, v := range values {
		if v.Kind == KindRef {
			refs = append(refs, v.Ref)
		}
	}
	for _, v := range keep {
		if v.Kind == KindRef {
			held = append(held, v.Ref)
		}
	}
	for _, inst := range c.mods {
		for i := range inst.globals {
			if g := inst.globals[i].load(); g.Kind == KindRef {
				held = append(held, g.Ref)
			}
		}
	}
	c.dev.Release(refs, held)
}
