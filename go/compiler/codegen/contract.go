package codegen

import (
	"math"
	"slices"

	"github.com/gree-ml/gree/go/compiler/flow"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// contractShape is a matmul-shaped generic (linalg.MatchContract).
type contractShape = linalg.ContractShape

// matchContract recognizes a matmul-shaped generic over f32.
func matchContract(op linalg.Generic) (contractShape, bool) {
	sh, ok := linalg.MatchContract(op)
	return sh, ok && allF32(op)
}

// allF32 reports whether every operand of op is a tensor of f32.
func allF32(op linalg.Generic) bool {
	for _, v := range op.Op.Operands {
		t, ok := v.Type.(*ir.RankedTensorType)
		if !ok || t.Elem.String() != "f32" {
			return false
		}
	}
	return true
}

// strideFor returns operand t's element stride along loop l (0 when the
// operand does not use l; constant results, such as the 0 of a broadcast
// size-1 dimension, use no loop).
func (g *gen) strideFor(t *ir.Value, m *ir.AffineMap, l int) kir.Value {
	for r, e := range m.Results {
		if d, ok := e.(*ir.AffineDimExpr); ok && d.Pos == l {
			return g.strides[t][r]
		}
	}
	return g.idx(0)
}

// lowerContract maps a matmul-shaped generic to Contract tiles: the grid
// covers N (x), M (y) and the batch (z); each workgroup initializes its C
// tile and accumulates the whole K range.
func (g *gen) lowerContract(op linalg.Generic, results []*ir.Value) (bool, error) {
	return g.lowerContractWith(op, results, nil)
}

// lowerContractWith is lowerContract whose Contract also fuses epilogue
// fuse when it is set (and sets fuse.done then; a Contract with one
// static row does not take it: see below).
func (g *gen) lowerContractWith(op linalg.Generic, results []*ir.Value, fuse *fusedEpilogue) (bool, error) {
	sh, taps, ok := matchAnyContract(op, g.st.ContractTaps)
	if !ok {
		return false, nil
	}
	l := &genericLowering{g: g, op: op, maps: op.Maps(), its: op.Iterators(), nIn: 2, results: results, vecDim: -1}
	if err := l.analyze(); err != nil {
		return true, err
	}
	A, B := op.Op.Operands[0], op.Op.Operands[1]
	C := results[0]
	maps := l.maps
	top := g.b
	tm, tn := g.st.ContractTile[0], g.st.ContractTile[1]
	sm, sn := l.sizes[sh.M].static, l.sizes[sh.N].static
	// One column of tiles (a 1×1 convolution on a small plane): half-height
	// row tiles, twice as many workgroups for the threads to share evenly
	// (a thread's last workgroup is the other's idle time). The choice
	// depends on N only, so a program gets the same tiles, and the same
	// results, whether its rows (a batch) are static or dynamic.
	if sn > 0 && sn <= tn && tm >= 64 {
		tm /= 2
	}
	// Few rows (a 1×1 convolution with few output channels over a large
	// plane): column tiles four times as wide, whose workgroups read B's
	// rows in longer stretches. On MobileNetV2's 32→16 and 144→24 1×1
	// convolutions (16 and 24 rows, 12544 and 3136 columns) at two
	// threads, 512 columns were 5-8% faster than 128, and faster than
	// the 448 and 160 that would share the workgroups evenly.
	if g.st.ContractMinWorkgroups > 0 && sm > 0 && sm <= wideRows && sn > tn {
		tn *= 4
	}
	// Still few workgroups: smaller row tiles, down to 32 rows, until
	// there are ContractMinWorkgroups, where the target's Contract gives
	// the same results for any tiling (a static batch gets other tiles
	// than a dynamic one); then the row tile the threads share most
	// evenly.
	if sm > 0 && sn > 0 {
		count := func(tm int64) int64 { return CeilDiv(sm, tm) * CeilDiv(sn, tn) }
		for tm > 32 && count(tm) < g.st.ContractMinWorkgroups && count(tm/2) > count(tm) {
			tm /= 2
		}
		if g.st.ContractMinWorkgroups > 0 {
			tm = balancedRowTile(sm, sn, tm, tn, g.st.ContractTile[0])
		}
	}
	grid := func(loop int, tile int64) kir.GridDim {
		s := l.sizes[loop]
		if s.static >= 0 {
			return kir.GridDim{Static: s.static, Tile: tile}
		}
		return kir.GridDim{Static: 1, PushConstants: []int{s.push}, Tile: tile}
	}
	g.k.Grid[0] = grid(sh.N, tn)
	g.k.Grid[1] = grid(sh.M, tm)
	if sh.Batch >= 0 {
		g.k.Grid[2] = grid(sh.Batch, 1)
	}
	id := func(d int64) kir.Value { return top.EmitImm(kir.WorkgroupID, kir.S(kir.I64), d) }
	n0 := top.Bin(kir.Mul, id(0), g.idx(tn))
	m0 := top.Bin(kir.Mul, id(1), g.idx(tm))
	nN := top.Bin(kir.MinS, g.idx(tn), top.Bin(kir.Sub, l.sizes[sh.N].value, n0))
	mN := top.Bin(kir.MinS, g.idx(tm), top.Bin(kir.Sub, l.sizes[sh.M].value, m0))
	base := func(t *ir.Value, m *ir.AffineMap) kir.Value {
		off := g.idx(0)
		if sh.Batch >= 0 {
			off = top.Bin(kir.Mul, id(2), g.strideFor(t, m, sh.Batch))
		}
		return off
	}
	aRS, aCS := g.strideFor(A, maps[0], sh.M), g.strideFor(A, maps[0], sh.K)
	bRS, bCS := g.strideFor(B, maps[1], sh.K), g.strideFor(B, maps[1], sh.N)
	if taps != nil {
		bCS = g.strides[B][len(g.strides[B])-1] // n's coefficient in B's column index is 1
	}
	cRS, cCS := g.strideFor(C, maps[2], sh.M), g.strideFor(C, maps[2], sh.N)
	aOff := top.Bin(kir.Add, base(A, maps[0]), top.Bin(kir.Mul, m0, aRS))
	bOff := top.Bin(kir.Add, base(B, maps[1]), top.Bin(kir.Mul, n0, bCS))
	cOff := top.Bin(kir.Add, base(C, maps[2]), top.Bin(kir.Add, top.Bin(kir.Mul, m0, cRS), top.Bin(kir.Mul, n0, cCS)))
	// Initialize the C tile from the fill value or the init tensor, so
	// that no element of C is read before this workgroup wrote it and
	// the host need not zero C's buffer. A +0 fill is the Contract's
	// ContractZero flag instead: its sums start at +0 without reading C,
	// and it writes the whole tile (zeros when K is 0).
	src := l.initOf[0]
	cb := g.bindingOf[C]
	g.k.Bindings[cb].Access = kir.ReadWrite
	var flags int64
	if src.fill != nil && isPositiveZero(src.fill) {
		flags = kir.ContractZero
		if g.d.WrittenFirst == nil {
			g.d.WrittenFirst = map[int]bool{}
		}
		g.d.WrittenFirst[cb] = true
	} else if src.fill != nil || src.binding != cb {
		var fill kir.Value = -1
		if src.fill != nil {
			v, err := g.scalarCapture(src.fill)
			if err != nil {
				return true, l.errorf("%v", err)
			}
			fill = v
		}
		var iRS, iCS, iOff kir.Value
		w := 1
		if fill < 0 {
			init := g.d.Bindings[src.binding]
			iRS, iCS = g.strideFor(init, maps[2], sh.M), g.strideFor(init, maps[2], sh.N)
			iOff = top.Bin(kir.Add, base(init, maps[2]), top.Bin(kir.Add, top.Bin(kir.Mul, m0, iRS), top.Bin(kir.Mul, n0, iCS)))
		}
		// Whole vectors along N where C (and the init) are contiguous.
		if cCS == g.idx(1) && (fill >= 0 || iCS == g.idx(1)) {
			w = max(g.st.VectorWidth, 1)
		}
		fills := map[int]kir.Value{1: fill}
		if fill >= 0 && w > 1 {
			fills[w] = g.topBroadcast(fill, w)
		}
		g.tileSweep(mN, nN, w, nil, func(b *kir.Builder, i, j kir.Value, w int) {
			v, ok := fills[w]
			if !ok && fill >= 0 {
				v = g.topBroadcast(fill, w)
				fills[w] = v
			}
			if fill < 0 {
				off := b.Bin(kir.Add, iOff, b.Bin(kir.Add, b.Bin(kir.Mul, i, iRS), b.Bin(kir.Mul, j, iCS)))
				v = b.Load(src.binding, f32Lanes(w), off)
			}
			off := b.Bin(kir.Add, cOff, b.Bin(kir.Add, b.Bin(kir.Mul, i, cRS), b.Bin(kir.Mul, j, cCS)))
			b.Store(cb, off, v)
		})
		if g.d.WrittenFirst == nil {
			g.d.WrittenFirst = map[int]bool{}
		}
		g.d.WrittenFirst[cb] = true
	}
	t := &contractTile{l: l, sh: sh, m0: m0, n0: n0, mN: mN, nN: nN, c: C}
	e := kir.NoContractEpilogue
	// One static row (a classifier's product): the row kernel does not
	// run (see epilogueContract), and a vector sweep beats the scalar one.
	if fuse != nil && l.sizes[sh.M].static != 1 {
		fuse.done = true
		var err error
		if e, err = g.fusedContractEpilogue(fuse, t, base); err != nil {
			return true, err
		}
	}
	args := [12]kir.Value{aOff, aRS, aCS, bOff, bRS, bCS, cOff, cRS, cCS, mN, nN, l.sizes[sh.K].value}
	if taps != nil {
		g.emitTaps(l, taps, A, [3]int{g.bindingOf[A], g.bindingOf[B], cb}, args, flags, e)
	} else {
		top.ContractWith(g.bindingOf[A], g.bindingOf[B], cb, args, flags, e)
	}
	g.contract = t
	return true, nil
}

// isPositiveZero reports whether v is the constant +0.0 (not -0.0, whose
// sums differ: -0 + -0 is -0).
func isPositiveZero(v *ir.Value) bool {
	def := v.Owner()
	if def == nil || def.Name != "arith.constant" {
		return false
	}
	a, ok := def.Attr("value").(*ir.FloatAttr)
	return ok && a.Value == 0 && !math.Signbit(a.Value)
}

// lowerContractEpilogue maps contraction root to Contract tiles followed
// by epilogue epi over each workgroup's tile. When the region returns the
// root's result (rootResult), the Contract accumulates into it and epi
// reads it back; otherwise, where flow.EpilogueInPlace holds, into epi's
// result, which epi then overwrites in place. It reports false when the
// root is not matmul-shaped or neither holds (the root then lives in
// registers: lowerWithEpilogue).
func (g *gen) lowerContractEpilogue(root, epi linalg.Generic, rootResult *ir.Value, results []*ir.Value) (bool, error) {
	if _, _, ok := matchAnyContract(root, g.st.ContractTaps); !ok {
		return false, nil
	}
	c := rootResult
	if c == nil && flow.EpilogueInPlace(root.Op, epi.Op) {
		c = results[0]
	}
	if c == nil {
		return false, nil
	}
	if rootResult == nil && g.st.ContractEpilogue {
		// The epilogue in the Contract's stores, where it is a chain
		// the tile op fuses.
		if ch, ok := matchContractChain(root, epi, g.st.ContractTaps); ok {
			f := &fusedEpilogue{epi: epi, chain: ch}
			_, err := g.lowerContractWith(root, results, f)
			if err != nil || f.done {
				return true, err
			}
			return true, g.contractEpilogue(epi, results)
		}
	}
	if _, err := g.lowerContract(root, []*ir.Value{c}); err != nil {
		return true, err
	}
	return true, g.contractEpilogue(epi, results)
}

// contractTile is what an epilogue needs from a Contract lowering: the
// workgroup's tile of C.
type contractTile struct {
	l              *genericLowering
	sh             contractShape
	m0, n0, mN, nN kir.Value
	c              *ir.Value
}

// contractEpilogue runs epi over the workgroup's C tile after the Contract:
// rows one by one, columns vectorized with a scalar remainder.
func (g *gen) contractEpilogue(epi linalg.Generic, results []*ir.Value) error {
	t := g.contract
	l := t.l
	if err := g.bindEpilogue(l, epi, results); err != nil {
		return err
	}
	top := g.b
	w := max(g.st.VectorWidth, 1)
	l.vecDim = t.sh.N
	for k := range l.its {
		if !l.linearIn(k) {
			w = 1
		}
	}
	cb := g.bindingOf[t.c]
	ivs := make([]kir.Value, len(l.its))
	for k := range ivs {
		ivs[k] = g.idx(0)
	}
	if t.sh.Batch >= 0 {
		ivs[t.sh.Batch] = top.EmitImm(kir.WorkgroupID, kir.S(kir.I64), 2)
	}
	var ferr error
	// What a row's points share (a per-row bias, the clip bounds) is
	// loaded once per row: the kernel's bindings may alias, so LLVM
	// cannot hoist those loads past the row's stores itself.
	row := func(b *kir.Builder, i kir.Value) {
		ivs[t.sh.M] = b.Bin(kir.Add, t.m0, i)
		ivs[t.sh.N] = t.n0
		l.preloadRowInvariants(b, ivs)
	}
	point := func(b *kir.Builder, i, j kir.Value, w int) {
		ivs[t.sh.M] = b.Bin(kir.Add, t.m0, i)
		ivs[t.sh.N] = b.Bin(kir.Add, t.n0, j)
		if err := l.epiloguePoint(b, t.c, cb, ivs, w); err != nil {
			ferr = err
		}
	}
	g.tileSweep(t.mN, t.nN, w, row, point)
	l.epi.pre = nil
	return ferr
}

// epiloguePoint runs the epilogue at ivs (w lanes) on the root's result,
// read back from tensor c in binding cb, and stores what it yields.
func (l *genericLowering) epiloguePoint(b *kir.Builder, c *ir.Value, cb int, ivs []kir.Value, w int) error {
	root := l.load(b, l.address(b, c, cb, l.maps[l.nIn], ivs, w), w)
	outs, accs, err := l.runEpilogue(b, ivs, w, []kir.Value{root})
	if err != nil {
		return err
	}
	for k := range outs {
		l.store(b, accs[k], outs[k], w)
	}
	return nil
}

// bindEpilogue makes epi the epilogue of root lowering l and binds the
// tensors it writes and the ones it reads besides the root's result.
func (g *gen) bindEpilogue(l *genericLowering, epi linalg.Generic, results []*ir.Value) error {
	e, err := newEpilogue(l.op, epi, results)
	if err != nil {
		return err
	}
	l.epi = e
	for _, r := range results {
		if _, err := g.bind(r, kir.Write); err != nil {
			return ir.OpErrorf(epi.Op, "%v", err)
		}
	}
	for i, in := range epi.Inputs() {
		if _, c := constScalar(in); c {
			continue // a kernel constant (runEpilogue)
		}
		if _, ok := in.Type.(*ir.RankedTensorType); ok && i != e.rootArg {
			if _, err := g.bind(in, kir.Read); err != nil {
				return ir.OpErrorf(epi.Op, "%v", err)
			}
		}
	}
	return nil
}

// tileSweep calls point on each (i, j) of an mN×nN tile: rows one by one
// (row, when set, first emits what the row's points share), columns in
// vectors of w lanes, then of halving widths down to 8, then one by one.
func (g *gen) tileSweep(mN, nN kir.Value, w int, row func(b *kir.Builder, i kir.Value), point func(b *kir.Builder, i, j kir.Value, w int)) {
	g.b.For(g.idx(0), mN, g.idx(1), nil, func(b *kir.Builder, i kir.Value, _ []kir.Value) []kir.Value {
		if row != nil {
			row(b, i)
		}
		sweepWidths(b, g, nN, w, func(b *kir.Builder, j kir.Value, w int) { point(b, i, j, w) })
		return nil
	})
}

// sweepWidths calls point on [0, n) in vectors of w lanes, then of
// halving widths down to 8 lanes, then one point at a time.
func sweepWidths(b *kir.Builder, g *gen, n kir.Value, w int, point func(b *kir.Builder, x kir.Value, w int)) {
	start := g.idx(0)
	for ; w >= 8; w /= 2 {
		end := b.Bin(kir.Add, start, b.Bin(kir.Mul, b.Bin(kir.DivS, b.Bin(kir.Sub, n, start), g.idx(int64(w))), g.idx(int64(w))))
		ww := w
		b.For(start, end, g.idx(int64(w)), nil, func(b *kir.Builder, x kir.Value, _ []kir.Value) []kir.Value {
			point(b, x, ww)
			return nil
		})
		start = end
	}
	b.For(start, n, g.idx(1), nil, func(b *kir.Builder, x kir.Value, _ []kir.Value) []kir.Value {
		point(b, x, 1)
		return nil
	})
}

// f32Lanes is f32, or a vector of w f32 lanes when w > 1.
func f32Lanes(w int) kir.Type {
	if w > 1 {
		return kir.V(kir.F32, w)
	}
	return kir.S(kir.F32)
}

// wideRows is the most rows of a Contract whose column tiles are
// widened (tile-invariant targets).
const wideRows = 32

// balanceThreads are the thread counts balancedRowTile evens the work
// out for (a laptop's or a small server's cores; the compiler does not
// know the running machine's).
var balanceThreads = []int64{2, 4}

// balanceSimulated is the most workgroups balance simulates.
const balanceSimulated = 1 << 16

// balancedRowTile returns the row tile, a multiple of 8 rows (a register
// block) between half and twice tm's rows (at least 16, at most maxTM),
// whose workgroups the threads of balanceThreads share most evenly, or
// tm when none is clearly better: with few workgroups, a thread's last
// one is the others' idle time (160 rows in 24-row tiles are 7
// workgroups, 4 for one of two threads and 3 for the other; in 40-row
// tiles, 4 that two or four threads share exactly). Ties go to the larger
// tile (fewer workgroups read B's panel).
func balancedRowTile(sm, sn, tm, tn, maxTM int64) int64 {
	rows := min(tm, sm)
	score := func(tm int64) float64 {
		s := 0.0
		for _, t := range balanceThreads {
			s += balance(sm, sn, tm, tn, t)
		}
		return s
	}
	best, bestScore := tm, score(tm)
	lo, hi := max(16, (rows/2+7)/8*8), min(maxTM, 2*rows)
	for c := hi / 8 * 8; c >= lo; c -= 8 {
		if sc := score(c); sc > bestScore+0.05 {
			best, bestScore = c, sc
		}
	}
	return best
}

// balance is the share of t threads' time spent working when they take
// the workgroups of an sm×sn product in tm×tn tiles in grid order, each
// the next free thread (as the local-task pool hands them out), a
// workgroup costing its elements: total work / (t · the busiest thread's).
// Past balanceSimulated workgroups it is 1 without simulating them: the
// busiest thread then does at most one workgroup more than its share,
// under 1/(balanceSimulated/t) of its time, far below the 0.05 that
// balancedRowTile's choice turns on (and an M of 2^40 rows would take
// hours to simulate).
func balance(sm, sn, tm, tn, t int64) float64 {
	if wm, wn := (sm-1)/tm+1, (sn-1)/tn+1; wm > balanceSimulated/max(wn, 1) {
		return 1
	}
	load := make([]int64, t)
	total := int64(0)
	for m := int64(0); m < sm; m += tm {
		for n := int64(0); n < sn; n += tn {
			c := min(tm, sm-m) * min(tn, sn-n)
			i := 0
			for j := range load {
				if load[j] < load[i] {
					i = j
				}
			}
			load[i] += c
			total += c
		}
	}
	return float64(total) / float64(t*slices.Max(load))
}
