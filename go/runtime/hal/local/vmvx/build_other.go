package vmvx

import (
	"github.com/gree-ml/gree/go/schemas/vmvx"
)

// buildOther handles conversions' neighbours: vector, memory, thread-level,
// tile and control-flow instructions.
func (pr *preparer) buildOther(in *inst, dst opnd, args []opnd) error {
	op, e := in.vop, dst.t.Elem
	switch op {
	case vmvx.Broadcast:
		in.fn = bySize(e, broadcast[uint8], broadcast[uint16], broadcast[uint32], broadcast[uint64])
	case vmvx.Extract:
		in.size, in.fn = e.ByteSize(), extract
	case vmvx.Insert:
		in.size, in.fn = e.ByteSize(), insert
	case vmvx.LaneIota:
		in.fn = byInt(e, laneIota[int8], laneIota[int16], laneIota[int32], laneIota[int64])
	case vmvx.Reduce:
		switch {
		case e.IsInt():
			in.fn = byInt(e, reduceInt[int8], reduceInt[int16], reduceInt[int32], reduceInt[int64])
		case isHalf(e):
			in.fn = reduceHalf(e == vmvx.BF16)
		case e == vmvx.F32:
			in.fn = reduceFloat[float32]
		default:
			in.fn = reduceFloat[float64]
		}
	case vmvx.Load, vmvx.LoadShared, vmvx.LoadStrided:
		in.size, in.isI1, in.shared = e.ByteSize(), e == vmvx.I1, op == vmvx.LoadShared
		in.fn = load
		if op == vmvx.LoadStrided {
			in.fn = loadStrided
		}
	case vmvx.Store, vmvx.StoreShared, vmvx.StoreStrided:
		val := args[len(args)-1]
		in.d, in.n = 0, val.n()
		in.size, in.isI1, in.shared = val.t.Elem.ByteSize(), val.t.Elem == vmvx.I1, op == vmvx.StoreShared
		in.fn = store
		if op == vmvx.StoreStrided {
			in.fn = storeStrided
		}
	case vmvx.AtomicRMW:
		in.fn = atomicRMW
	case vmvx.Barrier:
		in.op = xBarrier
	case vmvx.SubgroupReduce:
		in.op = xSubgroupReduce
		pr.subgroupReduce(in, dst)
	case vmvx.SubgroupShuffle:
		in.op = xSubgroupShuffle
	case vmvx.Contract:
		in.fn = contract
		in.args = make([]uint32, len(args))
		for i, a := range args {
			in.args[i] = a.off
		}
		for i := range in.elems {
			in.elems[i] = pr.e.Bindings[in.bind[i]].Elem
		}
	case vmvx.Mov:
		if dst.n() == 1 {
			in.op = xMov8
		} else {
			in.size, in.fn = dst.n()*e.ByteSize(), move
		}
	case vmvx.Jmp:
		in.op = xJmp
	case vmvx.Jz, vmvx.Jnz:
		in.op = xJz
		if op == vmvx.Jnz {
			in.op = xJnz
		}
		in.a = args[0].off
	case vmvx.ForInit:
		in.op = xForInit
		in.d, in.a, in.b, in.c = args[0].off, args[1].off, args[2].off, args[3].off
	case vmvx.ForNext:
		in.op = xForNext
		in.d, in.b, in.c = args[0].off, args[1].off, args[2].off
	}
	return nil
}

// subgroupReduce prepares the reductions a subgroup reduce runs on the
// values gathered from a full and from the last, partial subgroup.
func (pr *preparer) subgroupReduce(in *inst, dst opnd) {
	sizes := [2]int{pr.p.sgSize, pr.p.threads % pr.p.sgSize}
	for i, n := range sizes {
		if n == 0 {
			continue
		}
		src := opnd{off: pr.p.sgScratch, t: vmvx.RegType{Elem: dst.t.Elem, Lanes: uint32(n)}}
		sub := &inst{vop: vmvx.Reduce, imm: in.imm, pc: in.pc, name: in.name}
		setOperands(sub, dst, []opnd{src})
		_ = pr.buildOther(sub, dst, []opnd{src})
		sub.size = dst.t.Elem.ByteSize()
		in.sub[i] = sub
	}
}

// cast prepares a conversion.
func (pr *preparer) cast(in *inst, dst, src opnd) error {
	op, from, to := in.vop, src.t.Elem, dst.t.Elem
	switch {
	case op == vmvx.Bitcast:
		in.size, in.fn = dst.n()*to.ByteSize(), move
	case op == vmvx.FPExt && isHalf(from) && to == vmvx.F32:
		in.fn = widenH(from == vmvx.BF16)
	case op == vmvx.FPTrunc && isHalf(to):
		if from == vmvx.F32 {
			in.fn = truncToHalf[float32](to == vmvx.BF16)
		} else {
			in.fn = truncToHalf[float64](to == vmvx.BF16)
		}
	case isHalf(from) || isHalf(to):
		return pr.wrapHalf(in, dst, []opnd{src}, []bool{isHalf(from)})
	default:
		in.fn = castHandler(op, from, to)
	}
	return nil
}
