package codegen

import (
	"slices"

	"github.com/gree-ml/gree/go/compiler/flow"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// A recurrence kernel runs a whole host loop (flow.FormRecurrences) in
// one workgroup (or shares each step among a few when its product is
// large: Strategy.RecurrenceWorkgroups, recurrence_coop.go): the
// loop-carried tensors live in the region's result buffers, updated in
// place step by step; each step runs its products as Contract tile ops
// (from zero), its element-wise generics over their whole range, and
// copies its output into Y. An RNN/GRU/LSTM layer then costs one
// dispatch instead of two per step.

// maxStepElements bounds every tensor a recurrence's step reads or
// writes (a GRU's 128×384 weight is 49152 elements; an LSTM's of 256 units 262144).
const maxStepElements = 1 << 18

// recurrence is a matched loop.
type recurrence struct {
	loop         *ir.Operation
	lb, ub, step int64
}

// RecurrenceLowerable reports whether codegen lowers loop as one kernel
// under st (see matchRecurrence).
func RecurrenceLowerable(loop *ir.Operation, st Strategy) bool {
	_, ok := matchRecurrence(loop, st)
	return ok
}

// matchRecurrence accepts an scf.for with static bounds over static f32
// tensors whose body holds only: constants and index arithmetic, empty
// tensors and reshapes, +0 fills read as products' initial values,
// products (matchContract) starting from such a fill, all-parallel
// generics, and contiguous tensor.insert_slices into a carried tensor.
// Each carried tensor's next value is an all-parallel generic that reads
// the current one, if at all, at the same point and after every other
// reader (so it may overwrite it in place), or the insert into it.
func matchRecurrence(loop *ir.Operation, st Strategy) (*recurrence, bool) {
	if !st.Recurrence || !st.Contract || loop.Name != "scf.for" || len(loop.Operands) < 4 || len(loop.Regions) != 1 {
		return nil, false
	}
	rc := &recurrence{loop: loop}
	var ok bool
	if rc.lb, ok = ir.IntConstant(loop.Operands[0]); !ok {
		return nil, false
	}
	if rc.ub, ok = ir.IntConstant(loop.Operands[1]); !ok {
		return nil, false
	}
	if rc.step, ok = ir.IntConstant(loop.Operands[2]); !ok || rc.step <= 0 {
		return nil, false
	}
	body := loop.Regions[0].Blocks[0]
	iters := body.Args[1:]
	yield := body.Terminator()
	if yield == nil || len(yield.Operands) != len(iters) || len(iters) != len(loop.Operands)-3 {
		return nil, false
	}
	for _, a := range iters {
		if !staticF32(a.Type) {
			return nil, false
		}
	}
	pos := map[*ir.Operation]int{}
	for i, op := range body.Ops {
		pos[op] = i
	}
	inside := func(v *ir.Value) bool { return v.ParentBlock() == body }
	for _, op := range body.Ops {
		if op == yield {
			continue
		}
		if linalg.IsReshape(op) {
			// Of a step's own values, not of a carried tensor (whose
			// in-place update would then have a second name).
			if !staticF32(op.Results[0].Type) || !inside(op.Operands[0]) || !heldValue(op.Operands[0]) {
				return nil, false
			}
			continue
		}
		switch op.Name {
		case "arith.constant", "tensor.empty":
		case "arith.addi", "arith.subi", "arith.muli", "arith.index_cast":
			if _, ok := op.Results[0].Type.(*ir.RankedTensorType); ok {
				return nil, false
			}
		case "tensor.insert_slice":
			if !matchStepInsert(op, iters, yield) {
				return nil, false
			}
		case linalg.GenericName:
			g, _ := linalg.AsGeneric(op)
			if !matchStepGeneric(g, body) {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	// Each carried value's next value, a different one for each.
	seen := map[*ir.Value]bool{}
	for k, v := range yield.Operands {
		if seen[v] {
			return nil, false
		}
		seen[v] = true
		def := v.Owner()
		if def == nil || def.Block() != body {
			return nil, false
		}
		if def.Name == "tensor.insert_slice" {
			continue // matchStepInsert checked it inserts into iters[k]
		}
		g, ok := linalg.AsGeneric(def)
		if !ok || !allParallel(g) || !ir.TypesEqual(v.Type, iters[k].Type) || !g.Maps()[g.NumInputs()+v.Index()].IsIdentity() {
			return nil, false
		}
		for _, u := range body.Ops {
			for i, x := range u.Operands {
				if x != iters[k] || u == yield {
					continue
				}
				if u == def {
					if i >= g.NumInputs() || !g.Maps()[i].IsIdentity() {
						return nil, false
					}
				} else if pos[u] > pos[def] {
					return nil, false
				}
			}
		}
	}
	return rc, true
}

// matchStepGeneric accepts a +0 fill, a product from a +0 fill, or an
// all-parallel generic, over static tensors, whose tensor.extracts read
// tensors defined outside the loop.
func matchStepGeneric(g linalg.Generic, body *ir.Block) bool {
	// One workgroup runs every step: small steps only (a recurrent
	// layer's; a loop of large kernels keeps its dispatches, which spread
	// over the cores).
	work := int64(1)
	for _, v := range g.Op.Operands {
		if t, ok := v.Type.(*ir.RankedTensorType); ok && ir.HasStaticShape(t) {
			n, _ := ir.NumElements(t.Dims)
			work = max(work, n)
		}
	}
	if work > maxStepElements {
		return false
	}
	for _, v := range g.Op.Operands {
		if _, ok := v.Type.(*ir.RankedTensorType); ok && !staticF32(v.Type) {
			return false
		}
	}
	for _, r := range g.Op.Results {
		if !staticF32(r.Type) {
			return false
		}
	}
	ok := true
	g.Op.Walk(func(o *ir.Operation) bool {
		if o.Name == "tensor.extract" && o.Operands[0].ParentBlock() == body {
			ok = false
		}
		return true
	})
	if !ok {
		return false
	}
	if s := flow.FillScalar(g.Op.Results[0]); s != nil && len(g.Op.Results) == 1 {
		return isPositiveZero(s)
	}
	if _, ok := matchContract(g); ok {
		init := g.Outputs()[0]
		s := flow.FillScalar(init)
		return s != nil && isPositiveZero(s) && init.ParentBlock() == body
	}
	return allParallel(g)
}

// matchStepInsert accepts a contiguous tensor.insert_slice of unit
// strides into a carried tensor that only it reads, its result yielded
// as that tensor's next value.
func matchStepInsert(op *ir.Operation, iters []*ir.Value, yield *ir.Operation) bool {
	src, dest := op.Operands[0], op.Operands[1]
	st, ok1 := src.Type.(*ir.RankedTensorType)
	dt, ok2 := dest.Type.(*ir.RankedTensorType)
	if !ok1 || !ok2 || !staticF32(st) || !staticF32(dt) {
		return false
	}
	k, carried := -1, false
	for i, a := range iters {
		if a == dest {
			k = i
		}
		carried = carried || a == src
	}
	if !carried && (src.ParentBlock() != op.Block() || !heldValue(src)) {
		return false // the kernel holds no buffer with the source's elements
	}
	if k < 0 || yield.Operands[k] != op.Results[0] {
		return false
	}
	for _, u := range op.Block().Ops {
		for _, x := range u.Operands {
			if x == dest && u != op {
				return false
			}
		}
	}
	sizes, _ := op.Attr("static_sizes").(*ir.DenseArrayAttr)
	strides, _ := op.Attr("static_strides").(*ir.DenseArrayAttr)
	offs, _ := op.Attr("static_offsets").(*ir.DenseArrayAttr)
	if sizes == nil || strides == nil || offs == nil || len(sizes.Ints) != len(dt.Dims) {
		return false
	}
	nDyn := 0
	for _, o := range offs.Ints {
		if o == linalg.DynamicIndex {
			nDyn++
		}
	}
	if len(op.Operands) != 2+nDyn {
		return false // dynamic sizes or strides
	}
	n, _ := ir.NumElements(st.Dims)
	m := int64(1)
	for _, s := range sizes.Ints {
		if s < 0 {
			return false
		}
		m *= s
	}
	if m != n {
		return false
	}
	for _, s := range strides.Ints {
		if s != 1 {
			return false
		}
	}
	// Contiguous: after the first dimension of more than one element,
	// every dimension is whole.
	whole := false
	for i, s := range sizes.Ints {
		if whole && s != dt.Dims[i] {
			return false
		}
		if s != 1 {
			whole = true
		}
	}
	return true
}

// heldValue reports whether v, a value of the loop body, has a buffer in
// the kernel that a reshape may share: a generic's result (not a fill,
// which the kernel never materializes) or another such reshape.
func heldValue(v *ir.Value) bool {
	def := v.Owner()
	if def == nil {
		return false // a carried tensor: its in-place update would have a second name
	}
	if linalg.IsReshape(def) {
		return heldValue(def.Operands[0])
	}
	return def.Name == linalg.GenericName && flow.FillScalar(v) == nil
}

func staticF32(t ir.Type) bool {
	rt, ok := t.(*ir.RankedTensorType)
	return ok && ir.HasStaticShape(rt) && rt.Elem.String() == "f32"
}

func allParallel(g linalg.Generic) bool {
	for _, it := range g.Iterators() {
		if it != linalg.Parallel {
			return false
		}
	}
	return true
}

// lowerRecurrenceRegion lowers a region flow.FormRecurrences made.
func lowerRecurrenceRegion(region *ir.Operation, name string, st Strategy) (*Dispatch, error) {
	var loop *ir.Operation
	for _, op := range region.Regions[0].Blocks[0].Ops {
		if op.Name == "scf.for" {
			loop = op
		}
	}
	if loop == nil {
		return nil, ir.OpErrorf(region, "is a recurrence region without its loop")
	}
	rc, ok := matchRecurrence(loop, st)
	if !ok {
		return nil, ir.OpErrorf(region, "is a recurrence region that this target does not lower as one kernel")
	}
	g := newGen(region, name, st)
	if err := g.lowerRecurrence(rc, region); err != nil {
		return nil, err
	}
	g.b.Append(&kir.Op{Kind: kir.Yield})
	return g.d, nil
}

// lowerRecurrence emits the kernel of a recurrence region.
func (g *gen) lowerRecurrence(rc *recurrence, region *ir.Operation) error {
	loop := rc.loop
	body := loop.Regions[0].Blocks[0]
	iters := body.Args[1:]
	yield := body.Terminator()
	ws := flow.RecurrenceWorkspaces(loop)
	if len(region.Results) != len(loop.Results)+len(ws)+1 {
		return ir.OpErrorf(region, "recurrence region has %d results, want %d (the loop's, workspaces, counters)", len(region.Results), len(loop.Results)+len(ws)+1)
	}
	// Inputs: the tensors from outside the loop the steps read (their
	// ordinals first), and the carried tensors' initial values.
	var bindErr error
	bindOutside := func(v *ir.Value) {
		if _, ok := v.Type.(*ir.RankedTensorType); !ok || bindErr != nil {
			return
		}
		if blk := v.ParentBlock(); blk == body || isNestedIn(blk, body) {
			return
		}
		if _, err := g.bind(v, kir.Read); err != nil {
			bindErr = ir.OpErrorf(loop, "%v", err)
		}
	}
	for _, op := range body.Ops {
		if op.Name != linalg.GenericName {
			continue // reshapes' shape operands are not data
		}
		op.Walk(func(o *ir.Operation) bool {
			for _, v := range o.Operands {
				bindOutside(v)
			}
			return true
		})
	}
	for _, v := range loop.Operands[3:] {
		bindOutside(v)
	}
	if bindErr != nil {
		return bindErr
	}
	// Outputs: the carried tensors (updated in place), then workspaces.
	out := make([]int, len(region.Results))
	for i, r := range region.Results {
		b, err := g.bind(r, kir.ReadWrite)
		if err != nil {
			return ir.OpErrorf(loop, "%v", err)
		}
		out[i] = b
	}
	for k, a := range iters {
		g.alias(a, out[k])
		g.alias(yield.Operands[k], out[k])
	}
	for i, w := range ws {
		g.alias(w, out[len(loop.Results)+i])
	}
	for _, op := range body.Ops {
		if linalg.IsReshape(op) {
			b, ok := g.bindingOf[op.Operands[0]]
			if !ok {
				return ir.OpErrorf(op, "reshapes a value the recurrence kernel does not hold")
			}
			g.alias(op.Results[0], b)
		}
	}
	// The carried tensors start as the loop's initial values.
	start := func(b *kir.Builder) {
		for k := range iters {
			init := loop.Operands[3+k]
			n, _ := ir.NumElements(init.Type.(*ir.RankedTensorType).Dims)
			g.copyElems(b, g.bindingOf[init], g.idx(0), out[k], g.idx(0), n)
		}
	}
	if g.locals == nil {
		g.locals = map[*ir.Value]kir.Value{}
	}
	pre, phases := g.stepPhases(body)
	if g.st.RecurrenceWorkgroups > 1 && slices.ContainsFunc(phases, func(p stepPhase) bool { return p.chunks > 1 }) {
		return g.cooperativeSteps(rc, body, pre, phases, out[len(out)-1], start)
	}
	top := g.b
	start(top)
	var err error
	top.For(g.idx(rc.lb), g.idx(rc.ub), g.idx(rc.step), nil, func(b *kir.Builder, iv kir.Value, _ []kir.Value) []kir.Value {
		g.locals[body.Args[0]] = iv
		for _, op := range body.Ops {
			if err != nil || op == yield {
				break
			}
			err = g.recurrenceOp(b, op, body, nil)
		}
		return nil
	})
	return err
}

// isNestedIn reports whether blk lies inside an op of outer.
func isNestedIn(blk, outer *ir.Block) bool {
	for blk != nil {
		p := blk.ParentOp()
		if p == nil {
			return false
		}
		if p.Block() == outer {
			return true
		}
		blk = p.Block()
	}
	return false
}

// stepRange restricts a step op to a cooperative chunk: a product to
// its batches lo, lo+step, … below hi, reading its A operand at aOff in
// binding aBind when aBind ≥ 0 (the step's previous output, see
// mergedStep); an element-wise generic or an insert to the n elements
// lo… of its last dimension (hi = lo + n).
type stepRange struct {
	lo, hi kir.Value
	step   int64
	n      int64
	aBind  int
	aOff   kir.Value
}

// recurrenceOp emits one op of a step; r, when not nil, is the part of
// it a cooperative chunk computes.
func (g *gen) recurrenceOp(b *kir.Builder, op *ir.Operation, body *ir.Block, r *stepRange) error {
	if linalg.IsReshape(op) {
		return nil // the result shares its source's binding (alias)
	}
	switch op.Name {
	case "arith.constant", "tensor.empty":
		return nil
	case "arith.addi", "arith.subi", "arith.muli", "arith.index_cast":
		rs, err := scalarOp(b, op, 1, func(v *ir.Value) (kir.Value, error) { return g.stepScalar(v) })
		if err != nil {
			return err
		}
		g.locals[op.Results[0]] = rs[0]
		return nil
	case "tensor.insert_slice":
		return g.stepInsert(b, op, r)
	}
	gen, _ := linalg.AsGeneric(op)
	if s := flow.FillScalar(op.Results[0]); s != nil && len(op.Results) == 1 {
		return nil // a product's +0 start: the Contract's ContractZero
	}
	if sh, ok := matchContract(gen); ok {
		return g.stepContract(b, gen, sh, r)
	}
	l := &genericLowering{g: g, op: gen, maps: gen.Maps(), its: gen.Iterators(), nIn: gen.NumInputs(), results: gen.Op.Results, vecDim: -1}
	if err := l.analyze(); err != nil {
		return err
	}
	ivs := make([]kir.Value, len(l.its))
	if len(l.pars) == 0 {
		return l.point(b, ivs, 1)
	}
	if r != nil {
		// The loops before the last have one iteration (mergedStep).
		n := len(l.pars)
		for _, k := range l.pars[:n-1] {
			ivs[k] = g.idx(0)
		}
		l.pars = l.pars[n-1:]
		return l.loops(b, ivs, 0, r.lo, r.hi)
	}
	return l.loops(b, ivs, 0, g.idx(0), l.sizes[l.pars[0]].value)
}

// stepScalar is a step's scalar: the loop's index or a value computed
// from it, or a value from outside the loop.
func (g *gen) stepScalar(v *ir.Value) (kir.Value, error) {
	if kv, ok := g.locals[v]; ok {
		return kv, nil
	}
	return g.scalarCapture(v)
}

// stepContract runs a product of the step as Contract tile ops from
// zero, one per batch element (those of r when not nil).
func (g *gen) stepContract(b *kir.Builder, op linalg.Generic, sh contractShape, r *stepRange) error {
	l := &genericLowering{g: g, op: op, maps: op.Maps(), its: op.Iterators(), nIn: 2, results: op.Op.Results, vecDim: -1}
	if err := l.analyze(); err != nil {
		return err
	}
	A, B, C := op.Op.Operands[0], op.Op.Operands[1], op.Op.Results[0]
	maps := l.maps
	aRS, aCS := g.strideFor(A, maps[0], sh.M), g.strideFor(A, maps[0], sh.K)
	bRS, bCS := g.strideFor(B, maps[1], sh.K), g.strideFor(B, maps[1], sh.N)
	cRS, cCS := g.strideFor(C, maps[2], sh.M), g.strideFor(C, maps[2], sh.N)
	cb, ab := g.bindingOf[C], g.bindingOf[A]
	g.k.Bindings[cb].Access = kir.ReadWrite
	aBase := g.idx(0)
	if r != nil && r.aBind >= 0 {
		ab, aBase = r.aBind, r.aOff
	}
	emit := func(b *kir.Builder, aOff, bOff, cOff kir.Value) {
		b.Contract(ab, g.bindingOf[B], cb,
			[12]kir.Value{aOff, aRS, aCS, bOff, bRS, bCS, cOff, cRS, cCS, l.sizes[sh.M].value, l.sizes[sh.N].value, l.sizes[sh.K].value}, kir.ContractZero)
	}
	if sh.Batch < 0 {
		emit(b, aBase, g.idx(0), g.idx(0))
		return nil
	}
	lo, hi, step := g.idx(0), l.sizes[sh.Batch].value, int64(1)
	if r != nil {
		lo, hi, step = r.lo, r.hi, r.step
	}
	b.For(lo, hi, g.idx(step), nil, func(b *kir.Builder, bi kir.Value, _ []kir.Value) []kir.Value {
		off := func(t *ir.Value, m *ir.AffineMap) kir.Value { return b.Bin(kir.Mul, bi, g.strideFor(t, m, sh.Batch)) }
		emit(b, b.Bin(kir.Add, aBase, off(A, maps[0])), off(B, maps[1]), off(C, maps[2]))
		return nil
	})
	return nil
}

// stepInsert copies a step's output into its carried tensor at the
// insert's offsets (a contiguous range: matchStepInsert), or r's
// elements of it.
func (g *gen) stepInsert(b *kir.Builder, op *ir.Operation, r *stepRange) error {
	src, dest := op.Operands[0], op.Operands[1]
	offs, _ := op.Attr("static_offsets").(*ir.DenseArrayAttr)
	strides := g.strides[dest]
	dyn := op.Operands[2:]
	off := g.idx(0)
	for r, o := range offs.Ints {
		var x kir.Value
		if o == linalg.DynamicIndex {
			v, err := g.stepScalar(dyn[0])
			if err != nil {
				return ir.OpErrorf(op, "%v", err)
			}
			x, dyn = v, dyn[1:]
		} else {
			x = g.idx(o)
		}
		off = b.Bin(kir.Add, off, b.Bin(kir.Mul, x, strides[r]))
	}
	n, _ := ir.NumElements(src.Type.(*ir.RankedTensorType).Dims)
	from := g.idx(0)
	if r != nil {
		from, n = r.lo, r.n
	}
	g.copyElems(b, g.bindingOf[src], from, g.bindingOf[dest], b.Bin(kir.Add, off, from), n)
	return nil
}

// copyElems copies n f32 elements from binding src at sOff to binding dst
// at dOff: whole vectors, then single elements.
func (g *gen) copyElems(b *kir.Builder, src int, sOff kir.Value, dst int, dOff kir.Value, n int64) {
	w := int64(max(g.st.VectorWidth, 1))
	full := n / w * w
	if w > 1 && full > 0 {
		b.For(g.idx(0), g.idx(full), g.idx(w), nil, func(b *kir.Builder, i kir.Value, _ []kir.Value) []kir.Value {
			v := b.Load(src, kir.V(kir.F32, int(w)), b.Bin(kir.Add, sOff, i))
			b.Store(dst, b.Bin(kir.Add, dOff, i), v)
			return nil
		})
	} else {
		full = 0
	}
	if full < n {
		b.For(g.idx(full), g.idx(n), g.idx(1), nil, func(b *kir.Builder, i kir.Value, _ []kir.Value) []kir.Value {
			v := b.Load(src, kir.S(kir.F32), b.Bin(kir.Add, sOff, i))
			b.Store(dst, b.Bin(kir.Add, dOff, i), v)
			return nil
		})
	}
}

// alias makes v, a dense static tensor of the kernel, use binding bi.
func (g *gen) alias(v *ir.Value, bi int) {
	t := v.Type.(*ir.RankedTensorType)
	g.bindingOf[v] = bi
	dims := make([]kir.Value, len(t.Dims))
	strides := make([]kir.Value, len(t.Dims))
	s := int64(1)
	for j := len(t.Dims) - 1; j >= 0; j-- {
		dims[j], strides[j] = g.idx(t.Dims[j]), g.idx(s)
		s *= t.Dims[j]
	}
	g.dims[v], g.strides[v] = dims, strides
}
