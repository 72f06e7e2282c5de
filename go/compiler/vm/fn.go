package vm

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/schemas/module"
)

// dim is one tensor dimension on the host: static, or held in an i64
// register.
type dim struct {
	static int64 // ≥ 0 when static
	reg    int32
}

// tensor is the host's view of a tensor value: its buffer-view register
// (-1 while it is an unmaterialized tensor.empty) and its dimensions.
type tensor struct {
	reg  int32
	dims []dim
	typ  *ir.RankedTensorType
	// dropped marks a constant no host op reads (see deadRegions): the
	// module does not store it, and nothing may ask for its register.
	dropped bool
}

// fnEmitter emits one function.
type fnEmitter struct {
	e       *emitter
	f       *module.Function
	regOf   map[*ir.Value]int32
	tensors map[*ir.Value]*tensor
	dead    map[*ir.Operation]bool
	place   *placement
	// Unstructured control flow (cf.br / cf.cond_br between blocks).
	blockPC   map[*ir.Block]int32
	blockArgs map[*ir.Block][]int32
	fixups    []fixup
}

// fixup is a branch whose target block's address is not known yet.
type fixup struct {
	pc     int
	second bool // Index2 rather than Index
	block  *ir.Block
}

func (e *emitter) function(fn *ir.Operation, f *module.Function) error {
	fe := &fnEmitter{e: e, f: f, regOf: map[*ir.Value]int32{}, tensors: map[*ir.Value]*tensor{}, dead: deadRegions(fn, e.in.Dispatches)}
	fe.place = planPlacements(fn, e.in.Dispatches, fe.dead, e.in.PlaceAlign)
	f.Regs = append([]module.Kind(nil), f.Args...)
	blocks := fn.Regions[0].Blocks
	entry := blocks[0]
	for i, a := range entry.Args {
		if err := fe.bindArg(a, int32(i)); err != nil {
			return err
		}
	}
	var err error
	if len(blocks) == 1 {
		err = fe.block(entry)
	} else {
		err = fe.cfg(blocks)
	}
	if err != nil {
		return err
	}
	simplify(f)
	insertDiscards(f)
	compactRegisters(f)
	return nil
}

func (fe *fnEmitter) newReg(k module.Kind) int32 {
	fe.f.Regs = append(fe.f.Regs, k)
	return int32(len(fe.f.Regs) - 1)
}

func (fe *fnEmitter) emit(in module.Instr) int {
	fe.f.Code = append(fe.f.Code, in)
	return len(fe.f.Code) - 1
}

func (fe *fnEmitter) pc() int32 { return int32(len(fe.f.Code)) }

func (fe *fnEmitter) constI64(x int64) int32 {
	r := fe.newReg(module.KindI64)
	fe.emit(module.Instr{Op: module.OpConstI, Type: module.TypeI64, Dst: []int32{r}, Imm: x})
	return r
}

// bindArg records that value a lives in register r (already of the right
// kind), reading the dynamic dimensions of tensors.
func (fe *fnEmitter) bindArg(a *ir.Value, r int32) error {
	if t, ok := a.Type.(*ir.RankedTensorType); ok {
		ts := &tensor{reg: r, typ: t}
		for i, d := range t.Dims {
			if d >= 0 {
				ts.dims = append(ts.dims, dim{static: d})
				continue
			}
			dr := fe.newReg(module.KindI64)
			fe.emit(module.Instr{Op: module.OpDim, Dst: []int32{dr}, Src: []int32{r}, Imm: int64(i)})
			ts.dims = append(ts.dims, dim{static: -1, reg: dr})
		}
		fe.tensors[a] = ts
		return nil
	}
	if _, ok := kindOf(a.Type); !ok {
		return ir.Errorf(a.Loc, "value of type %s cannot live on the host", a.Type)
	}
	fe.regOf[a] = r
	return nil
}

// newValue gives a result value a fresh register of its kind.
func (fe *fnEmitter) newValue(v *ir.Value) (int32, error) {
	k, ok := kindOf(v.Type)
	if !ok {
		return 0, ir.Errorf(v.Owner().Loc, "'%s' op result of type %s cannot live on the host", v.Owner().Name, v.Type)
	}
	r := fe.newReg(k)
	fe.regOf[v] = r
	return r, nil
}

