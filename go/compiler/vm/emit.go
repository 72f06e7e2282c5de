package vm

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/gree-ml/gree/go/compiler/codegen"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/schemas/module"
)

// DispatchRef says how the host reaches one dispatch region's kernel.
type DispatchRef struct {
	*codegen.Dispatch
	Executable, Entry int
	// Variants are the region's kernels for the other targets of a
	// module compiled for several, in the order of the executable
	// group's alternative variants. They take Dispatch's bindings and
	// push constants; the host computes each one's workgroup counts.
	Variants []*kir.Kernel
}

// Input is what the host emitter works from.
type Input struct {
	Module      *ir.Module
	Dispatches  map[*ir.Operation]DispatchRef
	Executables []module.Executable
	Attrs       []module.Attr
	// Trace prints each dispatch's tensors at run time.
	Trace bool
	// CoarseFences exports functions with IREE's coarse-fences ABI
	// (--iree-execution-model=async-external): each takes a wait and a
	// signal fence after its arguments; the runtime starts its device work
	// once the wait fence is reached and signals the other when the work
	// is done, without the caller waiting.
	CoarseFences bool
	// PlaceAlign is the byte alignment at which a dispatch may write its
	// result straight into a concatenation's buffer, or a concatenation be
	// a view of a larger one's (see placements): the offset alignment every
	// target's bindings allow (64, a cache line, on CPUs; 256 where a GPU
	// runs). 0 places nothing.
	PlaceAlign int64
}

// CoarseFencesModel is the iree.abi.model reflection value of functions
// with the coarse-fences ABI.
const CoarseFencesModel = "coarse-fences"

// emitter builds one module.
type emitter struct {
	in      *Input
	mod     *module.Module
	funcs   map[string]int // symbol → function index
	imports map[string]int // "module.name" → import index
	globals map[string]int
}

// Emit produces the module for in.
func Emit(in *Input) (*module.Module, error) {
	name := in.Module.Name()
	if name == "" {
		name = "module"
	}
	e := &emitter{in: in, mod: &module.Module{Name: name, Attrs: in.Attrs, Executables: in.Executables},
		funcs: map[string]int{}, imports: map[string]int{}, globals: map[string]int{}}
	var fns []*ir.Operation
	for _, op := range in.Module.Body().Ops {
		switch op.Name {
		case "func.func", "util.func":
			sym := symName(op)
			if isExternal(op) {
				// A declaration: an import from another module (module.fn).
				continue
			}
			e.funcs[sym] = len(fns)
			fns = append(fns, op)
		case "util.global":
			if err := e.global(op); err != nil {
				return nil, err
			}
		}
	}
	e.mod.Functions = make([]module.Function, len(fns))
	for i, fn := range fns {
		// Signatures first: calls need them.
		f, err := signature(fn, in.CoarseFences && !isPrivate(fn))
		if err != nil {
			return nil, err
		}
		e.mod.Functions[i] = *f
	}
	for i, fn := range fns {
		if err := e.function(fn, &e.mod.Functions[i]); err != nil {
			return nil, err
		}
		if !isPrivate(fn) {
			e.mod.Exports = append(e.mod.Exports, module.Export{Name: symName(fn), Function: i})
		}
	}
	if err := module.Verify(e.mod); err != nil {
		return nil, fmt.Errorf("vm: the emitted module does not verify (a compiler bug): %w", err)
	}
	return e.mod, nil
}

func symName(op *ir.Operation) string {
	if s, ok := op.Attr("sym_name").(*ir.StringAttr); ok {
		return s.Value
	}
	return ""
}

func isPrivate(op *ir.Operation) bool {
	s, ok := op.Attr("sym_visibility").(*ir.StringAttr)
	return ok && s.Value == "private"
}

func isExternal(op *ir.Operation) bool {
	return len(op.Regions) == 0 || len(op.Regions[0].Blocks) == 0
}

func funcType(op *ir.Operation) *ir.FunctionType {
	if t, ok := op.Attr("function_type").(*ir.TypeAttr); ok {
		if ft, ok := t.Type.(*ir.FunctionType); ok {
			return ft
		}
	}
	return &ir.FunctionType{}
}

// signature fills a function's name, kinds and reflection; with fences,
// the coarse-fences ABI's wait and signal fences follow the arguments.
func signature(fn *ir.Operation, fences bool) (*module.Function, error) {
	ft := funcType(fn)
	f := &module.Function{Name: symName(fn)}
	for i, t := range ft.Inputs {
		k, ok := kindOf(t)
		if !ok {
			return nil, ir.OpErrorf(fn, "argument %d has type %s, which gree cannot pass to a function yet", i, t)
		}
		f.Args = append(f.Args, k)
		var tt module.TensorType
		if rt, isTensor := t.(*ir.RankedTensorType); isTensor {
			tt.ElementType, _ = ElementTypeWord(rt.Elem)
			tt.Dims = append([]int64(nil), rt.Dims...)
			for j := range tt.Dims {
				if tt.Dims[j] < 0 {
					tt.Dims[j] = -1
				}
			}
		}
		f.ArgTypes = append(f.ArgTypes, tt)
	}
	for i, t := range ft.Results {
		k, ok := kindOf(t)
		if !ok {
			return nil, ir.OpErrorf(fn, "result %d has type %s, which gree cannot return from a function yet", i, t)
		}
		f.Results = append(f.Results, k)
	}
	f.Reflection = []module.Attr{{Key: "iree.abi.declaration", Value: declaration(f.Name, ft, fences)}}
	if fences {
		f.Args = append(f.Args, module.KindRef, module.KindRef)
		f.ArgTypes = append(f.ArgTypes, module.TensorType{}, module.TensorType{})
		f.Reflection = append(f.Reflection, module.Attr{Key: "iree.abi.model", Value: CoarseFencesModel})
	}
	return f, nil
}

