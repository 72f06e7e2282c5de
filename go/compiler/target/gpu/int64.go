package gpu

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/status"
)

// Targets without the Int64 capability (vp_android_baseline_2022, IREE's
// default Vulkan target, has none) get kernels with no 64-bit integer
// type, computing what the original kernel computes:
//
//   - Index narrowing (NarrowIndices): i64 values that are indices —
//     derived only from constants that fit in 32 bits, push constants, the
//     id queries, LaneIota, For induction variables and arithmetic on such
//     values — are computed in i32. This assumes that every index value
//     lies in the int32 range, as it does on a target that cannot address
//     more than 2^31 elements of a buffer anyway: push constants used as
//     indices (sizes and offsets) are read as their low 32 bits, and index
//     arithmetic that would leave the range wraps where the i64 arithmetic
//     would not. Push constants that flow into i64 data are read whole.
//     Ops whose 32-bit result would differ on negative operands (unsigned
//     division and remainder, logical right shifts) are indices only when
//     their operands are known to be non-negative; ctlz, cttz, ctpop and
//     shifts left by amounts not known to be below 32 are data, and so is
//     an i64 constant that does not fit in 32 bits, so that what it
//     reaches is computed exactly. Where data reaches an index operand
//     (an offset, a stride, a loop bound, a shuffle lane), it is narrowed
//     with saturation: a value outside the int32 range becomes the int32
//     minimum or maximum, out of bounds of any buffer, so that an access
//     the i64 kernel reports as out of bounds still is; a loop bound that
//     is a constant outside the range is an error.
//   - Data emulation (EmulateInt64): every other i64 value (loaded from
//     i64 tensors, extended from narrower integers, converted from
//     floats, …) becomes a pair of i32 words, low and high, as 32-bit
//     compilers lower 64-bit integers: add and sub with carries, mul from
//     16-bit partial products, shifts by any amount, comparisons, min and
//     max, division and remainder (a 64-step shift-subtract loop, with a
//     32-bit fast path when every lane's operands fit in 32 bits), the
//     integer-float conversions (correctly rounded), vectors lane-wise,
//     reductions, subgroup operations (subgroup sums in 16-bit chunks)
//     and i64 bindings and shared allocations, which become i32 ones of
//     twice the count holding each element's low word first, as the bytes
//     of a little-endian i64 lie. What cannot be emulated (a bitcast
//     between i64 and f64, a subgroup product) is a FAILED_PRECONDITION
//     error.
//
// Kernels are built with kir.Index (i64) index arithmetic; kir accepts i32
// indices too (kir.IsIndexType: the results of PushConstant and the id
// queries, For bounds, offsets and strides, and vector<2xi32> push
// constants for both words), the SPIR-V emitter computes them in 32 bits,
// and vmvx widens them back (kir.WidenIndices).

// narrowIndexArithmetic makes LowerInt64 narrow index arithmetic to i32
// (NarrowIndices) before emulating i64 data; tests turn it off to check
// the emulation alone.
var narrowIndexArithmetic = true

// LowerInt64 rewrites k, legalized for target t, which lacks the Int64
// capability, so that it uses no i64 values: NarrowIndices, then
// EmulateInt64. An op that cannot be emulated
// is a FAILED_PRECONDITION error naming it and the target.
func LowerInt64(k *kir.Kernel, t *Target) error {
	index := kir.Index
	if narrowIndexArithmetic {
		if err := NarrowIndices(k); err != nil {
			return int64Advice(err, t)
		}
		index = kir.I32
	}
	return int64Advice(EmulateInt64(k, index), t)
}

// int64Advice annotates an error of the i64 lowering for target t.
func int64Advice(err error, t *Target) error {
	return status.Annotate(err, "target %s lacks 64-bit integers (the SPIR-V capability Int64); compile for a target with Int64 (e.g. --iree-vulkan-target=valhall or ampere) or with --iree-input-demote-i64-to-i32", t.Name)
}

// fits32 reports whether x is an int32.
func fits32(x int64) bool { return x == int64(int32(x)) }

// i64Classes sorts the i64 values of a kernel into indices and data (see
// LowerInt64's comment): an index is derived only from index sources by
// ops that compute the same low 32 bits on the 32-bit values, so it can
// be computed in i32; everything else is data.
type i64Classes struct {
	i64     []bool // the value's element type is i64
	data    []bool // an i64 value that is data
	nonneg  []bool // an index value known to be non-negative
	consts  map[kir.Value]int64
	changed bool
}

// classifyI64 classifies the i64 values of k: the greatest fixpoint of
// the rules in indexRule, loop-carried values and If results being
// indices when every value that flows into them is.
func classifyI64(k *kir.Kernel) *i64Classes {
	n := len(k.Types)
	c := &i64Classes{i64: make([]bool, n), data: make([]bool, n), nonneg: make([]bool, n), consts: map[kir.Value]int64{}}
	for v, t := range k.Types {
		if t.Elem == kir.I64 {
			c.i64[v], c.nonneg[v] = true, true
		}
	}
	for {
		c.changed = false
		c.block(k.Body)
		if !c.changed {
			return c
		}
	}
}

