package main

/*
#include "internal.h"
*/
import "C"

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gree-ml/gree/go/runtime"
	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/vm"
	"github.com/gree-ml/gree/go/status"
)

// maxModuleBytes bounds the size of a module file (IREE's flatbuffers are
// limited to 2 GiB; gree's format allows more, up to this bound).
const maxModuleBytes = 1 << 40

// module is what a gree_module_t holds: the loaded module and the C
// strings it hands out (freed on release).
type module struct {
	m                  *vm.Module
	name               *C.char
	names, cconv, decl []*C.char
	// refl holds each export's reflection attributes, key then value.
	refl [][][2]*C.char
	// host is the module's implementation when the caller provides it
	// (gree_host_module_create; m is then an empty stand-in): the handle
	// holds one reference to it.
	host *vm.HostModule
}

func alloc[T any]() *T { return (*T)(C.calloc(1, C.size_t(unsafe.Sizeof(*new(T))))) }

func moduleOf(m C.gree_module_t) (*module, error) {
	return objOf[*module](unsafe.Pointer(m), kindModule)
}

//export gree_module_load
func gree_module_load(data *C.uint8_t, size C.size_t, out *C.gree_module_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil || (data == nil && size > 0) {
		return invalidArg("data and out_module must not be NULL")
	}
	*out = nil
	if uint64(size) > maxModuleBytes {
		return invalidArg("module of %d bytes is larger than the %d bytes gree loads", uint64(size), uint64(maxModuleBytes))
	}
	if err := hal.CheckHostAllocation(int64(size), "a copy of a module"); err != nil {
		return toStatus(err)
	}
	// Copy without C.GoBytes, whose length is a C int (2 GiB).
	b := make([]byte, int(size))
	if size > 0 {
		copy(b, unsafe.Slice((*byte)(unsafe.Pointer(data)), int(size)))
	}
	m, err := vm.LoadModule(b)
	if err != nil {
		return toStatus(err)
	}
	mod := &module{m: m, name: C.CString(m.Name())}
	strs := []*C.char{mod.name}
	for _, n := range m.ExportNames() {
		f, _ := m.Lookup(n)
		decl := ""
		for _, r := range f.Reflection {
			if r.Key == "iree.abi.declaration" {
				decl = r.Value
			}
		}
		mod.names = append(mod.names, C.CString(n))
		mod.cconv = append(mod.cconv, C.CString(ireeCConv(f.CConv())))
		mod.decl = append(mod.decl, C.CString(decl))
		var attrs [][2]*C.char
		for _, r := range f.Reflection {
			kv := [2]*C.char{C.CString(r.Key), C.CString(r.Value)}
			attrs = append(attrs, kv)
			strs = append(strs, kv[0], kv[1])
		}
		mod.refl = append(mod.refl, attrs)
	}
	for _, l := range [][]*C.char{mod.names, mod.cconv, mod.decl} {
		strs = append(strs, l...)
	}
	*out = (C.gree_module_t)(newHandle(kindModule, mod, strs...))
	return nil
}

//export gree_module_release
func gree_module_release(m C.gree_module_t) {
	defer guardVoid()
	if mod, ok := dropHandle(unsafe.Pointer(m), kindModule).(*module); ok && mod.host != nil {
		mod.host.Release()
	}
}

//export gree_module_name
func gree_module_name(m C.gree_module_t) *C.char {
	defer guardVoid()
	mod, err := moduleOf(m)
	if err != nil {
		return nil
	}
	return mod.name
}

//export gree_module_function_count
func gree_module_function_count(m C.gree_module_t) C.size_t {
	defer guardVoid()
	mod, err := moduleOf(m)
	if err != nil {
		return 0
	}
	return C.size_t(len(mod.names))
}

//export gree_module_function_info
func gree_module_function_info(m C.gree_module_t, index C.size_t, outName, outCConv, outDecl **C.char) (st C.gree_status_t) {
	defer guard(&st)
	mod, err := moduleOf(m)
	if err != nil {
		return toStatus(err)
	}
	if int(index) >= len(mod.names) {
		return toStatus(status.Errorf(status.OutOfRange, "function index %d out of range; the module exports %d functions", index, len(mod.names)))
	}
	if outName != nil {
		*outName = mod.names[index]
	}
	if outCConv != nil {
		*outCConv = mod.cconv[index]
	}
	if outDecl != nil {
		*outDecl = mod.decl[index]
	}
	return nil
}

//export gree_module_function_reflection_count
func gree_module_function_reflection_count(m C.gree_module_t, index C.size_t) C.size_t {
	defer guardVoid()
	mod, err := moduleOf(m)
	if err != nil || int(index) >= len(mod.refl) {
		return 0
	}
	return C.size_t(len(mod.refl[index]))
}

//export gree_module_function_reflection
func gree_module_function_reflection(m C.gree_module_t, index, i C.size_t, outKey, outValue **C.char) (st C.gree_status_t) {
	defer guard(&st)
	mod, err := moduleOf(m)
	if err != nil {
		return toStatus(err)
	}
	if int(index) >= len(mod.refl) || int(i) >= len(mod.refl[index]) {
		return toStatus(status.Errorf(status.OutOfRange, "reflection attribute %d of function %d is out of range", i, index))
	}
	if outKey != nil {
		*outKey = mod.refl[index][i][0]
	}
	if outValue != nil {
		*outValue = mod.refl[index][i][1]
	}
	return nil
}

