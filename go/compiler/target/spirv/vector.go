package spirv

import "github.com/gree-ml/gree/go/compiler/kir"

// Vector ops on scalarized vectors: a kir vector is its lanes' ids, so
// these only rearrange ids (and Reduce combines them in lane order).

// vector translates Broadcast, Extract, Insert, LaneIota and Reduce.
func (e *emitter) vector(op *kir.Op, rt kir.Type) {
	switch op.Kind {
	case kir.Broadcast:
		x := e.lane(op.Args[0], 0)
		e.lanewise(op, rt, func(int) uint32 { return x })
	case kir.Extract:
		e.set(op.Results[0], []uint32{e.lane(op.Args[0], int(op.Imm))})
	case kir.Insert:
		out := append([]uint32(nil), e.vals[op.Args[0]]...)
		out[op.Imm] = e.lane(op.Args[1], 0)
		e.set(op.Results[0], out)
	case kir.LaneIota:
		e.lanewise(op, rt, func(i int) uint32 { return e.cInt(rt.Elem, int64(i)) })
	case kir.Reduce:
		xs := e.vals[op.Args[0]]
		acc := xs[0]
		for _, x := range xs[1:] {
			acc = e.combine(kir.ReduceKind(op.Imm), rt.Elem, acc, x)
		}
		e.set(op.Results[0], []uint32{acc})
	}
}

// reduceOps maps reduction kinds to the binary op that combines lanes.
var reduceOps = [...]kir.Kind{
	kir.ReduceAdd: kir.Add, kir.ReduceMul: kir.Mul, kir.ReduceMinS: kir.MinS, kir.ReduceMaxS: kir.MaxS,
	kir.ReduceMinU: kir.MinU, kir.ReduceMaxU: kir.MaxU, kir.ReduceMinF: kir.MinF, kir.ReduceMaxF: kir.MaxF,
	kir.ReduceAnd: kir.And, kir.ReduceOr: kir.Or, kir.ReduceXor: kir.Xor,
}

// combine applies reduction kind r to two register values of s.
func (e *emitter) combine(r kir.ReduceKind, s kir.Scalar, acc, x uint32) uint32 {
	k := reduceOps[r]
	if s.IsInt() {
		return e.intBinary(k, s, acc, x)
	}
	return e.floatBinary(k, s, acc, x)
}