// scalar returns the register of a scalar value.
func (fe *fnEmitter) scalar(v *ir.Value) (int32, error) {
	if r, ok := fe.regOf[v]; ok {
		return r, nil
	}
	if def := v.Owner(); def != nil {
		return 0, ir.OpErrorf(def, "result used on the host has no host value (internal error)")
	}
	return 0, ir.Errorf(v.Loc, "block argument has no host value (internal error)")
}

// dimReg returns a register holding dimension d.
func (fe *fnEmitter) dimReg(d dim) int32 {
	if d.static >= 0 {
		return fe.constI64(d.static)
	}
	return d.reg
}

// tensorOf returns the host view of a tensor value.
func (fe *fnEmitter) tensorOf(v *ir.Value) (*tensor, error) {
	if t, ok := fe.tensors[v]; ok {
		return t, nil
	}
	if def := v.Owner(); def != nil {
		return nil, ir.OpErrorf(def, "produces a tensor the host cannot use (internal error)")
	}
	return nil, ir.Errorf(v.Loc, "tensor block argument has no host value (internal error)")
}

// ref returns the buffer-view register of a tensor, allocating a zeroed
// buffer for a tensor.empty the first time one is needed.
func (fe *fnEmitter) ref(v *ir.Value) (int32, error) {
	t, err := fe.tensorOf(v)
	if err != nil {
		return 0, err
	}
	if t.reg >= 0 {
		return t.reg, nil
	}
	if t.dropped {
		return 0, ir.OpErrorf(v.Owner(), "is a constant the host program was found not to read, yet reads (internal error)")
	}
	word, ok := ElementTypeWord(t.typ.Elem)
	if !ok {
		return 0, ir.Errorf(v.Owner().Loc, "tensors of %s are not supported yet", t.typ.Elem)
	}
	r := fe.newReg(module.KindRef)
	var dims []int32
	for _, d := range t.dims {
		dims = append(dims, fe.dimReg(d))
	}
	fe.emit(module.Instr{Op: module.OpAlloc, Dst: []int32{r}, Src: dims, Imm: int64(word)})
	return r, nil
}

// defineTensor records a tensor result held in register r with dims.
func (fe *fnEmitter) defineTensor(v *ir.Value, r int32, dims []dim) {
	fe.tensors[v] = &tensor{reg: r, dims: dims, typ: v.Type.(*ir.RankedTensorType)}
}

// staticOr returns dims where the type's static sizes replace the given
// ones (a cast to a more static type).
func staticOr(t *ir.RankedTensorType, dims []dim) []dim {
	out := make([]dim, len(t.Dims))
	for i, d := range t.Dims {
		if d >= 0 {
			out[i] = dim{static: d}
		} else {
			out[i] = dims[i]
		}
	}
	return out
}

// copyTo emits moves so that the registers dst hold the values vals,
// materializing tensors; it returns the source registers for a Branch.
func (fe *fnEmitter) sources(vals []*ir.Value) ([]int32, error) {
	var out []int32
	for _, v := range vals {
		if _, ok := v.Type.(*ir.RankedTensorType); ok {
			r, err := fe.ref(v)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
			continue
		}
		r, err := fe.scalar(v)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// slots allocates registers for values of the given types (loop-carried
// values and region results) and returns them.
func (fe *fnEmitter) slots(types []ir.Type) ([]int32, error) {
	var out []int32
	for _, t := range types {
		k, ok := kindOf(t)
		if !ok {
			return nil, ir.Errorf(ir.Unknown, "values of type %s cannot be carried on the host", t)
		}
		out = append(out, fe.newReg(k))
	}
	return out, nil
}

// move emits a parallel copy src → dst without a jump (a branch to the
// next instruction).
func (fe *fnEmitter) move(dst, src []int32) {
	if len(dst) == 0 {
		return
	}
	fe.emit(module.Instr{Op: module.OpBranch, Dst: dst, Src: src, Index: fe.pc() + 1})
}
