package gpu

import (
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/status"
)

// EmulateInt64 replaces k's i64 data with pairs of i32 words (see
// LowerInt64's comment): every i64 value that is not an index, and i64
// bindings and shared allocations, which become i32 ones holding twice
// as many words (element i's low word at 2i, its high word at 2i+1).
// index is the type of k's index values: kir.Index (i64), whose i64
// index arithmetic stays as it is and is converted exactly where it meets
// data, or kir.I32 after NarrowIndices, when every i64 value left is
// data. Ops that cannot be emulated (bitcasts between i64 and f64,
// subgroup products, tile ops on i64 memory) are FAILED_PRECONDITION
// errors.
func EmulateInt64(k *kir.Kernel, index kir.Scalar) error {
	if index != kir.I64 && index != kir.I32 {
		return status.Errorf(status.InvalidArgument, "gpu: EmulateInt64: index type %s, want i64 or i32", index)
	}
	e := &emulator{rewriter: newRewriter(k), cls: classifyI64(k), index: index, pairs: map[kir.Value]pair{}}
	if index != kir.I64 {
		for v := range e.cls.data {
			e.cls.data[v] = e.cls.i64[v]
		}
	}
	e.mem = make([]bool, len(k.Bindings))
	for i := range k.Bindings {
		if k.Bindings[i].Elem == kir.I64 {
			e.mem[i] = true
			k.Bindings[i].Elem = kir.I32
		}
	}
	e.shared = make([]bool, len(k.Shared))
	for i := range k.Shared {
		if k.Shared[i].Elem == kir.I64 {
			e.shared[i] = true
			k.Shared[i].Elem = kir.I32
			k.Shared[i].Count *= 2
		}
	}
	body, err := e.block(k.Body, nil, nil)
	if err != nil {
		return err
	}
	k.Body = body
	return nil
}

// pair is an emulated i64 value: its low and high 32-bit words (i32, or
// vectors of i32 with the value's lanes).
type pair struct{ lo, hi kir.Value }

type emulator struct {
	rewriter
	cls    *i64Classes
	index  kir.Scalar
	pairs  map[kir.Value]pair
	mem    []bool // bindings that held i64
	shared []bool // shared allocations that held i64
}

// block rebuilds blk with block arguments args (nil: blk's); its Yield
// carries values into the slots yieldTo (original values).
func (e *emulator) block(blk *kir.Block, args, yieldTo []kir.Value) (*kir.Block, error) {
	if args == nil {
		args = blk.Args
	}
	nb, outer := e.enter(args)
	defer e.leave(outer)
	for _, op := range blk.Ops {
		if err := e.op(op, yieldTo); err != nil {
			return nil, err
		}
	}
	return nb, nil
}

// words returns the type of the words of a value of type t.
func words(t kir.Type) kir.Type { return kir.Type{Elem: kir.I32, Lanes: t.Lanes} }

// newPair allocates the words of an emulated value of type t.
func (e *emulator) newPair(t kir.Type) pair {
	w := words(t)
	return pair{e.b.NewValue(w), e.b.NewValue(w)}
}

// expand returns the values standing for v in a list of operands or
// block arguments of slot target: its words when target is data.
func (e *emulator) expand(v, target kir.Value) []kir.Value {
	if e.cls.isData(target) {
		p := e.asPair(v)
		return []kir.Value{p.lo, p.hi}
	}
	return []kir.Value{v}
}

func (e *emulator) op(op *kir.Op, yieldTo []kir.Value) error {
	e.rename(op)
	for _, j := range sinkArgs(op) {
		if e.cls.isData(op.Args[j]) {
			op.Args[j] = e.asIndex(op.Args[j])
		}
	}
	switch op.Kind {
	case kir.For:
		return e.forOp(op)
	case kir.If:
		return e.ifOp(op)
	case kir.Yield:
		var args []kir.Value
		for i, a := range op.Args {
			if i < len(yieldTo) {
				args = append(args, e.expand(a, yieldTo[i])...)
			} else {
				args = append(args, a)
			}
		}
		op.Args = args
		e.b.Append(op)
		return nil
	}
	if !e.involved(op) {
		e.b.Append(op)
		return nil
	}
	return e.emulate(op)
}

// involved reports whether op touches i64 data or memory.
func (e *emulator) involved(op *kir.Op) bool {
	for _, r := range op.Results {
		if e.cls.isData(r) {
			return true
		}
	}
	for _, a := range op.Args {
		if e.cls.isData(a) {
			return true
		}
	}
	switch op.Kind {
	case kir.Load, kir.LoadStrided, kir.Store, kir.StoreStrided:
		return e.mem[op.Binding]
	case kir.LoadShared, kir.StoreShared:
		return e.shared[op.Binding]
	case kir.Contract, kir.DWConv:
		for _, b := range op.Bindings {
			if _, sh, ok := e.k.TileMem(b); ok && (sh < 0 && e.mem[b] || sh >= 0 && e.shared[sh]) {
				return true
			}
		}
	}
	return false
}

