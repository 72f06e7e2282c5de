package gpu

import "github.com/gree-ml/gree/go/compiler/kir"

// UnrollInnerLoops unrolls every innermost For loop of k (one holding no
// other loop) by factor: a loop of factor copies of the body per
// iteration over the whole multiples of factor steps, then the original
// loop over the remaining steps. Loop-carried values pass from copy to
// copy. Loops whose constant trip count is at most factor are unrolled
// whole (so that the loop around them is innermost in turn).
//
// Mesa's lavapipe counts every loop iteration of a shader invocation
// against one budget of 65535 and silently leaves the loop it is in when
// the budget runs out, so a thread that walks 131072 elements in one
// loop would skip the rest there. Unrolling by 8 raises what one thread
// can walk eightfold (Target.MaxLoopIterations).
func UnrollInnerLoops(k *kir.Kernel, factor int) {
	consts := constants(k)
	unrollLoops(k, k.Body, factor, consts, map[kir.Value]kir.Value{})
}

// unrollLoops unrolls the innermost loops of blk and reports whether blk
// still holds a loop. The results of loops unrolled whole are replaced by
// their last copy's values: sub records them for the kernel's renaming.
func unrollLoops(k *kir.Kernel, blk *kir.Block, factor int, consts map[kir.Value]int64, sub map[kir.Value]kir.Value) bool {
	var out []*kir.Op
	hasLoop := false
	for _, op := range blk.Ops {
		// Uses of loops unrolled whole before this op take their values.
		for i, a := range op.Args {
			op.Args[i] = rename(sub, a)
		}
		inner := false
		for _, r := range op.Regions {
			if unrollLoops(k, r, factor, consts, sub) {
				inner = true
			}
		}
		if op.Kind != kir.For {
			out = append(out, op)
			hasLoop = hasLoop || inner
			continue
		}
		size := opCount(op.Regions[0])
		if n, ok := tripCount(op, consts); ok && n <= int64(factor) && !inner && n*int64(size) <= maxUnrolledOps {
			out = append(out, unrollWhole(k, op, n, consts, sub)...)
			continue
		}
		hasLoop = true
		f := factor
		for f > 1 && f*size > maxUnrolledOps {
			f /= 2
		}
		if inner || f < 2 {
			out = append(out, op)
			continue
		}
		out = append(out, unrollLoop(k, op, f)...)
	}
	blk.Ops = out
	return hasLoop
}

// maxUnrolledOps bounds the ops one unrolled loop body may grow to: a
// larger body is unrolled less (or not at all), so that nested constant
// loops do not multiply into a shader the driver takes long to compile.
const maxUnrolledOps = 1024

// opCount counts the ops of blk and its nested blocks.
func opCount(blk *kir.Block) int {
	n := 0
	for _, op := range blk.Ops {
		n++
		for _, r := range op.Regions {
			n += opCount(r)
		}
	}
	return n
}

// LoopIterations bounds the loop iterations one invocation of k runs, all
// loops together (the larger branch of each If), from ranges of the index
// values (constants, thread and workgroup ids within the static grid and
// workgroup, and arithmetic on them). The second result is false where a
// loop's trip count has no bound (a push constant, a loaded value).
func LoopIterations(k *kir.Kernel) (int64, bool) {
	r := &ranges{k: k, iv: map[kir.Value]span{}}
	return r.block(k.Body)
}

// span is a closed range of integer values.
type span struct{ lo, hi int64 }

const unbounded = int64(1) << 40

// ranges bounds the kernel's index values in program order.
type ranges struct {
	k  *kir.Kernel
	iv map[kir.Value]span
}

func (r *ranges) of(v kir.Value) (span, bool) {
	s, ok := r.iv[v]
	return s, ok
}

func (r *ranges) block(blk *kir.Block) (int64, bool) {
	total := int64(0)
	for _, op := range blk.Ops {
		switch op.Kind {
		case kir.For:
			lo, ok1 := r.of(op.Args[0])
			hi, ok2 := r.of(op.Args[1])
			step, ok3 := r.of(op.Args[2])
			if !ok1 || !ok2 || !ok3 || step.lo <= 0 {
				return 0, false
			}
			n := int64(0)
			if hi.hi > lo.lo {
				n = (hi.hi - lo.lo + step.lo - 1) / step.lo
			}
			r.iv[op.Regions[0].Args[0]] = span{lo.lo, max(lo.lo, hi.hi-1)}
			in, ok := r.block(op.Regions[0])
			if !ok {
				return 0, false
			}
			total += n * (1 + in)
		case kir.If:
			most := int64(0)
			for _, b := range op.Regions {
				in, ok := r.block(b)
				if !ok {
					return 0, false
				}
				most = max(most, in)
			}
			total += most
		default:
			r.def(op)
		}
		if total > unbounded {
			return total, true
		}
	}
	return total, true
}

