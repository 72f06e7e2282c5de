package vm

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
	"github.com/gree-ml/gree/go/schemas/module"
)

// indices returns the registers of index operands.
func (fe *fnEmitter) indices(vs []*ir.Value) ([]int32, error) {
	out := make([]int32, len(vs))
	for i, v := range vs {
		r, err := fe.scalar(v)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

func (fe *fnEmitter) extract(op *ir.Operation) error {
	src, err := fe.ref(op.Operands[0])
	if err != nil {
		return err
	}
	idx, err := fe.indices(op.Operands[1:])
	if err != nil {
		return err
	}
	st, ok := scalarType(op.Results[0].Type)
	if !ok {
		return ir.OpErrorf(op, "extracts %s, which the host cannot hold", op.Results[0].Type)
	}
	dst, err := fe.newValue(op.Results[0])
	if err != nil {
		return err
	}
	fe.emit(module.Instr{Op: module.OpLoad, Type: st, Dst: []int32{dst}, Src: append([]int32{src}, idx...)})
	return nil
}

// insert copies the destination tensor and stores one element.
func (fe *fnEmitter) insert(op *ir.Operation) error {
	val, err := fe.scalar(op.Operands[0])
	if err != nil {
		return err
	}
	dest, err := fe.ref(op.Operands[1])
	if err != nil {
		return err
	}
	idx, err := fe.indices(op.Operands[2:])
	if err != nil {
		return err
	}
	st, ok := scalarType(op.Operands[0].Type)
	if !ok {
		return ir.OpErrorf(op, "inserts %s, which the host cannot hold", op.Operands[0].Type)
	}
	r := fe.newReg(module.KindRef)
	fe.emit(module.Instr{Op: module.OpClone, Dst: []int32{r}, Src: []int32{dest}})
	fe.emit(module.Instr{Op: module.OpStore, Type: st, Src: append([]int32{r, val}, idx...)})
	t, _ := fe.tensorOf(op.Operands[1])
	fe.defineTensor(op.Results[0], r, t.dims)
	return nil
}

// fromElements allocates a tensor and stores every element.
func (fe *fnEmitter) fromElements(op *ir.Operation) error {
	rt := op.Results[0].Type.(*ir.RankedTensorType)
	dims := staticOr(rt, nil)
	fe.tensors[op.Results[0]] = &tensor{reg: -1, dims: dims, typ: rt}
	r, err := fe.ref(op.Results[0])
	if err != nil {
		return err
	}
	fe.tensors[op.Results[0]].reg = r
	st, ok := scalarType(rt.Elem)
	if !ok {
		return ir.OpErrorf(op, "builds a tensor of %s, which the host cannot hold", rt.Elem)
	}
	for i, v := range op.Operands {
		val, err := fe.scalar(v)
		if err != nil {
			return err
		}
		// Row-major index of element i.
		src := []int32{r, val}
		rem := int64(i)
		idx := make([]int64, len(rt.Dims))
		for d := len(rt.Dims) - 1; d >= 0; d-- {
			idx[d] = rem % rt.Dims[d]
			rem /= rt.Dims[d]
		}
		for _, x := range idx {
			src = append(src, fe.constI64(x))
		}
		fe.emit(module.Instr{Op: module.OpStore, Type: st, Src: src})
	}
	return nil
}

// concat allocates the result of a contiguous tensor.concat and copies
// each piece's bytes into place (linalg.ContiguousConcat), except the
// pieces their dispatches wrote there; a concatenation whose pieces all lie
// in a larger one's buffer is a view of it (see placements).
func (fe *fnEmitter) concat(op *ir.Operation) error {
	if _, ok := linalg.ContiguousConcat(op); !ok {
		return ir.OpErrorf(op, "reaches the host program with pieces that are not contiguous ranges of its result (internal error: the input conversion lowers such concatenations)")
	}
	rt := op.Results[0].Type.(*ir.RankedTensorType)
	if _, err := ir.ElementByteSize(rt.Elem); err != nil {
		return ir.OpErrorf(op, "concatenates %s elements, which the host program cannot copy", rt.Elem)
	}
	if pl, ok := fe.place.views[op]; ok {
		r, err := fe.subview(pl, rt)
		if err != nil {
			return err
		}
		fe.defineTensor(op.Results[0], r, staticOr(rt, nil))
		return nil
	}
	r, err := fe.placedBuffer(op)
	if err != nil {
		return err
	}
	for k, off := range pieceOffsets(op) {
		v := op.Operands[k]
		if pl, ok := fe.place.pieces[viewed(v)]; ok && pl.into == op && pl.off == off {
			continue
		}
		src, err := fe.ref(v)
		if err != nil {
			return err
		}
		fe.emit(module.Instr{Op: module.OpCopy, Src: []int32{r, src, fe.constI64(off)}})
	}
	fe.defineTensor(op.Results[0], r, staticOr(rt, nil))
	return nil
}

// reshape views the source buffer with the result's dimensions (row-major
// data does not move).
func (fe *fnEmitter) reshape(op *ir.Operation) error {
	src, err := fe.tensorOf(op.Operands[0])
	if err != nil {
		return err
	}
	rt := op.Results[0].Type.(*ir.RankedTensorType)
	dims := make([]dim, len(rt.Dims))
	for i, d := range rt.Dims {
		dims[i] = dim{static: d, reg: -1}
	}
	switch op.Name {
	case "tensor.collapse_shape":
		groups, err := reassociation(op)
		if err != nil {
			return err
		}
		for i, grp := range groups {
			if dims[i].static >= 0 {
				continue
			}
			r := fe.constI64(1)
			for _, sd := range grp {
				r = fe.arithI64(module.ArithMul, r, fe.dimReg(src.dims[sd]))
			}
			dims[i] = dim{static: -1, reg: r}
		}
	case "tensor.expand_shape":
		// Dynamic output sizes are the op's output_shape operands, in order.
		k := 1
		for i := range dims {
			if dims[i].static >= 0 {
				continue
			}
			if k >= len(op.Operands) {
				return ir.OpErrorf(op, "has no output_shape value for dynamic dimension %d", i)
			}
			r, err := fe.scalar(op.Operands[k])
			if err != nil {
				return err
			}
			k++
			dims[i] = dim{static: -1, reg: r}
		}
	case "tensor.reshape":
		for i := range dims {
			if dims[i].static >= 0 {
				continue
			}
			shape, err := fe.ref(op.Operands[1])
			if err != nil {
				return err
			}
			st, _ := scalarType(ir.ElementTypeOf(op.Operands[1].Type))
			r := fe.newReg(module.KindI64)
			if st != module.TypeI64 {
				t32 := fe.newReg(module.KindI32)
				fe.emit(module.Instr{Op: module.OpLoad, Type: st, Dst: []int32{t32}, Src: []int32{shape, fe.constI64(int64(i))}})
				fe.emit(module.Instr{Op: module.OpCast, Sub: uint8(module.CastExtS), Type: st, Type2: module.TypeI64, Dst: []int32{r}, Src: []int32{t32}})
			} else {
				fe.emit(module.Instr{Op: module.OpLoad, Type: st, Dst: []int32{r}, Src: []int32{shape, fe.constI64(int64(i))}})
			}
			dims[i] = dim{static: -1, reg: r}
		}
	}
	in, err := fe.ref(op.Operands[0])
	if err != nil {
		return err
	}
	r := fe.newReg(module.KindRef)
	regs := make([]int32, len(dims))
	for i, d := range dims {
		regs[i] = fe.dimReg(d)
	}
	fe.emit(module.Instr{Op: module.OpReshape, Dst: []int32{r}, Src: append([]int32{in}, regs...)})
	fe.defineTensor(op.Results[0], r, dims)
	return nil
}

// reassociation reads the groups of a collapse/expand op.
func reassociation(op *ir.Operation) ([][]int, error) {
	arr, ok := op.Attr("reassociation").(*ir.ArrayAttr)
	if !ok {
		return nil, ir.OpErrorf(op, "has no reassociation")
	}
	var out [][]int
	for _, g := range arr.Elems {
		ga, ok := g.(*ir.ArrayAttr)
		if !ok {
			return nil, ir.OpErrorf(op, "has a malformed reassociation")
		}
		var grp []int
		for _, x := range ga.Elems {
			ia, ok := x.(*ir.IntegerAttr)
			if !ok {
				return nil, ir.OpErrorf(op, "has a malformed reassociation")
			}
			grp = append(grp, int(ia.Value))
		}
		out = append(out, grp)
	}
	return out, nil
}

func (fe *fnEmitter) globalLoad(op *ir.Operation) error {
	sym := globalSym(op)
	gi, ok := fe.e.globals[sym]
	if !ok {
		return ir.OpErrorf(op, "loads @%s, which is not a util.global", sym)
	}
	dst, err := fe.results(op)
	if err != nil {
		return err
	}
	fe.emit(module.Instr{Op: module.OpGlobalLoad, Index: int32(gi), Dst: dst})
	fe.defineResults(op.Results, dst)
	return nil
}

func (fe *fnEmitter) globalStore(op *ir.Operation) error {
	sym := globalSym(op)
	gi, ok := fe.e.globals[sym]
	if !ok {
		return ir.OpErrorf(op, "stores to @%s, which is not a util.global", sym)
	}
	if !fe.e.mod.Globals[gi].Mutable {
		return ir.OpErrorf(op, "stores to @%s, which is not mutable", sym)
	}
	src, err := fe.sources(op.Operands[:1])
	if err != nil {
		return err
	}
	fe.emit(module.Instr{Op: module.OpGlobalStore, Index: int32(gi), Src: src})
	return nil
}

func globalSym(op *ir.Operation) string {
	if s, ok := op.Attr("global").(*ir.SymbolRefAttr); ok {
		return s.Root
	}
	return ""
}

// insertSlice copies the destination and writes a contiguous block into
// it at the byte offset of its (possibly dynamic) offsets
// (linalg.ContiguousInsert).
func (fe *fnEmitter) insertSlice(op *ir.Operation) error {
	strides, ok := linalg.ContiguousInsert(op)
	if !ok {
		return ir.OpErrorf(op, "reaches the host program with a block that is not one contiguous range of its destination (internal error: the input conversion lowers such inserts)")
	}
	rt := op.Results[0].Type.(*ir.RankedTensorType)
	eb, err := ir.ElementByteSize(rt.Elem)
	if err != nil {
		return ir.OpErrorf(op, "inserts %s elements, which the host program cannot copy", rt.Elem)
	}
	src, err := fe.ref(op.Operands[0])
	if err != nil {
		return err
	}
	dest, err := fe.ref(op.Operands[1])
	if err != nil {
		return err
	}
	offs, _ := op.Attr("static_offsets").(*ir.DenseArrayAttr)
	dyn := op.Operands[2:]
	static := int64(0)
	off := int32(-1)
	for k, o := range offs.Ints {
		if o != linalg.DynamicIndex {
			static += o * strides[k]
			continue
		}
		if len(dyn) == 0 {
			return ir.OpErrorf(op, "has fewer dynamic offsets than its static_offsets name")
		}
		v, err := fe.scalar(dyn[0])
		if err != nil {
			return err
		}
		dyn = dyn[1:]
		term := fe.arithI64(module.ArithMul, v, fe.constI64(strides[k]*int64(eb)))
		if off < 0 {
			off = term
		} else {
			off = fe.arithI64(module.ArithAdd, off, term)
		}
	}
	if off < 0 {
		off = fe.constI64(static * int64(eb))
	} else if static != 0 {
		off = fe.arithI64(module.ArithAdd, off, fe.constI64(static*int64(eb)))
	}
	r := fe.newReg(module.KindRef)
	fe.emit(module.Instr{Op: module.OpClone, Dst: []int32{r}, Src: []int32{dest}})
	fe.emit(module.Instr{Op: module.OpCopy, Src: []int32{r, src, off}})
	t, _ := fe.tensorOf(op.Operands[1])
	fe.defineTensor(op.Results[0], r, t.dims)
	return nil
}