// declaration is IREE's iree.abi.declaration text ("async func" for the
// coarse-fences ABI).
func declaration(name string, ft *ir.FunctionType, async bool) string {
	var b bytes.Buffer
	kind := "sync"
	if async {
		kind = "async"
	}
	fmt.Fprintf(&b, "%s func @%s(", kind, name)
	var parts []string
	for i, t := range ft.Inputs {
		parts = append(parts, fmt.Sprintf("%%input%d: %s", i, t))
	}
	b.WriteString(strings.Join(parts, ", "))
	b.WriteString(") -> (")
	parts = parts[:0]
	for i, t := range ft.Results {
		parts = append(parts, fmt.Sprintf("%%output%d: %s", i, t))
	}
	b.WriteString(strings.Join(parts, ", "))
	b.WriteString(")")
	return b.String()
}

// constant adds a dense tensor constant and returns its index.
func (e *emitter) constant(op *ir.Operation, a ir.Attribute, t *ir.RankedTensorType) (int, error) {
	dense, ok := a.(*ir.DenseElementsAttr)
	if r, isRes := a.(*ir.DenseResourceAttr); isRes {
		if raw, whole := r.RawElements(); whole {
			if word, known := ElementTypeWord(t.Elem); known {
				// The weights as the input gave them: no decode, no copy.
				e.mod.Constants = append(e.mod.Constants, module.Constant{ElementType: word, Shape: append([]int64(nil), t.Dims...), Data: raw})
				return len(e.mod.Constants) - 1, nil
			}
		}
		var err error
		if dense, err = r.Elements(); err != nil {
			return 0, ir.OpErrorf(op, "%v", err)
		}
		ok = true
	}
	if !ok {
		return 0, ir.OpErrorf(op, "has a tensor constant gree cannot store: %s", a)
	}
	word, ok := ElementTypeWord(t.Elem)
	if !ok {
		return 0, ir.OpErrorf(op, "has elements of type %s, which gree cannot store yet", t.Elem)
	}
	raw, err := dense.Bytes()
	if err != nil {
		return 0, ir.OpErrorf(op, "%v", err)
	}
	n, _ := ir.NumElements(t.Dims)
	if dense.Splat && n != 1 {
		if len(raw) > 0 && n > maxSplatBytes/int64(len(raw)) {
			return 0, ir.OpErrorf(op, "has a splat constant of %s: %d elements, over the %d bytes gree stores a constant in", t, n, int64(maxSplatBytes))
		}
		raw = bytes.Repeat(raw, int(n))
	}
	e.mod.Constants = append(e.mod.Constants, module.Constant{ElementType: word, Shape: append([]int64(nil), t.Dims...), Data: raw})
	return len(e.mod.Constants) - 1, nil
}

// maxSplatBytes bounds a splat constant written out in full (4 GiB): a
// splat of 2^32 elements or more is a few bytes of source text that would
// otherwise take the compiler's memory.
const maxSplatBytes = 1 << 32

// global declares a util.global.
func (e *emitter) global(op *ir.Operation) error {
	name := symName(op)
	ta, _ := op.Attr("type").(*ir.TypeAttr)
	if ta == nil {
		return ir.OpErrorf(op, "has no type")
	}
	k, ok := kindOf(ta.Type)
	if !ok {
		return ir.OpErrorf(op, "has type %s, which gree globals cannot hold yet", ta.Type)
	}
	g := module.Global{Name: name, Kind: k, Init: -1, Mutable: op.Attr("is_mutable") != nil}
	if iv := op.Attr("initial_value"); iv != nil {
		switch a := iv.(type) {
		case *ir.IntegerAttr:
			g.InitI = a.Value
		case *ir.FloatAttr:
			g.InitF = a.Value
		default:
			t, ok := ta.Type.(*ir.RankedTensorType)
			if !ok {
				return ir.OpErrorf(op, "has an initial value gree cannot use: %s", iv)
			}
			constant := e.constant
			if ir.IsParameterAttr(iv) {
				constant = e.parameterConstant
			}
			c, err := constant(op, iv, t)
			if err != nil {
				return err
			}
			g.Init = int32(c)
		}
	}
	e.globals[name] = len(e.mod.Globals)
	e.mod.Globals = append(e.mod.Globals, g)
	return nil
}
