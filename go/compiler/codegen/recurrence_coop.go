package codegen

import (
	"github.com/gree-ml/gree/go/compiler/flow"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// A cooperative recurrence shares each step among the kernel's
// workgroups (Strategy.RecurrenceWorkgroups): a step's large product
// (the recurrent weights times the carried state, 256 KB of weights for
// an LSTM of 128 units) is split by its batch (the packed weight's
// column blocks) into chunks that different cores compute, each reading
// its share of the weights from its own cache; the rest of the step runs
// on one workgroup, or, where the step allows it, on every workgroup in
// the same phase as the product (recurrence_merge.go).
//
// The workgroups need not run at the same time — a CPU runs them one
// after another when its threads are busy — so none may wait for work
// that no workgroup has begun. The work is handed out as tickets, in
// program order: ticket 0 copies the carried tensors' initial values,
// then each step takes one ticket per chunk of each phase. A workgroup
// takes the next ticket with a FetchAdd on the claim counter, waits until
// every earlier ticket is done (SpinUntil on the done counter), runs the
// ticket's work and counts it done. It walks the steps and phases in
// order and runs a ticket in its phase; a ticket it took for a later
// phase it holds until it gets there. Every workgroup's wait is thus for
// tickets already taken by workgroups that are running them, and a
// workgroup that starts after the others finished finds every ticket
// taken and returns. The counters live in the region's last result
// (flow.RecurrenceCounters), zeroed by the host for each dispatch.

// minCooperativeStep is the fewest multiply-adds of a step's product
// that workgroups share: below it the counters' traffic between cores
// (a few hundred nanoseconds per phase) costs more than the split saves.
const minCooperativeStep = 1 << 15

// Counter offsets (i32 elements) in the counters binding: each on its own
// 64-byte line.
const (
	claimCounter = 0
	doneCounter  = 16
)

// stepPhase is a run of a step's ops between two points where every
// workgroup must see the work before it done: ops that one workgroup runs
// in order (chunks 1), or one product whose batch is split into chunks.
type stepPhase struct {
	ops     []*ir.Operation
	chunks  int64
	batches int64 // the split product's batch size
}

// stepPhases splits a step's ops (all but the yield) into the index
// arithmetic and the ops without code, which every workgroup runs at the
// top of the step, and phases: each product worth sharing (splitProduct) alone, the ops
// between them together.
func (g *gen) stepPhases(body *ir.Block) (pre []*ir.Operation, phases []stepPhase) {
	yield := body.Terminator()
	for _, op := range body.Ops {
		switch {
		case op == yield:
		case op.Name == "arith.addi" || op.Name == "arith.subi" || op.Name == "arith.muli" || op.Name == "arith.index_cast" || emitsNothing(op):
			pre = append(pre, op)
		default:
			if b := g.splitProduct(op); b > 1 {
				phases = append(phases, stepPhase{ops: []*ir.Operation{op}, chunks: min(b, int64(g.st.RecurrenceWorkgroups)), batches: b})
				continue
			}
			if n := len(phases); n == 0 || phases[n-1].chunks > 1 {
				phases = append(phases, stepPhase{chunks: 1})
			}
			phases[len(phases)-1].ops = append(phases[len(phases)-1].ops, op)
		}
	}
	return pre, phases
}

// emitsNothing reports a step op that has no code (recurrenceOp): a
// constant, an empty tensor, a reshape (an alias) or a +0 fill (a
// product's start, its Contract's ContractZero). It joins the index
// arithmetic, so that it makes no phase of its own: a phase of fills
// before the product cost every step a hand-off between the workgroups.
func emitsNothing(op *ir.Operation) bool {
	switch {
	case op.Name == "arith.constant" || op.Name == "tensor.empty" || linalg.IsReshape(op):
		return true
	case op.Name == linalg.GenericName && len(op.Results) == 1:
		return flow.FillScalar(op.Results[0]) != nil
	}
	return false
}

// splitProduct returns the static batch size of op when it is a product
// (not a fill) with a batch of at least two and at least
// minCooperativeStep multiply-adds, else 0.
func (g *gen) splitProduct(op *ir.Operation) int64 {
	gen, ok := linalg.AsGeneric(op)
	if !ok || flow.FillScalar(op.Results[0]) != nil {
		return 0
	}
	sh, ok := matchContract(gen)
	if !ok || sh.Batch < 0 {
		return 0
	}
	size := func(d int) int64 {
		for i, m := range gen.Maps() {
			t, ok := gen.Op.Operands[i].Type.(*ir.RankedTensorType)
			if !ok {
				continue
			}
			for j, r := range m.Results {
				if e, ok := r.(*ir.AffineDimExpr); ok && e.Pos == d {
					return t.Dims[j]
				}
			}
		}
		return -1
	}
	b := size(sh.Batch)
	work := b * size(sh.M) * size(sh.N) * size(sh.K)
	if b < 2 || work < minCooperativeStep {
		return 0
	}
	return b
}

// cooperativeSteps emits the recurrence's steps as tickets shared by
// RecurrenceWorkgroups workgroups (see above); cnt is the counters'
// binding and start the code of ticket 0.
func (g *gen) cooperativeSteps(rc *recurrence, body *ir.Block, pre []*ir.Operation, phases []stepPhase, cnt int, start func(b *kir.Builder)) error {
	g.k.Grid[0] = kir.GridDim{Static: int64(g.st.RecurrenceWorkgroups), Tile: 1}
	i64, i32 := kir.S(kir.I64), kir.S(kir.I32)
	one := g.b.Int(i32, 1)
	// take gives the ticket held, or the next one when none is (-1).
	take := func(b *kir.Builder, held kir.Value) kir.Value {
		none := b.Cmp(kir.CmpI, kir.PredSLT, held, g.idx(0))
		return b.If(none, []kir.Type{i64}, func(b *kir.Builder) []kir.Value {
			return []kir.Value{b.Emit(kir.ExtS, i64, b.FetchAdd(cnt, g.idx(claimCounter), one))}
		}, func(*kir.Builder) []kir.Value { return []kir.Value{held} })[0]
	}
	// run runs work(chunk) for a held ticket among the chunks from base,
	// once every ticket before base is done, and gives the ticket held
	// after: none, or the one it held for a later phase.
	var err error
	run := func(b *kir.Builder, held, base kir.Value, chunks int64, work func(b *kir.Builder, chunk kir.Value) error) kir.Value {
		mine := b.Cmp(kir.CmpI, kir.PredSLT, held, b.Bin(kir.Add, base, g.idx(chunks)))
		return b.If(mine, []kir.Type{i64}, func(b *kir.Builder) []kir.Value {
			b.SpinUntil(cnt, g.idx(doneCounter), b.Emit(kir.TruncI, i32, base))
			if e := work(b, b.Bin(kir.Sub, held, base)); e != nil && err == nil {
				err = e
			}
			b.FetchAdd(cnt, g.idx(doneCounter), one)
			return []kir.Value{g.idx(-1)}
		}, func(*kir.Builder) []kir.Value { return []kir.Value{held} })[0]
	}
	top := g.b
	held := run(top, take(top, g.idx(-1)), g.idx(0), 1, func(b *kir.Builder, _ kir.Value) error {
		start(b)
		return nil
	})
	// Each step: its phases, or the merged step's one phase (ms).
	ms := g.mergeSteps(rc, body, phases)
	ps := phases
	if ms != nil {
		ps = []stepPhase{{chunks: ms.chunks}}
	}
	top.For(g.idx(rc.lb), g.idx(rc.ub), g.idx(rc.step), []kir.Value{held, g.idx(1)}, func(b *kir.Builder, iv kir.Value, it []kir.Value) []kir.Value {
		held, base := it[0], it[1]
		g.locals[body.Args[0]] = iv
		for _, op := range pre {
			if e := g.recurrenceOp(b, op, body, nil); e != nil && err == nil {
				err = e
			}
		}
		for _, p := range ps {
			// A chunk: the phase's ops in order, or a share of the
			// product's batch.
			work := func(b *kir.Builder, _ kir.Value) error {
				for _, op := range p.ops {
					if e := g.recurrenceOp(b, op, body, nil); e != nil {
						return e
					}
				}
				return nil
			}
			switch {
			case ms != nil:
				work = func(b *kir.Builder, c kir.Value) error { return ms.work(g, b, body, iv, rc.step, c) }
			case p.chunks > 1:
				per := (p.batches + p.chunks - 1) / p.chunks
				work = func(b *kir.Builder, c kir.Value) error {
					lo := b.Bin(kir.Mul, c, g.idx(per))
					hi := b.Emit(kir.MinS, i64, b.Bin(kir.Add, lo, g.idx(per)), g.idx(p.batches))
					return g.recurrenceOp(b, p.ops[0], body, &stepRange{lo: lo, hi: hi, step: 1, aBind: -1})
				}
			}
			// At most one chunk per iteration; a workgroup runs at most
			// all of them.
			held = b.For(g.idx(0), g.idx(p.chunks), g.idx(1), []kir.Value{held}, func(b *kir.Builder, _ kir.Value, it []kir.Value) []kir.Value {
				return []kir.Value{run(b, take(b, it[0]), base, p.chunks, work)}
			})[0]
			base = b.Bin(kir.Add, base, g.idx(p.chunks))
		}
		return []kir.Value{held, base}
	})
	return err
}
