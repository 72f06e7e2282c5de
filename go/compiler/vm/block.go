package vm

import (
	"strings"

	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
	"github.com/gree-ml/gree/go/schemas/module"
	"github.com/gree-ml/gree/go/status"
)

// block emits the ops of a block in order.
func (fe *fnEmitter) block(b *ir.Block) error {
	for _, op := range b.Ops {
		if err := fe.op(op); err != nil {
			return err
		}
	}
	return nil
}

// op emits one host op: a long switch by op name.
func (fe *fnEmitter) op(op *ir.Operation) error {
	switch op.Name {
	case "func.return", "util.return":
		src, err := fe.sources(op.Operands)
		if err != nil {
			return err
		}
		fe.emit(module.Instr{Op: module.OpReturn, Src: src})
		return nil
	case "arith.constant":
		return fe.constant(op)
	case "util.optimization_barrier":
		for i, v := range op.Operands {
			fe.alias(op.Results[i], v)
		}
		return nil
	case "tensor.empty":
		t := op.Results[0].Type.(*ir.RankedTensorType)
		var dims []dim
		k := 0
		for _, d := range t.Dims {
			if d >= 0 {
				dims = append(dims, dim{static: d})
				continue
			}
			r, err := fe.scalar(op.Operands[k])
			if err != nil {
				return err
			}
			k++
			dims = append(dims, dim{static: -1, reg: r})
		}
		fe.tensors[op.Results[0]] = &tensor{reg: -1, dims: dims, typ: t}
		return nil
	case "flow.tensor.tie_shape":
		t, err := fe.tensorOf(op.Operands[0])
		if err != nil {
			return err
		}
		rt := op.Results[0].Type.(*ir.RankedTensorType)
		dims := make([]dim, len(rt.Dims))
		k := 1
		for i, d := range rt.Dims {
			if d >= 0 {
				dims[i] = dim{static: d}
				continue
			}
			if k < len(op.Operands) {
				r, err := fe.scalar(op.Operands[k])
				if err != nil {
					return err
				}
				dims[i] = dim{static: -1, reg: r}
				k++
			} else {
				dims[i] = t.dims[i]
			}
		}
		fe.tensors[op.Results[0]] = &tensor{reg: t.reg, dims: dims, typ: rt}
		return nil
	case "flow.tensor.dynamic_constant", "flow.tensor.constant":
		return fe.dynamicConstant(op)
	case "tensor.dim":
		return fe.tensorDim(op)
	case "flow.dispatch.region":
		return fe.dispatch(op)
	case "func.call", "util.call":
		return fe.call(op)
	case "cf.br", "cf.cond_br":
		return fe.branch(op)
	case "cf.assert":
		return fe.assert(op)
	case "scf.for":
		return fe.scfFor(op)
	case "scf.if":
		return fe.scfIf(op)
	case "scf.while":
		return fe.scfWhile(op)
	case "tensor.extract":
		return fe.extract(op)
	case "tensor.insert":
		return fe.insert(op)
	case "tensor.cast":
		t, err := fe.tensorOf(op.Operands[0])
		if err != nil {
			return err
		}
		rt := op.Results[0].Type.(*ir.RankedTensorType)
		fe.tensors[op.Results[0]] = &tensor{reg: t.reg, dims: staticOr(rt, t.dims), typ: rt}
		if t.reg < 0 {
			fe.tensors[op.Results[0]].reg = -1
		}
		return nil
	case "tensor.expand_shape", "tensor.collapse_shape", "tensor.reshape":
		return fe.reshape(op)
	case "tensor.from_elements":
		return fe.fromElements(op)
	case linalg.ConcatName:
		return fe.concat(op)
	case linalg.InsertSliceName:
		return fe.insertSlice(op)
	case "util.global.load":
		return fe.globalLoad(op)
	case "util.global.store":
		return fe.globalStore(op)
	case "arith.select":
		return fe.selectOp(op)
	case "flow.tensor.trace":
		return fe.tensorTrace(op)
	}
	if strings.HasPrefix(op.Name, "check.") {
		return fe.check(op)
	}
	if op.Dialect() == "arith" {
		return fe.arith(op)
	}
	return ir.OpErrorf(op, "is not supported by gree on the host (outside a dispatch)")
}

// alias makes res share v's host value.
func (fe *fnEmitter) alias(res, v *ir.Value) {
	if t, ok := fe.tensors[v]; ok {
		fe.tensors[res] = t
		return
	}
	fe.regOf[res] = fe.regOf[v]
}