//export gree_context_create
func gree_context_create(d C.gree_device_t, out *C.gree_context_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil {
		return invalidArg("out_context must not be NULL")
	}
	*out = nil
	dev, err := deviceOf(d)
	if err != nil {
		return toStatus(err)
	}
	*out = (C.gree_context_t)(newHandle(kindContext, &context{s: runtime.NewSessionOn(dev)}))
	return nil
}

//export gree_context_release
func gree_context_release(c C.gree_context_t) {
	defer guardVoid()
	if ctx, ok := dropHandle(unsafe.Pointer(c), kindContext).(*context); ok {
		// Wait for a call in progress on another thread, then free the
		// context's executables and cached buffers now (results the
		// caller holds stay valid).
		ctx.mu.Lock()
		defer ctx.mu.Unlock()
		if err := ctx.s.Close(); err != nil {
			fmt.Fprintf(stderr(), "gree: releasing a context: %v\n", err)
		}
	}
}

// context is what a gree_context_t holds: a session and the lock that
// keeps registering modules, setting the trace sink and releasing the
// context exclusive against calls. Calls take its read side, so calls
// from several threads run at once (vm.Context runs them concurrently:
// each records its device work apart; callers such as Python release
// their own lock around calls).
type context struct {
	mu sync.RWMutex
	s  *runtime.Session
	// lastCall holds, per function ("module.function"), an
	// *atomic.Int64: how long (ns) it took when last invoked, which
	// decides where the next invocation runs.
	lastCall sync.Map
}

// lastDuration returns the slot of key's last duration in c.lastCall.
func (c *context) lastDuration(key string) *atomic.Int64 {
	if v, ok := c.lastCall.Load(key); ok {
		return v.(*atomic.Int64)
	}
	v, _ := c.lastCall.LoadOrStore(key, new(atomic.Int64))
	return v.(*atomic.Int64)
}

// offThreadAfter is how long a function's last invocation must have taken
// for the next one to run off the caller's thread (see offThread). The
// hand-off wakes two threads (a one-op function from Python: 35 µs per
// call inline, 70-130 off the thread), which long invocations repay many
// times over and short ones do not.
const offThreadAfter = time.Millisecond

// lockContext returns the context's session with its lock held
// exclusively; the caller unlocks.
func lockContext(c C.gree_context_t) (*context, error) {
	ctx, err := objOf[*context](unsafe.Pointer(c), kindContext)
	if err != nil {
		return nil, err
	}
	ctx.mu.Lock()
	return ctx, nil
}

// rlockContext returns the context's session with the read side of its
// lock held (a call); the caller unlocks with RUnlock.
func rlockContext(c C.gree_context_t) (*context, error) {
	ctx, err := objOf[*context](unsafe.Pointer(c), kindContext)
	if err != nil {
		return nil, err
	}
	ctx.mu.RLock()
	return ctx, nil
}

//export gree_context_add_module
func gree_context_add_module(c C.gree_context_t, m C.gree_module_t) (st C.gree_status_t) {
	defer guard(&st)
	mod, err := moduleOf(m)
	if err != nil {
		return toStatus(err)
	}
	ctx, err := lockContext(c)
	if err != nil {
		return toStatus(err)
	}
	defer ctx.mu.Unlock()
	if mod.host != nil {
		return toStatus(ctx.s.Context.RegisterHost(mod.host))
	}
	return toStatus(ctx.s.AddModule(mod.m))
}

//export gree_context_set_trace_sink
func gree_context_set_trace_sink(c C.gree_context_t, fn C.gree_trace_fn_t, user unsafe.Pointer) (st C.gree_status_t) {
	defer guard(&st)
	ctx, err := lockContext(c)
	if err != nil {
		return toStatus(err)
	}
	defer ctx.mu.Unlock()
	if fn == nil {
		ctx.s.Bridge.SetTraceSink(nil)
		return nil
	}
	ctx.s.Bridge.SetTraceSink(func(key string, views []*hal.BufferView) error {
		items := make([]vm.Value, len(views))
		for i, v := range views {
			items[i] = vm.RefValue(v)
		}
		list := newList(&vm.List{Items: items})
		defer gree_value_list_release(list)
		ckey := C.CString(key)
		defer C.free(unsafe.Pointer(ckey))
		return fromStatus(C.gree__call_trace(fn, user, ckey, list), "trace sink")
	})
	return nil
}

// fromStatus turns a status a callback returned into a Go error (and
// frees it).
func fromStatus(st C.gree_status_t, what string) error {
	if st == nil {
		return nil
	}
	defer func() {
		C.free(unsafe.Pointer(st.message))
		C.free(unsafe.Pointer(st))
	}()
	code := status.Code(st.code)
	if code == status.OK {
		code = status.Unknown
	}
	msg := C.GoString(st.message)
	if p := code.String() + "; "; strings.HasPrefix(msg, p) {
		msg = msg[len(p):]
	}
	return status.Errorf(code, "%s: %s", what, msg)
}

