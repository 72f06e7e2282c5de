package main

/*
#include "internal.h"
*/
import "C"

import (
	"runtime/cgo"
	"unsafe"

	"github.com/gree-ml/gree/go/runtime"
	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/vm"
	"github.com/gree-ml/gree/go/status"
)

// module is what a gree_module_t holds: the loaded module and the C
// strings it hands out (freed on release).
type module struct {
	m                  *vm.Module
	name               *C.char
	names, cconv, decl []*C.char
}

func handleOf[T any](h C.uintptr_t, what string) (T, error) {
	var zero T
	if h == 0 {
		return zero, status.Errorf(status.InvalidArgument, "%s must not be NULL", what)
	}
	v, ok := cgo.Handle(h).Value().(T)
	if !ok {
		return zero, status.Errorf(status.InvalidArgument, "%s handle is not a %s (released already?)", what, what)
	}
	return v, nil
}

func newHandle(v any) C.uintptr_t { return C.uintptr_t(cgo.NewHandle(v)) }

func alloc[T any]() *T { return (*T)(C.calloc(1, C.size_t(unsafe.Sizeof(*new(T))))) }

//export gree_module_load
func gree_module_load(data *C.uint8_t, size C.size_t, out *C.gree_module_t) (st C.gree_status_t) {
	defer guard(&st)
	if out == nil || (data == nil && size > 0) {
		return invalidArg("data and out_module must not be NULL")
	}
	*out = nil
	b := C.GoBytes(unsafe.Pointer(data), C.int(size))
	m, err := vm.LoadModule(b)
	if err != nil {
		return toStatus(err)
	}
	mod := &module{m: m, name: C.CString(m.Name())}
	for _, n := range m.ExportNames() {
		f, _ := m.Lookup(n)
		decl := ""
		for _, r := range f.Reflection {
			if r.Key == "iree.abi.declaration" {
				decl = r.Value
			}
		}
		mod.names = append(mod.names, C.CString(n))
		mod.cconv = append(mod.cconv, C.CString(f.CConv()))
		mod.decl = append(mod.decl, C.CString(decl))
	}
	h := alloc[C.struct_gree_module_s]()
	h.handle = newHandle(mod)
	*out = h
	return nil
}

//export gree_module_release
func gree_module_release(m C.gree_module_t) {
	defer guardVoid()
	if m == nil {
		return
	}
	if mod, err := handleOf[*module](m.handle, "module"); err == nil {
		C.free(unsafe.Pointer(mod.name))
		for _, list := range [][]*C.char{mod.names, mod.cconv, mod.decl} {
			for _, p := range list {
				C.free(unsafe.Pointer(p))
			}
		}
	}
	cgo.Handle(m.handle).Delete()
	C.free(unsafe.Pointer(m))
}

//export gree_module_name
func gree_module_name(m C.gree_module_t) *C.char {
	defer guardVoid()
	if m == nil {
		return nil
	}
	mod, err := handleOf[*module](m.handle, "module")
	if err != nil {
		return nil
	}
	return mod.name
}

//export gree_module_function_count
func gree_module_function_count(m C.gree_module_t) C.size_t {
	defer guardVoid()
	if m == nil {
		return 0
	}
	mod, err := handleOf[*module](m.handle, "module")
	if err != nil {
		return 0
	}
	return C.size_t(len(mod.names))
}

//export gree_module_function_info
func gree_module_function_info(m C.gree_module_t, index C.size_t, outName, outCConv, outDecl **C.char) (st C.gree_status_t) {
	defer guard(&st)
	if m == nil {
		return invalidArg("module must not be NULL")
	}
	mod, err := handleOf[*module](m.handle, "module")
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

//export gree_context_create
func gree_context_create(d C.gree_device_t, out *C.gree_context_t) (st C.gree_status_t) {
	defer guard(&st)
	if d == nil || out == nil {
		return invalidArg("device and out_context must not be NULL")
	}
	*out = nil
	dev, err := handleOf[hal.Device](d.handle, "device")
	if err != nil {
		return toStatus(err)
	}
	h := alloc[C.struct_gree_context_s]()
	h.handle = newHandle(runtime.NewSessionOn(dev))
	*out = h
	return nil
}

//export gree_context_release
func gree_context_release(c C.gree_context_t) {
	defer guardVoid()
	if c == nil {
		return
	}
	cgo.Handle(c.handle).Delete()
	C.free(unsafe.Pointer(c))
}

func sessionOf(c C.gree_context_t) (*runtime.Session, error) {
	if c == nil {
		return nil, status.New(status.InvalidArgument, "context must not be NULL")
	}
	return handleOf[*runtime.Session](c.handle, "context")
}

//export gree_context_add_module
func gree_context_add_module(c C.gree_context_t, m C.gree_module_t) (st C.gree_status_t) {
	defer guard(&st)
	s, err := sessionOf(c)
	if err != nil {
		return toStatus(err)
	}
	if m == nil {
		return invalidArg("module must not be NULL")
	}
	mod, err := handleOf[*module](m.handle, "module")
	if err != nil {
		return toStatus(err)
	}
	return toStatus(s.AddModule(mod.m))
}

//export gree_context_add_check_module
func gree_context_add_check_module(c C.gree_context_t) (st C.gree_status_t) {
	defer guard(&st)
	s, err := sessionOf(c)
	if err != nil {
		return toStatus(err)
	}
	s.WithCheck()
	return nil
}

//export gree_context_invoke
func gree_context_invoke(c C.gree_context_t, modName, fn *C.char, args C.gree_value_list_t, out *C.gree_value_list_t) (st C.gree_status_t) {
	defer guard(&st)
	if modName == nil || fn == nil || out == nil {
		return invalidArg("module_name, function and out_results must not be NULL")
	}
	*out = nil
	s, err := sessionOf(c)
	if err != nil {
		return toStatus(err)
	}
	var in []vm.Value
	if args != nil {
		l, err := handleOf[*vm.List](args.handle, "value list")
		if err != nil {
			return toStatus(err)
		}
		in = l.Items
	}
	res, err := s.Call(C.GoString(modName), C.GoString(fn), in)
	if err != nil {
		return toStatus(err)
	}
	if s.Check != nil {
		if fails := s.Check.Failures(); len(fails) > 0 {
			msg := fails[0]
			for _, f := range fails[1:] {
				msg += "\n" + f
			}
			return toStatus(status.New(status.FailedPrecondition, msg))
		}
	}
	*out = newList(&vm.List{Items: res})
	return nil
}

func newList(l *vm.List) C.gree_value_list_t {
	h := alloc[C.struct_gree_value_list_s]()
	h.handle = newHandle(l)
	return h
}

func newView(bv *hal.BufferView) C.gree_buffer_view_t {
	h := alloc[C.struct_gree_buffer_view_s]()
	h.handle = newHandle(bv)
	return h
}
