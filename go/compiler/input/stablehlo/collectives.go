package stablehlo

import (
	"github.com/gree-ml/gree/go/compiler/ir"
)

// StableHLO's collectives on one device (what JAX emits for shard_map and
// pmap over a mesh of one device). The JAX preparation (jax.go) already
// drops the collectives whose replica groups hold one device each; this
// converts the rest: replica_id and partition_id are 0, a
// collective_permute in which no device sends to itself gives zeros (the
// spec's value for a device no one sends to), one-member collectives left
// over return their operands, and programs replicated or partitioned over
// several devices, or groups of several members, are errors (gree runs a
// program on one device).

var collectiveOps = map[string]bool{
	"all_reduce": true, "all_gather": true, "reduce_scatter": true, "all_to_all": true,
	"collective_broadcast": true, "collective_permute": true, "replica_id": true, "partition_id": true,
}

// moduleDevices returns the module's mhlo.num_replicas × num_partitions
// (1 when absent).
func moduleDevices(op *ir.Operation) int64 {
	for p := op.ParentOp(); p != nil; p = p.ParentOp() {
		if p.Name != "builtin.module" {
			continue
		}
		n := int64(1)
		for _, a := range []string{"mhlo.num_replicas", "mhlo.num_partitions"} {
			if v, ok := p.Attr(a).(*ir.IntegerAttr); ok && v.Value > 0 {
				n *= v.Value
			}
		}
		return n
	}
	return 1
}

// hloCollective converts a collective on one device.
func (r *rewriter) hloCollective(b *ir.Builder, op *ir.Operation, name string) error {
	if n := moduleDevices(op); n != 1 {
		return ir.OpErrorf(op, "runs across %d devices, but gree runs a program on one device", n)
	}
	if g, ok := op.Attr("replica_groups").(*ir.DenseElementsAttr); ok {
		if sh := g.Type.Shape(); len(sh) == 2 && sh[1] > 1 {
			return ir.OpErrorf(op, "has replica groups of %d devices, but gree runs a program on one device", sh[1])
		}
	}
	for i, v := range op.Results {
		if i < len(op.Operands) && !ir.TypesEqual(v.Type, op.Operands[i].Type) {
			return ir.OpErrorf(op, "changes its operand's type, which a one-device collective cannot")
		}
	}
	switch name {
	case "replica_id", "partition_id":
		rt, ok := op.Results[0].Type.(*ir.RankedTensorType)
		if !ok || len(rt.Dims) != 0 {
			return ir.OpErrorf(op, "needs a rank-0 integer result")
		}
		c := b.Create("arith.constant", nil, []ir.Type{rt}, ir.Named("value", &ir.DenseElementsAttr{Type: rt, Ints: []int64{0}}))
		r.Replace(op, c.Results)
		return nil
	case "collective_permute":
		self := false
		if p, ok := op.Attr("source_target_pairs").(*ir.DenseElementsAttr); ok {
			for i := int64(0); i+1 < p.NumElements(); i += 2 {
				if p.IntAt(i) == 0 && p.IntAt(i+1) == 0 {
					self = true
				}
			}
		}
		if !self {
			rt, ok := op.Results[0].Type.(*ir.RankedTensorType)
			if !ok || !ir.HasStaticShape(rt) {
				return ir.OpErrorf(op, "needs a static result shape")
			}
			r.Replace(op, []*ir.Value{zeroFilled(b, rt)})
			return nil
		}
	}
	if len(op.Operands) < len(op.Results) {
		return ir.OpErrorf(op, "has more results than operands")
	}
	r.Replace(op, op.Operands[:len(op.Results)])
	return nil
}