func (c *i64Classes) has(v kir.Value) bool { return v >= 0 && int(v) < len(c.i64) && c.i64[v] }

// isData reports an original i64 value that is data.
func (c *i64Classes) isData(v kir.Value) bool { return c.has(v) && c.data[v] }

// isIndex reports an original i64 value that is an index.
func (c *i64Classes) isIndex(v kir.Value) bool { return c.has(v) && !c.data[v] }

// idx reports that v is not i64 data (non-i64 values do not constrain).
func (c *i64Classes) idx(v kir.Value) bool { return !c.isData(v) }

// nn reports that v is known non-negative.
func (c *i64Classes) nn(v kir.Value) bool { return c.has(v) && c.nonneg[v] }

// set demotes v to data (index false) and clears its sign knowledge
// (nonneg false); values only ever move one way.
func (c *i64Classes) set(v kir.Value, index, nonneg bool) {
	if !c.has(v) {
		return
	}
	if !index && !c.data[v] {
		c.data[v] = true
		c.changed = true
	}
	if !nonneg && c.nonneg[v] {
		c.nonneg[v] = false
		c.changed = true
	}
}

// yieldOf returns the Yield ending blk, or nil.
func yieldOf(blk *kir.Block) *kir.Op {
	if n := len(blk.Ops); n > 0 && blk.Ops[n-1].Kind == kir.Yield {
		return blk.Ops[n-1]
	}
	return nil
}

func (c *i64Classes) block(blk *kir.Block) {
	for _, op := range blk.Ops {
		switch op.Kind {
		case kir.For:
			body := op.Regions[0]
			c.set(body.Args[0], true, c.nn(op.Args[0]))
			y := yieldOf(body)
			for i, r := range op.Results {
				a, in := body.Args[1+i], op.Args[3+i]
				idx := c.idx(in) && c.idx(a) && c.idx(r)
				nn := c.nn(in) && c.nn(a) && c.nn(r)
				if y != nil && i < len(y.Args) {
					idx, nn = idx && c.idx(y.Args[i]), nn && c.nn(y.Args[i])
				}
				c.set(a, idx, nn)
				c.set(r, idx, nn)
			}
			c.block(body)
		case kir.If:
			for _, r := range op.Regions {
				c.block(r)
			}
			for i, r := range op.Results {
				idx, nn := c.idx(r), c.nn(r)
				for _, reg := range op.Regions {
					if y := yieldOf(reg); y != nil && i < len(y.Args) {
						idx, nn = idx && c.idx(y.Args[i]), nn && c.nn(y.Args[i])
					}
				}
				c.set(r, idx, nn)
			}
		default:
			if op.Kind == kir.ConstInt && len(op.Results) == 1 {
				c.consts[op.Results[0]] = op.Imm
			}
			if len(op.Results) == 1 && c.has(op.Results[0]) {
				idx, nn := c.indexRule(op)
				c.set(op.Results[0], idx, nn)
			}
		}
	}
}

// indexRule says whether op's i64 result is an index given its operands'
// classes, and whether it is known to be non-negative.
func (c *i64Classes) indexRule(op *kir.Op) (index, nonneg bool) {
	a := op.Args
	all := func(f func(kir.Value) bool, vs []kir.Value) bool {
		for _, v := range vs {
			if c.has(v) && !f(v) {
				return false
			}
		}
		return true
	}
	some := func(vs []kir.Value) bool {
		for _, v := range vs {
			if c.nn(v) {
				return true
			}
		}
		return false
	}
	idx, nn := all(c.idx, a), all(c.nn, a)
	switch op.Kind {
	case kir.ConstInt:
		return fits32(op.Imm), op.Imm >= 0
	case kir.PushConstant:
		return true, false
	case kir.WorkgroupID, kir.WorkgroupCount, kir.ThreadID, kir.WorkgroupSize, kir.SubgroupSize, kir.LaneID, kir.LaneIota:
		return true, true
	case kir.Add, kir.Mul, kir.DivS, kir.RemS, kir.FloorDivS, kir.CeilDivS, kir.MinS, kir.MaxU, kir.Or, kir.Xor:
		return idx, nn
	case kir.Sub, kir.AbsI:
		return idx, false
	case kir.MaxS, kir.MinU, kir.And:
		return idx, some(a)
	case kir.DivU, kir.RemU, kir.CeilDivU:
		// The same as the signed ops on non-negative operands only.
		return idx && nn, nn
	case kir.ShrS:
		return idx, c.nn(a[0])
	case kir.ShrU:
		return idx && c.nn(a[0]), c.nn(a[0])
	case kir.Shl:
		// Shifts by 32 or more give 0 in 32 bits.
		s, ok := c.consts[a[1]]
		return idx && ok && s >= 0 && s < 32, false
	case kir.Select:
		return c.idx(a[1]) && c.idx(a[2]), c.nn(a[1]) && c.nn(a[2])
	case kir.Broadcast, kir.Extract, kir.Reduce, kir.SubgroupShuffle, kir.SubgroupReduce:
		return c.idx(a[0]), c.nn(a[0])
	case kir.Insert:
		return idx, nn
	}
	// Loads, extensions, conversions from floats, bitcasts, ctlz, cttz,
	// ctpop: data.
	return false, false
}