func (e *emulator) forOp(op *kir.Op) error {
	body := op.Regions[0]
	inits := op.Args[3:]
	args := []kir.Value{op.Args[0], op.Args[1], op.Args[2]}
	bargs := []kir.Value{body.Args[0]}
	var results []kir.Value
	for i, r := range op.Results {
		a := body.Args[1+i]
		args = append(args, e.expand(inits[i], a)...)
		if e.cls.isData(a) {
			t := e.k.Types[a]
			pa, pr := e.newPair(t), e.newPair(t)
			e.pairs[a], e.pairs[r] = pa, pr
			bargs = append(bargs, pa.lo, pa.hi)
			results = append(results, pr.lo, pr.hi)
		} else {
			bargs = append(bargs, a)
			results = append(results, r)
		}
	}
	nb, err := e.block(body, bargs, body.Args[1:])
	if err != nil {
		return err
	}
	op.Args, op.Results, op.Regions[0] = args, results, nb
	e.b.Append(op)
	return nil
}

func (e *emulator) ifOp(op *kir.Op) error {
	var results []kir.Value
	for _, r := range op.Results {
		if e.cls.isData(r) {
			p := e.newPair(e.k.Types[r])
			e.pairs[r] = p
			results = append(results, p.lo, p.hi)
		} else {
			results = append(results, r)
		}
	}
	for i, r := range op.Regions {
		if len(r.Ops) == 0 {
			continue
		}
		nb, err := e.block(r, nil, op.Results)
		if err != nil {
			return err
		}
		op.Regions[i] = nb
	}
	op.Results = results
	e.b.Append(op)
	return nil
}

// asPair returns v as words: its pair when it is data, else the index v
// (i64 or i32) converted.
func (e *emulator) asPair(v kir.Value) pair {
	if p, ok := e.pairs[v]; ok {
		return p
	}
	key := memoKey{what: memoPair, v: v}
	if w, ok := e.memo[key]; ok {
		return pair{w, e.memo[memoKey{what: memoPair, v: v, x: 1}]}
	}
	t := e.k.Types[v]
	wt := words(t)
	var p pair
	switch x, ok := e.constOf(v); {
	case ok:
		if t.Elem.Bits() < 64 {
			x = int64(uint64(x)<<(64-t.Elem.Bits())) >> (64 - t.Elem.Bits())
		}
		p = pair{e.cint(wt, x), e.cint(wt, x>>32)}
	case t.Elem == kir.I64:
		p.lo = e.b.Emit(kir.TruncI, wt, v)
		p.hi = e.b.Emit(kir.TruncI, wt, e.b.Bin(kir.ShrU, v, e.cint(t, 32)))
	default: // an i32 index
		p = pair{v, e.b.Bin(kir.ShrS, v, e.cint(wt, 31))}
	}
	e.remember(key, p.lo)
	e.remember(memoKey{what: memoPair, v: v, x: 1}, p.hi)
	return p
}

// asIndex returns the data v as an index of the kernel's index type:
// exactly when that is i64, with saturation to the int32 range when it
// is i32.
func (e *emulator) asIndex(v kir.Value) kir.Value {
	key := memoKey{what: memoIndex, v: v}
	if w, ok := e.memo[key]; ok {
		return w
	}
	t := e.k.Types[v]
	it := kir.Type{Elem: e.index, Lanes: t.Lanes}
	if d := e.def[v]; d != nil && d.Kind == kir.ExtS && e.index == kir.I64 {
		// The source of a sign extension, extended to i64 itself.
		return e.remember(key, e.b.Emit(kir.ExtS, it, d.Args[0]))
	}
	p := e.asPair(v)
	var r kir.Value
	if e.index == kir.I64 {
		lo := e.b.Emit(kir.ExtU, it, p.lo)
		hi := e.b.Emit(kir.ExtU, it, p.hi)
		r = e.b.Bin(kir.Or, lo, e.b.Bin(kir.Shl, hi, e.cint(it, 32)))
	} else {
		fits := e.b.Cmp(kir.CmpI, kir.PredEQ, p.hi, e.b.Bin(kir.ShrS, p.lo, e.cint(it, 31)))
		neg := e.b.Cmp(kir.CmpI, kir.PredSLT, p.hi, e.cint(it, 0))
		r = e.b.Select(fits, p.lo, e.b.Select(neg, e.cint(it, -1<<31), e.cint(it, 1<<31-1)))
	}
	return e.remember(key, r)
}

