package vmvx

import (
	"math"

	"github.com/gree-ml/gree/go/schemas/vmvx"
)

// build chooses the handler of a verified instruction for its operand
// types. It is the one long opcode switch of the interpreter.
func (pr *preparer) build(in *inst, dst opnd, args []opnd) error {
	setOperands(in, dst, args)
	op, e := in.vop, dst.t.Elem
	scalarI64 := dst.t == vmvx.RegType{Elem: vmvx.I64, Lanes: 1}
	allHalf := func() []bool {
		h := make([]bool, len(args))
		for i, a := range args {
			h[i] = isHalf(a.t.Elem)
		}
		return h
	}
	switch {
	case op == vmvx.ConstInt:
		bits := uint64(sext(uint64(in.imm), e.Bits()))
		in.imm = int64(bits)
		if dst.n() == 1 && e.ByteSize() == 8 {
			in.op = xConst8
			return nil
		}
		in.fn = bySize(e, splat[uint8], splat[uint16], splat[uint32], splat[uint64])
	case op == vmvx.ConstFloat:
		f := math.Float64frombits(uint64(in.imm))
		switch e {
		case vmvx.F16:
			in.imm = int64(f64ToF16(f))
		case vmvx.BF16:
			in.imm = int64(f64ToBF16(f))
		case vmvx.F32:
			in.imm = int64(math.Float32bits(float32(f)))
		}
		if dst.n() == 1 && e == vmvx.F64 {
			in.op = xConst8
			return nil
		}
		in.fn = bySize(e, splat[uint8], splat[uint16], splat[uint32], splat[uint64])
	case op == vmvx.PushConstant:
		in.op = xPushConst
	case op == vmvx.WorkgroupID:
		in.op = xWgID
	case op == vmvx.WorkgroupCount:
		in.op = xWgCount
	case op == vmvx.ThreadID:
		in.op = xThreadID
	case op == vmvx.WorkgroupSize:
		in.op = xWgSize
	case op == vmvx.SubgroupSize:
		in.op = xSubgroupSize
	case op == vmvx.LaneID:
		in.op = xLaneID
	case op >= vmvx.Add && op <= vmvx.CopySign:
		switch {
		case scalarI64 && op == vmvx.Add:
			in.op = xAddI64
		case scalarI64 && op == vmvx.Sub:
			in.op = xSubI64
		case scalarI64 && op == vmvx.Mul:
			in.op = xMulI64
		case fastBinary(op, e) != nil:
			in.fn = fastBinary(op, e)
		case isHalf(e):
			return pr.wrapHalf(in, dst, args, allHalf())
		case e.IsInt():
			in.fn = byInt(e, binH(intBinK[int8](op)), binH(intBinK[int16](op)),
				binH(intBinK[int32](op)), binH(intBinK[int64](op)))
		case e == vmvx.F32:
			in.fn = binH(floatBinK[float32](op))
		default:
			in.fn = binH(floatBinK[float64](op))
		}
	case op >= vmvx.NegF && op <= vmvx.CtPop:
		switch {
		case isHalf(e) && op == vmvx.NegF:
			in.fn = negHalf
		case isHalf(e) && op == vmvx.AbsF:
			in.fn = absHalf
		case isHalf(e):
			return pr.wrapHalf(in, dst, args, allHalf())
		case e.IsInt():
			in.fn = byInt(e, unH(intUnK[int8](op)), unH(intUnK[int16](op)),
				unH(intUnK[int32](op)), unH(intUnK[int64](op)))
		case e == vmvx.F32:
			in.fn = unH(floatUnK[float32](op))
		default:
			in.fn = unH(floatUnK[float64](op))
		}
	case op >= vmvx.IsNaN && op <= vmvx.IsFinite:
		in.imm = int64(op - vmvx.IsNaN)
		switch args[0].t.Elem {
		case vmvx.F16, vmvx.BF16:
			return pr.wrapHalf(in, dst, args, allHalf())
		case vmvx.F32:
			in.fn = classF[float32]
		default:
			in.fn = classF[float64]
		}
	case op == vmvx.FMA:
		switch e {
		case vmvx.F16, vmvx.BF16:
			return pr.wrapHalf(in, dst, args, allHalf())
		case vmvx.F32:
			in.fn = fmaF[float32]
		default:
			in.fn = fmaF[float64]
		}
	case op == vmvx.Select:
		in.c, in.a, in.b, in.na = args[0].off, args[1].off, args[2].off, args[0].n()
		in.fn = bySize(e, selectV[uint8], selectV[uint16], selectV[uint32], selectV[uint64])
	case op == vmvx.CmpI:
		setOperands(in, opnd{off: dst.off, t: args[0].t}, args)
		in.d, in.pred = dst.off, uint8(in.imm)
		if args[0].t == (vmvx.RegType{Elem: vmvx.I64, Lanes: 1}) {
			in.op = xCmpI64
			return nil
		}
		in.fn = byIntNoCanon(args[0].t.Elem, cmpInt[int8], cmpInt[int16], cmpInt[int32], cmpInt[int64])
	case op == vmvx.CmpF:
		in.pred = uint8(in.imm)
		switch args[0].t.Elem {
		case vmvx.F16, vmvx.BF16:
			return pr.wrapHalf(in, dst, args, allHalf())
		case vmvx.F32:
			in.fn = cmpFloat[float32]
		default:
			in.fn = cmpFloat[float64]
		}
	case op >= vmvx.ExtS && op <= vmvx.Bitcast:
		return pr.cast(in, dst, args[0])
	default:
		return pr.buildOther(in, dst, args)
	}
	return nil
}

// byIntNoCanon is byInt for handlers whose result is not an integer of
// the operands' type (comparisons): no i1 canonicalization.
func byIntNoCanon(e vmvx.Elem, h8, h16, h32, h64 handler) handler {
	if e == vmvx.I1 {
		return h8
	}
	return byInt(e, h8, h16, h32, h64)
}