func (fe *fnEmitter) tensorDim(op *ir.Operation) error {
	t, err := fe.tensorOf(op.Operands[0])
	if err != nil {
		return err
	}
	idx, ok := ir.IntConstant(op.Operands[1])
	if !ok {
		return ir.OpErrorf(op, "has a non-constant dimension index, which gree does not support yet")
	}
	if idx < 0 || int(idx) >= len(t.dims) {
		return ir.OpErrorf(op, "dimension %d is out of range for %s", idx, t.typ)
	}
	d := t.dims[idx]
	if d.static >= 0 {
		fe.regOf[op.Results[0]] = fe.constI64(d.static)
	} else {
		fe.regOf[op.Results[0]] = d.reg
	}
	return nil
}

func (fe *fnEmitter) constant(op *ir.Operation) error {
	res := op.Results[0]
	if fe.dead[op] {
		// Read by no host op (a kernel may have folded it in): neither
		// stored in the module nor loaded.
		if t, ok := res.Type.(*ir.RankedTensorType); ok {
			fe.tensors[res] = &tensor{reg: -1, dims: staticOr(t, nil), typ: t, dropped: true}
		}
		return nil
	}
	switch a := op.Attr("value").(type) {
	case *ir.IntegerAttr:
		r, err := fe.newValue(res)
		if err != nil {
			return err
		}
		st, _ := scalarType(res.Type)
		fe.emit(module.Instr{Op: module.OpConstI, Type: st, Dst: []int32{r}, Imm: a.Value})
		return nil
	case *ir.BoolAttr:
		r, err := fe.newValue(res)
		if err != nil {
			return err
		}
		v := int64(0)
		if a.Value {
			v = 1
		}
		fe.emit(module.Instr{Op: module.OpConstI, Type: module.TypeI1, Dst: []int32{r}, Imm: v})
		return nil
	case *ir.FloatAttr:
		r, err := fe.newValue(res)
		if err != nil {
			return err
		}
		st, _ := scalarType(res.Type)
		fe.emit(module.Instr{Op: module.OpConstF, Type: st, Dst: []int32{r}, F: a.Value})
		return nil
	}
	t, ok := res.Type.(*ir.RankedTensorType)
	if !ok {
		return ir.OpErrorf(op, "has a constant of type %s, which gree does not support", res.Type)
	}
	c, err := fe.e.constant(op, op.Attr("value"), t)
	if err != nil {
		return err
	}
	r := fe.newReg(module.KindRef)
	fe.emit(module.Instr{Op: module.OpConstant, Dst: []int32{r}, Index: int32(c)})
	fe.defineTensor(res, r, staticOr(t, nil))
	return nil
}

// dynamicConstant is a constant whose static dimensions the program must
// not rely on: its dynamic dimensions are read back at run time.
func (fe *fnEmitter) dynamicConstant(op *ir.Operation) error {
	a, ok := op.Attr("value").(ir.TypedAttr)
	if !ok {
		return ir.OpErrorf(op, "needs a dense value")
	}
	vt, ok := a.AttrType().(*ir.RankedTensorType)
	if !ok {
		return ir.OpErrorf(op, "needs a ranked tensor value")
	}
	c, err := fe.e.constant(op, a, vt)
	if err != nil {
		return err
	}
	r := fe.newReg(module.KindRef)
	fe.emit(module.Instr{Op: module.OpConstant, Dst: []int32{r}, Index: int32(c)})
	rt := op.Results[0].Type.(*ir.RankedTensorType)
	fe.tensors[op.Results[0]] = &tensor{reg: r, typ: rt, dims: fe.readDims(r, rt)}
	return nil
}

// assert emits cf.assert as IREE's VM does: a false condition fails the
// call with FAILED_PRECONDITION and the assertion's message.
func (fe *fnEmitter) assert(op *ir.Operation) error {
	cond, err := fe.scalar(op.Operands[0])
	if err != nil {
		return err
	}
	msg := "assertion failed"
	if a, ok := op.Attr("msg").(*ir.StringAttr); ok && a.Value != "" {
		msg = a.Value
	}
	br := fe.emit(module.Instr{Op: module.OpCondBranch, Src: []int32{cond}})
	fe.f.Code[br].Index2 = fe.pc()
	fe.emit(module.Instr{Op: module.OpFail, Imm: int64(status.FailedPrecondition), Str: msg})
	fe.f.Code[br].Index = fe.pc()
	return nil
}