// emulate replaces op, which touches i64 data or memory.
func (e *emulator) emulate(op *kir.Op) error {
	k := op.Kind
	var rt kir.Type
	if len(op.Results) == 1 {
		rt = e.k.Types[op.Results[0]]
	}
	setPair := func(p pair) { e.pairs[op.Results[0]] = p }
	setValue := func(v kir.Value) { e.sub[op.Results[0]] = v }
	arg := func(i int) pair { return e.asPair(op.Args[i]) }
	switch {
	case k == kir.ConstInt:
		w := words(rt)
		setPair(pair{e.cint(w, op.Imm), e.cint(w, op.Imm>>32)})
	case k == kir.PushConstant:
		// i64 data (NarrowIndices reads push constants that flow into
		// data this way): both words, as a vector<2xi32>.
		v := e.b.EmitImm(kir.PushConstant, kir.V(kir.I32, 2), op.Imm)
		setPair(pair{e.b.EmitImm(kir.Extract, kir.S(kir.I32), 0, v), e.b.EmitImm(kir.Extract, kir.S(kir.I32), 1, v)})
	case k == kir.Add || k == kir.Sub || k == kir.Mul || kir.IsIntBinary(k):
		setPair(e.binary(k, arg(0), arg(1)))
	case kir.IsIntUnary(k):
		setPair(e.unary(k, arg(0)))
	case k == kir.Select:
		setPair(e.selp(op.Args[0], arg(1), arg(2)))
	case k == kir.CmpI:
		setValue(e.cmp(kir.Pred(op.Imm), arg(0), arg(1)))
	case k == kir.ExtS || k == kir.ExtU:
		setPair(e.extend(k, op.Args[0]))
	case k == kir.TruncI:
		lo := arg(0).lo
		if rt.Elem != kir.I32 {
			lo = e.b.Emit(kir.TruncI, rt, lo)
		}
		setValue(lo)
	case k == kir.SIToFP || k == kir.UIToFP:
		setValue(e.toFloat(arg(0), k == kir.SIToFP, rt))
	case k == kir.FPToSI || k == kir.FPToUI:
		setPair(e.fromFloat(op.Args[0], k == kir.FPToSI))
	case k == kir.Broadcast:
		x, w := arg(0), words(rt)
		setPair(pair{e.b.Emit(kir.Broadcast, w, x.lo), e.b.Emit(kir.Broadcast, w, x.hi)})
	case k == kir.Extract:
		x, w := arg(0), words(rt)
		setPair(pair{e.b.EmitImm(kir.Extract, w, op.Imm, x.lo), e.b.EmitImm(kir.Extract, w, op.Imm, x.hi)})
	case k == kir.Insert:
		x, y, w := arg(0), arg(1), words(rt)
		setPair(pair{e.b.EmitImm(kir.Insert, w, op.Imm, x.lo, y.lo), e.b.EmitImm(kir.Insert, w, op.Imm, x.hi, y.hi)})
	case k == kir.Reduce:
		setPair(e.reduce(kir.ReduceKind(op.Imm), arg(0), e.k.Types[op.Args[0]].Width()))
	case k == kir.SubgroupShuffle:
		x, w := arg(0), words(rt)
		setPair(pair{e.b.Emit(kir.SubgroupShuffle, w, x.lo, op.Args[1]), e.b.Emit(kir.SubgroupShuffle, w, x.hi, op.Args[1])})
	case k == kir.SubgroupReduce:
		if kir.ReduceKind(op.Imm) == kir.ReduceMul {
			return int64Error(e.k, op, "a subgroup product of i64 values")
		}
		setPair(e.subgroupReduce(kir.ReduceKind(op.Imm), arg(0)))
	case k == kir.Load || k == kir.LoadStrided || k == kir.LoadShared:
		setPair(e.load(op, rt))
	case k == kir.Store || k == kir.StoreStrided || k == kir.StoreShared:
		e.store(op)
	case k == kir.Bitcast:
		return int64Error(e.k, op, "a bitcast between i64 and f64")
	case k == kir.Contract || k == kir.DWConv:
		return int64Error(e.k, op, "a tile op on i64 memory")
	default:
		return int64Error(e.k, op, "an op on i64 values")
	}
	return nil
}

// extend translates ExtS and ExtU of x to i64.
func (e *emulator) extend(k kir.Kind, x kir.Value) pair {
	t := e.k.Types[x]
	w := words(t)
	lo := x
	if t.Elem != kir.I32 {
		lo = e.b.Emit(k, w, x)
	}
	if k == kir.ExtS {
		return pair{lo, e.b.Bin(kir.ShrS, lo, e.cint(w, 31))}
	}
	return pair{lo, e.cint(w, 0)}
}