// def records the range of op's result where it is a bounded scalar
// integer.
func (r *ranges) def(op *kir.Op) {
	if len(op.Results) != 1 || r.k.Type(op.Results[0]).IsVector() || !r.k.Type(op.Results[0]).Elem.IsInt() {
		return
	}
	set := func(lo, hi int64) {
		if lo >= -unbounded && hi <= unbounded && lo <= hi {
			r.iv[op.Results[0]] = span{lo, hi}
		}
	}
	grid := func(d int64) int64 {
		g := r.k.Grid[d]
		if len(g.PushConstants) > 0 || g.Tile <= 0 {
			return unbounded
		}
		return (g.Static + g.Tile - 1) / g.Tile
	}
	args := make([]span, len(op.Args))
	for i, a := range op.Args {
		s, ok := r.of(a)
		if !ok {
			args[i] = span{-unbounded - 1, unbounded + 1}
		} else {
			args[i] = s
		}
	}
	switch op.Kind {
	case kir.ConstInt:
		set(op.Imm, op.Imm)
	case kir.ThreadID:
		set(0, int64(r.k.WorkgroupSize[op.Imm]-1))
	case kir.WorkgroupSize:
		n := int64(r.k.WorkgroupSize[op.Imm])
		set(n, n)
	case kir.WorkgroupID:
		set(0, grid(op.Imm)-1)
	case kir.WorkgroupCount:
		set(1, grid(op.Imm))
	case kir.Add:
		set(args[0].lo+args[1].lo, args[0].hi+args[1].hi)
	case kir.Sub:
		set(args[0].lo-args[1].hi, args[0].hi-args[1].lo)
	case kir.Mul:
		// The products of the corners, where none can overflow.
		ma, mb := max(-args[0].lo, args[0].hi), max(-args[1].lo, args[1].hi)
		if mb == 0 || ma <= (1<<62)/mb {
			set(corners(args[0], args[1], func(a, b int64) int64 { return a * b }))
		}
	case kir.MinS:
		set(min(args[0].lo, args[1].lo), min(args[0].hi, args[1].hi))
	case kir.MaxS:
		set(max(args[0].lo, args[1].lo), max(args[0].hi, args[1].hi))
	case kir.DivS, kir.FloorDivS, kir.CeilDivS:
		// With a positive divisor each division is monotone in both
		// operands (for a numerator of either sign), so the corners bound
		// it.
		if args[1].lo > 0 {
			div := map[kir.Kind]func(a, b int64) int64{kir.DivS: func(a, b int64) int64 { return a / b }, kir.FloorDivS: floorDiv, kir.CeilDivS: func(a, b int64) int64 { return -floorDiv(-a, b) }}[op.Kind]
			set(corners(args[0], args[1], div))
		}
	case kir.RemS:
		if args[0].lo >= 0 && args[1].lo > 0 {
			set(0, min(args[0].hi, args[1].hi-1))
		}
	}
}

// corners returns the least and greatest of f over the corners of a × b.
func corners(a, b span, f func(x, y int64) int64) (int64, int64) {
	vs := [4]int64{f(a.lo, b.lo), f(a.lo, b.hi), f(a.hi, b.lo), f(a.hi, b.hi)}
	return min(vs[0], vs[1], vs[2], vs[3]), max(vs[0], vs[1], vs[2], vs[3])
}

// floorDiv is a/b rounded toward -∞ (b > 0).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// constants maps the kernel's scalar integer constants to their values.
func constants(k *kir.Kernel) map[kir.Value]int64 {
	consts := map[kir.Value]int64{}
	var collect func(*kir.Block)
	collect = func(b *kir.Block) {
		for _, op := range b.Ops {
			if op.Kind == kir.ConstInt && len(op.Results) == 1 && !k.Type(op.Results[0]).IsVector() {
				consts[op.Results[0]] = op.Imm
			}
			for _, r := range op.Regions {
				collect(r)
			}
		}
	}
	collect(k.Body)
	return consts
}

// tripCount returns a loop's constant trip count.
func tripCount(op *kir.Op, consts map[kir.Value]int64) (int64, bool) {
	lo, ok1 := consts[op.Args[0]]
	hi, ok2 := consts[op.Args[1]]
	step, ok3 := consts[op.Args[2]]
	if !ok1 || !ok2 || !ok3 || step <= 0 {
		return 0, false
	}
	if hi <= lo {
		return 0, true
	}
	return (hi - lo + step - 1) / step, true
}

