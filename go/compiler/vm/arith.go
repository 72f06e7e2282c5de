package vm

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/schemas/module"
)

var hostArith = map[string]module.ArithOp{
	"arith.addi": module.ArithAdd, "arith.subi": module.ArithSub, "arith.muli": module.ArithMul,
	"arith.divsi": module.ArithDivS, "arith.divui": module.ArithDivU, "arith.remsi": module.ArithRemS,
	"arith.remui": module.ArithRemU, "arith.minsi": module.ArithMinS, "arith.maxsi": module.ArithMaxS,
	"arith.minui": module.ArithMinU, "arith.maxui": module.ArithMaxU, "arith.andi": module.ArithAnd,
	"arith.ori": module.ArithOr, "arith.xori": module.ArithXor, "arith.shli": module.ArithShl,
	"arith.shrsi": module.ArithShrS, "arith.shrui": module.ArithShrU, "arith.floordivsi": module.ArithFloorDivS,
	"arith.ceildivsi": module.ArithCeilDivS, "arith.ceildivui": module.ArithCeilDivU, "arith.addf": module.ArithAddF, "arith.subf": module.ArithSubF,
	"arith.mulf": module.ArithMulF, "arith.divf": module.ArithDivF, "arith.remf": module.ArithRemF,
	"arith.minimumf": module.ArithMinF, "arith.maximumf": module.ArithMaxF, "arith.negf": module.ArithNegF,
}

var hostCast = map[string]module.CastOp{
	"arith.extsi": module.CastExtS, "arith.extui": module.CastExtU, "arith.trunci": module.CastTrunc,
	"arith.sitofp": module.CastSIToFP, "arith.uitofp": module.CastUIToFP, "arith.fptosi": module.CastFPToSI,
	"arith.fptoui": module.CastFPToUI, "arith.extf": module.CastFPExt, "arith.truncf": module.CastFPTrunc,
	"arith.bitcast": module.CastBitcast,
}

// arith emits a scalar arith op on the host.
func (fe *fnEmitter) arith(op *ir.Operation) error {
	if len(op.Results) != 1 || len(op.Operands) == 0 {
		return ir.OpErrorf(op, "is not supported on the host")
	}
	src := make([]int32, len(op.Operands))
	for i, v := range op.Operands {
		r, err := fe.scalar(v)
		if err != nil {
			return err
		}
		src[i] = r
	}
	from, ok := scalarType(op.Operands[0].Type)
	to, ok2 := scalarType(op.Results[0].Type)
	if !ok || !ok2 {
		return ir.OpErrorf(op, "on type %s is not supported on the host", op.Operands[0].Type)
	}
	dst, err := fe.newValue(op.Results[0])
	if err != nil {
		return err
	}
	in := module.Instr{Dst: []int32{dst}, Src: src, Type: from}
	switch {
	case hostArith[op.Name] != 0:
		in.Op, in.Sub = module.OpArith, uint8(hostArith[op.Name])
	case hostCast[op.Name] != 0:
		in.Op, in.Sub, in.Type2 = module.OpCast, uint8(hostCast[op.Name]), to
	case op.Name == "arith.index_cast" || op.Name == "arith.index_castui":
		in.Op, in.Type2 = module.OpCast, to
		switch {
		case from == to || (bitsOf(from) == bitsOf(to)):
			in.Op, in.Src, in.Type, in.Type2 = module.OpMove, src, 0, 0
			if fe.f.Regs[src[0]] != fe.f.Regs[dst] {
				in.Op, in.Sub, in.Type, in.Type2 = module.OpCast, uint8(module.CastBitcast), from, to
			}
		case bitsOf(from) > bitsOf(to):
			in.Sub = uint8(module.CastTrunc)
		case op.Name == "arith.index_castui":
			in.Sub = uint8(module.CastExtU)
		default:
			in.Sub = uint8(module.CastExtS)
		}
	case op.Name == "arith.cmpi" || op.Name == "arith.cmpf":
		pred, _ := op.Attr("predicate").(*ir.IntegerAttr)
		if pred == nil {
			return ir.OpErrorf(op, "has no predicate")
		}
		in.Op, in.Sub = module.OpCmp, uint8(pred.Value)
	default:
		return ir.OpErrorf(op, "on scalars is not supported on the host yet; gree computes it only inside kernels")
	}
	fe.emit(in)
	return nil
}

func bitsOf(t uint8) int {
	switch t {
	case module.TypeI1:
		return 1
	case module.TypeI8:
		return 8
	case module.TypeI16, module.TypeF16, module.TypeBF16:
		return 16
	case module.TypeI32, module.TypeF32:
		return 32
	}
	return 64
}

// selectOp emits arith.select of scalars or of whole tensors.
func (fe *fnEmitter) selectOp(op *ir.Operation) error {
	cond, err := fe.scalar(op.Operands[0])
	if err != nil {
		return err
	}
	res := op.Results[0]
	if rt, ok := res.Type.(*ir.RankedTensorType); ok {
		a, err := fe.ref(op.Operands[1])
		if err != nil {
			return err
		}
		b, err := fe.ref(op.Operands[2])
		if err != nil {
			return err
		}
		r := fe.newReg(module.KindRef)
		fe.emit(module.Instr{Op: module.OpSelect, Dst: []int32{r}, Src: []int32{cond, a, b}})
		fe.tensors[res] = &tensor{reg: r, typ: rt}
		fe.tensors[res].dims = fe.readDims(r, rt)
		return nil
	}
	a, err := fe.scalar(op.Operands[1])
	if err != nil {
		return err
	}
	b, err := fe.scalar(op.Operands[2])
	if err != nil {
		return err
	}
	dst, err := fe.newValue(res)
	if err != nil {
		return err
	}
	fe.emit(module.Instr{Op: module.OpSelect, Dst: []int32{dst}, Src: []int32{cond, a, b}})
	return nil
}

// readDims returns the dims of the buffer view in r, reading dynamic ones.
func (fe *fnEmitter) readDims(r int32, t *ir.RankedTensorType) []dim {
	var dims []dim
	for i, d := range t.Dims {
		if d >= 0 {
			dims = append(dims, dim{static: d})
			continue
		}
		dr := fe.newReg(module.KindI64)
		fe.emit(module.Instr{Op: module.OpDim, Dst: []int32{dr}, Src: []int32{r}, Imm: int64(i)})
		dims = append(dims, dim{static: -1, reg: dr})
	}
	return dims
}