// Memory: an i64 element is two i32 words, low first.

// double returns 2·off for an index offset, or the most negative index
// (out of bounds, as the original offset is) when that overflows.
func (e *emulator) double(off kir.Value) kir.Value {
	it := kir.S(e.index)
	bits := uint(e.index.Bits())
	limit, bad := int64(1)<<(bits-2), int64(-1)<<(bits-1)
	if x, ok := e.constOf(off); ok && e.k.Types[off].Elem == e.index {
		if x >= 0 && x < limit {
			return e.cint(it, 2*x)
		}
		return e.cint(it, bad)
	}
	ok := e.b.Cmp(kir.CmpI, kir.PredULT, off, e.cint(it, limit))
	return e.b.Select(ok, e.b.Bin(kir.Add, off, off), e.cint(it, bad))
}

// doubleStride returns 2·stride, or the largest index (making an access
// of two or more lanes out of bounds, as the original is) when that
// overflows.
func (e *emulator) doubleStride(s kir.Value) kir.Value {
	it := kir.S(e.index)
	bits := uint(e.index.Bits())
	half, most := int64(1)<<(bits-3), int64(uint64(1)<<(bits-1)-1)
	if x, ok := e.constOf(s); ok && e.k.Types[s].Elem == e.index {
		if x >= -half && x < half {
			return e.cint(it, 2*x)
		}
		return e.cint(it, most)
	}
	ok := e.b.Cmp(kir.CmpI, kir.PredULT, e.b.Bin(kir.Add, s, e.cint(it, half)), e.cint(it, 2*half))
	return e.b.Select(ok, e.b.Bin(kir.Add, s, s), e.cint(it, most))
}

// load translates a load of i64 elements: contiguous words, split into
// low and high words, or two strided loads.
func (e *emulator) load(op *kir.Op, rt kir.Type) pair {
	n := rt.Width()
	off := e.double(op.Args[0])
	w := words(rt)
	if op.Kind == kir.LoadStrided {
		s := e.doubleStride(op.Args[1])
		lo := e.b.LoadStrided(op.Binding, w, off, s)
		hi := e.b.LoadStrided(op.Binding, w, e.b.Bin(kir.Add, off, e.cint(kir.S(e.index), 1)), s)
		return pair{lo, hi}
	}
	all := e.b.NewValue(kir.V(kir.I32, 2*n))
	e.b.Append(&kir.Op{Kind: op.Kind, Results: []kir.Value{all}, Args: []kir.Value{off}, Binding: op.Binding})
	lane := func(i int) kir.Value { return e.b.EmitImm(kir.Extract, kir.S(kir.I32), int64(i), all) }
	if !rt.IsVector() {
		return pair{lane(0), lane(1)}
	}
	var p pair
	for j, dst := range []*kir.Value{&p.lo, &p.hi} {
		*dst = e.b.Emit(kir.Broadcast, w, lane(j))
		for i := 1; i < n; i++ {
			*dst = e.b.EmitImm(kir.Insert, w, int64(i), *dst, lane(2*i+j))
		}
	}
	return p
}

// store translates a store of i64 elements.
func (e *emulator) store(op *kir.Op) {
	val := op.Args[len(op.Args)-1]
	t := e.k.Types[val]
	n := t.Width()
	p := e.asPair(val)
	off := e.double(op.Args[0])
	if op.Kind == kir.StoreStrided {
		s := e.doubleStride(op.Args[1])
		e.b.StoreStrided(op.Binding, off, s, p.lo)
		e.b.StoreStrided(op.Binding, e.b.Bin(kir.Add, off, e.cint(kir.S(e.index), 1)), s, p.hi)
		return
	}
	wt := kir.V(kir.I32, 2*n)
	lane := func(x kir.Value, i int) kir.Value {
		if !t.IsVector() {
			return x
		}
		return e.b.EmitImm(kir.Extract, kir.S(kir.I32), int64(i), x)
	}
	all := e.b.Emit(kir.Broadcast, wt, lane(p.lo, 0))
	for i := 0; i < n; i++ {
		if i > 0 {
			all = e.b.EmitImm(kir.Insert, wt, int64(2*i), all, lane(p.lo, i))
		}
		all = e.b.EmitImm(kir.Insert, wt, int64(2*i+1), all, lane(p.hi, i))
	}
	e.b.Append(&kir.Op{Kind: op.Kind, Args: []kir.Value{off, all}, Binding: op.Binding})
}