// unrollWhole returns n copies of a loop's body with the induction
// variable's constant values, recording in sub the loop's results as the
// last copy's yields (the inits when n is 0).
func unrollWhole(k *kir.Kernel, op *kir.Op, n int64, consts map[kir.Value]int64, sub map[kir.Value]kir.Value) []*kir.Op {
	b := &kir.Builder{K: k, Block: &kir.Block{}}
	body := op.Regions[0]
	lo, step := consts[op.Args[0]], consts[op.Args[2]]
	cur := op.Args[3:]
	for u := int64(0); u < n; u++ {
		m := map[kir.Value]kir.Value{body.Args[0]: b.Idx(lo + u*step)}
		for i, a := range body.Args[1:] {
			m[a] = cur[i]
		}
		cur = cloneInto(b, body, m)
	}
	for i, r := range op.Results {
		sub[r] = cur[i]
	}
	return b.Block.Ops
}

// unrollLoop returns the ops replacing loop op: the unrolled loop over
// the whole multiples of factor steps and the original loop, now over the
// rest, carrying the unrolled loop's results.
func unrollLoop(k *kir.Kernel, op *kir.Op, factor int) []*kir.Op {
	b := &kir.Builder{K: k, Block: &kir.Block{}}
	lo, hi, step, inits := op.Args[0], op.Args[1], op.Args[2], op.Args[3:]
	big := b.Bin(kir.Mul, step, b.Idx(int64(factor)))
	// mid = lo + max(hi-lo, 0) / big · big: the end of the whole chunks.
	span := b.Bin(kir.MaxS, b.Bin(kir.Sub, hi, lo), b.Idx(0))
	mid := b.Bin(kir.Add, lo, b.Bin(kir.Mul, b.Bin(kir.DivS, span, big), big))
	body := op.Regions[0]
	res := b.For(lo, mid, big, inits, func(b *kir.Builder, iv kir.Value, iters []kir.Value) []kir.Value {
		cur := iters
		for u := 0; u < factor; u++ {
			sub := map[kir.Value]kir.Value{body.Args[0]: iv}
			if u > 0 {
				sub[body.Args[0]] = b.Bin(kir.Add, iv, b.Bin(kir.Mul, step, b.Idx(int64(u))))
			}
			for i, a := range body.Args[1:] {
				sub[a] = cur[i]
			}
			cur = cloneInto(b, body, sub)
		}
		return cur
	})
	rest := &kir.Op{Kind: kir.For, Args: append([]kir.Value{mid, hi, step}, res...), Results: op.Results, Regions: op.Regions}
	return append(b.Block.Ops, rest)
}

// cloneInto appends copies of blk's ops (but its final Yield) to b, with
// fresh results and block arguments, operands renamed through sub, and
// returns the renamed values the Yield yields.
func cloneInto(b *kir.Builder, blk *kir.Block, sub map[kir.Value]kir.Value) []kir.Value {
	ops := blk.Ops
	var yields []kir.Value
	if n := len(ops); n > 0 && ops[n-1].Kind == kir.Yield {
		yields, ops = ops[n-1].Args, ops[:n-1]
	}
	for _, op := range ops {
		b.Append(cloneOp(b, op, sub))
	}
	out := make([]kir.Value, len(yields))
	for i, y := range yields {
		out[i] = rename(sub, y)
	}
	return out
}

func rename(sub map[kir.Value]kir.Value, v kir.Value) kir.Value {
	if r, ok := sub[v]; ok {
		return r
	}
	return v
}

// cloneOp copies op (and its regions) with fresh values, recording them
// in sub.
func cloneOp(b *kir.Builder, op *kir.Op, sub map[kir.Value]kir.Value) *kir.Op {
	c := *op
	c.Args = make([]kir.Value, len(op.Args))
	for i, a := range op.Args {
		c.Args[i] = rename(sub, a)
	}
	c.Results = make([]kir.Value, len(op.Results))
	for i, r := range op.Results {
		c.Results[i] = b.NewValue(b.K.Type(r))
		sub[r] = c.Results[i]
	}
	c.Regions = make([]*kir.Block, len(op.Regions))
	for i, r := range op.Regions {
		nb := &kir.Block{Args: make([]kir.Value, len(r.Args))}
		for j, a := range r.Args {
			nb.Args[j] = b.NewValue(b.K.Type(a))
			sub[a] = nb.Args[j]
		}
		inner := &kir.Builder{K: b.K, Block: nb}
		for _, o := range r.Ops {
			inner.Append(cloneOp(inner, o, sub))
		}
		c.Regions[i] = nb
	}
	return &c
}
