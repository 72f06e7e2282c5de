package flow

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// A recurrence is a host loop (scf.for) whose steps are a few small
// kernels over the loop-carried state: an RNN/GRU/LSTM layer's
// matrix-vector product H·Rᵀ and its cell, and the insert of the step's
// output into Y. As a host loop every step costs each kernel's dispatch
// and the host's work between them, several times the kernels' own time
// on small layers. FormRecurrences moves such a loop, whole, into one
// dispatch region when the target lowers it as one kernel (Options.
// Recurrence: codegen.RecurrenceLowerable), which runs the steps itself.
//
// The region returns the loop's results, then one workspace per tensor a
// step computes and does not carry (the product, for instance): the
// kernel keeps those in buffers the host allocates with the region's
// results (tensor.empty values returned by the region, in the order of
// the body's ops; see RecurrenceWorkspaces).

// RecurrenceCounters is the i32 elements of a recurrence region's last
// result, after the loop's and the workspaces': counters, zero at the
// start of each dispatch, with which the kernel's workgroups share out
// the steps' work (codegen's cooperative recurrences).
const RecurrenceCounters = 32

// RecurrenceAttr marks a dispatch region holding a recurrence.
const RecurrenceAttr = "gree.recurrence"

// FormRecurrences wraps each scf.for of fn that ok accepts in a dispatch
// region of its own.
func FormRecurrences(fn *ir.Operation, ok func(loop *ir.Operation) bool) {
	if ok == nil {
		return
	}
	var loops []*ir.Operation
	fn.Walk(func(op *ir.Operation) bool {
		if op.Name == RegionName {
			return false
		}
		if op.Name == "scf.for" {
			loops = append(loops, op)
		}
		return true
	})
	for _, loop := range loops {
		if ok(loop) {
			wrapRecurrence(fn, loop)
		}
	}
}

// RecurrenceWorkspaces lists, in order, the values of a recurrence's
// loop body that need a workspace: the results of its generics that the
// step does not yield and that are not a fill read only as a product's
// initial value.
func RecurrenceWorkspaces(loop *ir.Operation) []*ir.Value {
	body := loop.Regions[0].Blocks[0]
	yield := body.Terminator()
	yielded := map[*ir.Value]bool{}
	for _, v := range yield.Operands {
		yielded[v] = true
	}
	var out []*ir.Value
	for _, op := range body.Ops {
		if _, ok := linalg.AsGeneric(op); !ok {
			continue
		}
		for _, r := range op.Results {
			if yielded[r] || (FillScalar(r) != nil && onlyInits(body, r)) {
				continue
			}
			out = append(out, r)
		}
	}
	return out
}

// onlyInits reports whether every use of v in body is as the output
// (initial value) of a generic.
func onlyInits(body *ir.Block, v *ir.Value) bool {
	for _, op := range body.Ops {
		g, ok := linalg.AsGeneric(op)
		for i, x := range op.Operands {
			if x != v {
				continue
			}
			if !ok || i < g.NumInputs() {
				return false
			}
		}
	}
	return true
}

func wrapRecurrence(fn, loop *ir.Operation) {
	ws := RecurrenceWorkspaces(loop)
	b := ir.NewBuilder(loop.Loc)
	b.SetInsertionPointBefore(loop)
	// Tensor constants of the body (a packed weight) move before the
	// region: the host holds them, the kernel binds them.
	body := loop.Regions[0].Blocks[0]
	for _, op := range append([]*ir.Operation(nil), body.Ops...) {
		if op.Name == "arith.constant" && len(op.Results) == 1 && isTensor(op.Results[0]) {
			blk := loop.Block()
			blk.Insert(blk.IndexOf(loop), op)
		}
	}
	var types []ir.Type
	for _, r := range loop.Results {
		types = append(types, r.Type)
	}
	for _, w := range ws {
		types = append(types, w.Type)
	}
	counters := &ir.RankedTensorType{Dims: []int64{RecurrenceCounters}, Elem: ir.I32}
	types = append(types, counters)
	region := b.CreateWithRegions(RegionName, nil, types, 1)
	region.SetAttr(RecurrenceAttr, &ir.UnitAttr{})
	blk := ir.NewBlock()
	region.Regions[0].AddBlock(blk)
	for i, r := range loop.Results {
		ir.ReplaceAllUsesWith(fn, r, region.Results[i])
	}
	blk.Append(loop)
	rets := append([]*ir.Value(nil), loop.Results...)
	at := ir.AtEnd(blk, loop.Loc)
	for _, w := range ws {
		rets = append(rets, at.Create("tensor.empty", nil, []ir.Type{w.Type}).Result(0))
	}
	rets = append(rets, at.Create("tensor.empty", nil, []ir.Type{counters}).Result(0))
	at.Create("flow.return", rets, nil)
}

func isTensor(v *ir.Value) bool {
	_, ok := v.Type.(*ir.RankedTensorType)
	return ok
}