//export gree_context_add_check_module
func gree_context_add_check_module(c C.gree_context_t) (st C.gree_status_t) {
	defer guard(&st)
	ctx, err := lockContext(c)
	if err != nil {
		return toStatus(err)
	}
	defer ctx.mu.Unlock()
	if ctx.s.Context.HasModule("check") && ctx.s.Check == nil {
		return toStatus(status.New(status.AlreadyExists, "a module named 'check' is already registered"))
	}
	ctx.s.WithCheck()
	return nil
}

//export gree_context_invoke
func gree_context_invoke(c C.gree_context_t, modName, fn *C.char, args C.gree_value_list_t, out *C.gree_value_list_t) (st C.gree_status_t) {
	defer guard(&st)
	return contextInvoke(c, modName, fn, args, nil, out)
}

// contextInvoke is gree_context_invoke bounded by opts (nil: unbounded;
// see gree_context_invoke_with_options).
func contextInvoke(c C.gree_context_t, modName, fn *C.char, args C.gree_value_list_t, opts *vm.InvokeOptions, out *C.gree_value_list_t) C.gree_status_t {
	if modName == nil || fn == nil || out == nil {
		return invalidArg("module_name, function and out_results must not be NULL")
	}
	*out = nil
	var in []vm.Value
	if args != nil {
		l, err := listOf(args)
		if err != nil {
			return toStatus(err)
		}
		in = l.Items
	}
	ctx, err := rlockContext(c)
	if err != nil {
		return toStatus(err)
	}
	defer ctx.mu.RUnlock()
	s := ctx.s
	mname, fname := C.GoString(modName), C.GoString(fn)
	in, err = coerceArgs(s, mname, fname, in)
	if err != nil {
		return toStatus(err)
	}
	call := func() ([]vm.Value, error) { return s.CallWith(mname, fname, in, opts) }
	last := ctx.lastDuration(mname + "." + fname)
	start := time.Now()
	var res []vm.Value
	if time.Duration(last.Load()) >= offThreadAfter {
		res, err = offThread(call)
	} else {
		res, err = call()
	}
	last.Store(int64(time.Since(start)))
	if err != nil {
		// Failed expectations of the check module are the call's error
		// (FAILED_PRECONDITION listing them: vm.CallFailures).
		return toStatus(err)
	}
	*out = newList(&vm.List{Items: res})
	// The list holds its own references: the results' memory goes when
	// the list (and whatever the caller took from it) is released.
	s.Bridge.Disown(refsOf(res), refsOf(in))
	return nil
}

// refsOf returns the references among values.
func refsOf(values []vm.Value) []any {
	var out []any
	for _, v := range values {
		if v.Kind == vm.KindRef && v.Ref != nil {
			out = append(out, v.Ref)
		}
	}
	return out
}

// ireeCConv spells a calling convention as IREE does, with "v" for an
// empty argument or result list ("0_" → "0v_v", "0r_" → "0r_v").
func ireeCConv(cc string) string {
	args, results, _ := strings.Cut(strings.TrimPrefix(cc, "0"), "_")
	if args == "" {
		args = "v"
	}
	if results == "" {
		results = "v"
	}
	return "0" + args + "_" + results
}

// coerceArgs converts primitive arguments to the types the function's
// calling convention names, as IREE's invoke marshalling does: integers
// between i32 and i64 (an i64 outside [-2^31, 2^32) does not fit an i32)
// and floats between f32 and f64. Other mismatches are left to the VM,
// which reports them. args is not modified.
func coerceArgs(s *runtime.Session, modName, fn string, args []vm.Value) ([]vm.Value, error) {
	var cc string
	for _, m := range s.Modules() {
		if m.Name() == modName {
			if f, ok := m.Lookup(fn); ok {
				cc = f.CConv()
			}
		}
	}
	if f, ok := s.Context.HostFunction(modName, fn); ok && cc == "" {
		cc = f.CConv()
	}
	kinds, _, _ := strings.Cut(strings.TrimPrefix(cc, "0"), "_")
	if len(kinds) != len(args) {
		return args, nil
	}
	out := append([]vm.Value(nil), args...)
	for i, v := range out {
		switch {
		case kinds[i] == 'i' && v.Kind == vm.KindI64:
			if v.I < math.MinInt32 || v.I > math.MaxUint32 {
				return nil, status.Errorf(status.InvalidArgument, "function '%s' argument %d: %d does not fit in an i32", fn, i, v.I)
			}
			out[i] = vm.I32(int32(v.I))
		case kinds[i] == 'I' && v.Kind == vm.KindI32:
			out[i] = vm.I64(v.I)
		case kinds[i] == 'f' && v.Kind == vm.KindF64:
			out[i] = vm.F32(float32(v.F))
		case kinds[i] == 'F' && v.Kind == vm.KindF32:
			out[i] = vm.F64(v.F)
		}
	}
	return out, nil
}