// sinkArgs returns the positions of op's operands that kir requires to be
// indices: offsets, strides, loop bounds, shuffle lanes and tile-op
// sizes.
func sinkArgs(op *kir.Op) []int {
	switch op.Kind {
	case kir.Load, kir.LoadShared, kir.Store, kir.StoreShared:
		return []int{0}
	case kir.LoadStrided, kir.StoreStrided:
		return []int{0, 1}
	case kir.SubgroupShuffle:
		return []int{1}
	case kir.For:
		return []int{0, 1, 2}
	case kir.Contract:
		return seq(12)
	case kir.DWConv:
		n := kir.DWConvArgs
		if op.Imm&kir.DWConvBias != 0 {
			n += 2
		}
		return seq(n)
	}
	return nil
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// memoKey names a value a rewriter made for reuse: a constant (of a type
// and value) or a conversion of a value.
type memoKey struct {
	what int
	v    kir.Value
	t    kir.Type
	x    int64
}

// Kinds of memoKey.
const (
	memoConst = iota
	memoFloat
	memoPair
	memoIndex
	memoExt
)

// rewriter rebuilds a kernel's blocks: b appends to the block being
// built, and memo reuses constants and conversions made in it or in the
// blocks around it.
type rewriter struct {
	k      *kir.Kernel
	b      *kir.Builder
	memo   map[memoKey]kir.Value
	scopes [][]memoKey
	sub    map[kir.Value]kir.Value // results replaced by other values
	def    map[kir.Value]*kir.Op   // the original defining ops
}

func newRewriter(k *kir.Kernel) rewriter {
	r := rewriter{k: k, memo: map[memoKey]kir.Value{}, sub: map[kir.Value]kir.Value{}, def: map[kir.Value]*kir.Op{}}
	var walk func(*kir.Block)
	walk = func(b *kir.Block) {
		for _, op := range b.Ops {
			for _, v := range op.Results {
				r.def[v] = op
			}
			for _, reg := range op.Regions {
				walk(reg)
			}
		}
	}
	walk(k.Body)
	return r
}

// enter starts building a new block with args; leave finishes it.
func (r *rewriter) enter(args []kir.Value) (*kir.Block, *kir.Builder) {
	nb := &kir.Block{Args: args}
	outer := r.b
	r.b = &kir.Builder{K: r.k, Block: nb}
	r.scopes = append(r.scopes, nil)
	return nb, outer
}

func (r *rewriter) leave(outer *kir.Builder) {
	for _, key := range r.scopes[len(r.scopes)-1] {
		delete(r.memo, key)
	}
	r.scopes = r.scopes[:len(r.scopes)-1]
	r.b = outer
}

func (r *rewriter) remember(key memoKey, v kir.Value) kir.Value {
	r.memo[key] = v
	r.scopes[len(r.scopes)-1] = append(r.scopes[len(r.scopes)-1], key)
	return v
}

// rename replaces op's operands that earlier rewrites replaced.
func (r *rewriter) rename(op *kir.Op) {
	for i, a := range op.Args {
		for {
			s, ok := r.sub[a]
			if !ok {
				break
			}
			a = s
		}
		op.Args[i] = a
	}
}

// cint returns the integer constant x of type t.
func (r *rewriter) cint(t kir.Type, x int64) kir.Value {
	t = kir.Type{Elem: t.Elem, Lanes: t.Width()}
	if t.Elem.Bits() < 64 {
		x = int64(uint64(x)<<(64-t.Elem.Bits())) >> (64 - t.Elem.Bits())
	}
	key := memoKey{what: memoConst, t: t, x: x}
	if v, ok := r.memo[key]; ok {
		return v
	}
	return r.remember(key, r.b.Int(t, x))
}

// cfloat returns the float constant x of type t.
func (r *rewriter) cfloat(t kir.Type, x float64) kir.Value {
	t = kir.Type{Elem: t.Elem, Lanes: t.Width()}
	key := memoKey{what: memoFloat, t: t, x: int64(math.Float64bits(x))}
	if v, ok := r.memo[key]; ok {
		return v
	}
	return r.remember(key, r.b.Float(t, x))
}

// constOf returns v's value when an integer constant defines it.
func (r *rewriter) constOf(v kir.Value) (int64, bool) {
	if d := r.def[v]; d != nil && d.Kind == kir.ConstInt {
		return d.Imm, true
	}
	return 0, false
}

// int64Error is the FAILED_PRECONDITION error about an i64 op that
// cannot be lowered to 32-bit integers.
func int64Error(k *kir.Kernel, op *kir.Op, what string) error {
	return status.Errorf(status.FailedPrecondition, "gpu: kernel %s: %s (%s) cannot be lowered to 32-bit integers", k.Name, what, op.Kind)
}
