package gpu

import (
	"math/bits"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/internal/half"
	"github.com/gree-ml/gree/go/status"
)

// Targets without 8- or 16-bit types (vp_android_baseline_2022, IREE's
// default Vulkan target, has only "Shader") get kernels that compute with
// 32-bit types only, exactly as the original kernel computes (NarrowTypes):
//
//   - i8 and i16 values (when the target lacks Int8 or 8-bit storage,
//     Int16 or 16-bit storage) are i32 values holding the narrow value
//     sign-extended. Ops whose i32 result can leave the narrow range (add,
//     sub, mul, the divisions, shl, shru, absi, unsigned remainders) are
//     followed by a sign extension from the narrow width (shl and shrs by
//     the width), which wraps as the narrow op does; unsigned ops
//     zero-extend their operands first, and shift amounts are read as the
//     narrow type's unsigned value, so that an amount of at least the
//     narrow width gives what kir defines (0, or the sign fill). Bitwise
//     ops, signed and unsigned comparisons, min and max work on the
//     sign-extended form as they are.
//   - f16 and bf16 values (when the target lacks Float16 or 16-bit
//     storage; bf16 when it lacks 16-bit storage) are f32 values holding
//     the narrow value exactly. kir defines f16 and bf16 arithmetic as f32
//     arithmetic rounded to the narrow type, so each op runs in f32 and
//     its result is rounded to the nearest narrow value, ties to even, by
//     integer operations on the f32 bits (quantizeF16, quantizeBF16:
//     overflow to infinity, the narrow type's subnormals, NaN kept a NaN);
//     ops whose results are exact (negf, absf, min, max, copysign, floor,
//     ceil, round, trunc) are not rounded. truncf from f32 is that
//     rounding; from f64 it rounds to f32 to odd first, which makes the
//     two roundings one. extf to f32 is the value itself; bitcasts to and
//     from 16-bit integers convert between the value and its bit pattern.
//     Reductions that round (add, mul) combine lane by lane in order,
//     rounding each step, as kir does; a subgroup one gathers the lanes
//     with shuffles.
//   - Bindings of those types, and i1 bindings when the target lacks 8-bit
//     storage, are packed: the binding becomes one of i32 words over the
//     same bytes (its last word partial when the byte size is not a
//     multiple of 4, which kir, vmvx and the Vulkan driver let kernels
//     address: see kir's package documentation). A load reads the words
//     its elements lie in and extracts them; a store of elements that do
//     not fill a whole word clears and sets their bits with AtomicRMW and
//     and or, so that threads storing neighbouring elements of one word
//     do not race; a vector store that starts at a word boundary stores
//     its whole words plainly. Whether an offset is word-aligned is known
//     statically (constants, multiples, loop variables), or checked at
//     run time with a branch to the aligned path. Bounds are checked per
//     word.
//   - Shared allocations of those types hold one i32 or f32 per element.
//   - Subgroup operations on them run on the i32 and f32 values.
//
// i1 values stay i1 (a SPIR-V bool needs no capability).

// NarrowTypes rewrites k so that it uses no i8, i16, f16 or bf16 value,
// binding or shared allocation that target t cannot hold (see above). It
// is a no-op for kernels and targets that need none of it. Tile ops
// (Contract, DWConv) on a packed operand are a FAILED_PRECONDITION error,
// as is workgroup memory that outgrows the target once widened.
func NarrowTypes(k *kir.Kernel, t *Target) error {
	e := newEmulation(k, t)
	if !e.needed() {
		return nil
	}
	if err := e.checkTileOps(k.Body); err != nil {
		return err
	}
	var bytes int64
	for i, s := range k.Shared {
		if e.emu[s.Elem] {
			k.Shared[i].Elem = e.repr(s.Elem)
		}
		bytes += k.Shared[i].Count * int64(k.Shared[i].Elem.ByteSize())
	}
	if t.MaxSharedBytes > 0 && bytes > int64(t.MaxSharedBytes) {
		return status.Errorf(status.FailedPrecondition, "gpu: %s needs %d bytes of workgroup memory once its 8- and 16-bit elements are widened to 32 bits; %s has %d", k.Name, bytes, t.Name, t.MaxSharedBytes)
	}
	for i := range k.Bindings {
		if e.packed[i] {
			k.Bindings[i].Elem = kir.I32
		}
	}
	for v, ty := range k.Types {
		if e.emu[ty.Elem] {
			k.Types[v] = e.wide(ty)
		}
	}
	e.collectDefs(k.Body)
	e.block(k.Body)
	return nil
}

// emulation is the state of NarrowTypes on one kernel.
type emulation struct {
	k      *kir.Kernel
	emu    [kir.F64 + 1]bool // value types held in 32 bits
	packed []bool            // by binding: held in i32 words
	elems  []kir.Scalar      // by binding: the original element type
	types  []kir.Type        // the original type of each original value
	sub    map[kir.Value]kir.Value
	defs   map[kir.Value]*kir.Op // defining op of each original value (For: its induction variable)
	aligns map[kir.Value]int64
	consts map[constKey]kir.Value
}

func newEmulation(k *kir.Kernel, t *Target) *emulation {
	e := &emulation{k: k, sub: map[kir.Value]kir.Value{}, defs: map[kir.Value]*kir.Op{}, aligns: map[kir.Value]int64{}, consts: map[constKey]kir.Value{}}
	storage8, storage16 := t.Has("StorageBuffer8BitAccess"), t.Has("StorageBuffer16BitAccess")
	e.emu[kir.I8] = !t.Has("Int8") || !storage8
	e.emu[kir.I16] = !t.Has("Int16") || !storage16
	e.emu[kir.F16] = !t.Has("Float16") || !storage16
	e.emu[kir.BF16] = !storage16
	e.types = append([]kir.Type(nil), k.Types...)
	for _, b := range k.Bindings {
		e.elems = append(e.elems, b.Elem)
		e.packed = append(e.packed, e.emu[b.Elem] || b.Elem == kir.I1 && !storage8)
	}
	return e
}

// needed reports whether k has anything to rewrite.
func (e *emulation) needed() bool {
	for _, p := range e.packed {
		if p {
			return true
		}
	}
	for _, s := range e.k.Shared {
		if e.emu[s.Elem] {
			return true
		}
	}
	for _, t := range e.k.Types {
		if e.emu[t.Elem] {
			return true
		}
	}
	return false
}

// repr returns the 32-bit type that holds values of the emulated type s.
func (e *emulation) repr(s kir.Scalar) kir.Scalar {
	if s.IsFloat() {
		return kir.F32
	}
	return kir.I32
}

// wide returns t with an emulated element type replaced by its 32-bit one.
func (e *emulation) wide(t kir.Type) kir.Type {
	if e.emu[t.Elem] {
		return laneType(t, e.repr(t.Elem))
	}
	return t
}

// laneType returns the type of t's lanes of element type s.
func laneType(t kir.Type, s kir.Scalar) kir.Type { return kir.Type{Elem: s, Lanes: t.Lanes} }

// orig returns the original type of v (new values have their own).
func (e *emulation) orig(v kir.Value) kir.Type {
	if int(v) < len(e.types) {
		return e.types[v]
	}
	return e.k.Types[v]
}

// checkTileOps rejects tile ops whose memory operands change.
func (e *emulation) checkTileOps(blk *kir.Block) error {
	for _, op := range blk.Ops {
		if op.Kind == kir.Contract || op.Kind == kir.DWConv {
			ops := op.Bindings[:]
			if op.Kind == kir.DWConv && op.Imm&kir.DWConvBias != 0 {
				ops = append(ops, op.Binding)
			}
			for _, b := range ops {
				elem, shared, ok := e.k.TileMem(b)
				if ok && (shared < 0 && e.packed[b] || shared >= 0 && e.emu[elem]) {
					return status.Errorf(status.FailedPrecondition, "gpu: %s has a %v tile op on %s elements, which the target cannot store and GPU legalization does not unpack", e.k.Name, op.Kind, elem)
				}
			}
		}
		for _, r := range op.Regions {
			if err := e.checkTileOps(r); err != nil {
				return err
			}
		}
	}
	return nil
}

// block rewrites the ops of blk in place, nested blocks first.
func (e *emulation) block(blk *kir.Block) {
	ops := blk.Ops
	blk.Ops = nil
	b := em{&kir.Builder{K: e.k, Block: blk}, e.consts}
	for _, op := range ops {
		at := make([]kir.Type, len(op.Args))
		for i, a := range op.Args {
			at[i] = e.orig(a)
			if r, ok := e.sub[a]; ok {
				op.Args[i] = r
			}
		}
		for _, r := range op.Regions {
			e.block(r)
		}
		e.op(b, op, at)
	}
}

// then appends op with a fresh result and records f of it as the value
// of op's result.
func (e *emulation) then(b em, op *kir.Op, f func(kir.Value) kir.Value) {
	r := op.Results[0]
	tmp := b.NewValue(e.k.Types[r])
	op.Results[0] = tmp
	b.Append(op)
	e.sub[r] = f(tmp)
}

// op rewrites one op whose operands' original types are at.
func (e *emulation) op(b em, op *kir.Op, at []kir.Type) {
	k := op.Kind
	switch k {
	case kir.Load, kir.LoadStrided:
		if e.packed[op.Binding] {
			e.load(b, op)
			return
		}
	case kir.Store, kir.StoreStrided:
		if e.packed[op.Binding] {
			e.store(b, op)
			return
		}
	}
	var rt kir.Type
	if len(op.Results) == 1 {
		rt = e.orig(op.Results[0])
	}
	touched := e.emu[rt.Elem] && len(op.Results) == 1
	for _, t := range at {
		touched = touched || e.emu[t.Elem]
	}
	if !touched || k == kir.For || k == kir.If || k == kir.Yield {
		b.Append(op)
		return
	}
	s := rt.Elem
	switch {
	case k == kir.ConstInt:
		op.Imm = sextImm(op.Imm, s.Bits())
		b.Append(op)
	case k == kir.ConstFloat:
		if s == kir.F16 {
			op.F = half.F16ToFloat64(half.F16(op.F))
		} else {
			op.F = half.BF16ToFloat64(half.BF16(op.F))
		}
		b.Append(op)
	case k == kir.Add || k == kir.Sub || k == kir.Mul || kir.IsIntBinary(k) || kir.IsFloatBinary(k):
		if s.IsInt() {
			e.intBinary(b, op, s.Bits())
		} else {
			e.floatArith(b, op, s)
		}
	case kir.IsUnary(k):
		if s.IsInt() {
			e.intUnary(b, op, s.Bits())
		} else {
			e.floatArith(b, op, s)
		}
	case k == kir.FMA:
		e.floatArith(b, op, s)
	case kir.IsCast(k):
		r := op.Results[0]
		e.sub[r] = e.cast(b, k, at[0].Elem, s, op.Args[0], rt)
	case k == kir.LaneIota:
		if s.IsInt() && rt.Width() > 1<<(s.Bits()-1) {
			e.then(b, op, func(v kir.Value) kir.Value { return b.sext(v, s.Bits()) })
		} else {
			b.Append(op)
		}
	case k == kir.Reduce || k == kir.SubgroupReduce:
		e.reduce(b, op, kir.ReduceKind(op.Imm), s)
	default:
		// Select, comparisons, class tests, vector ops, shared memory,
		// shuffles: the same op on the 32-bit values.
		b.Append(op)
	}
}

// sextImm sign-extends the low n bits of x.
func sextImm(x int64, n int) int64 { return x << (64 - n) >> (64 - n) }

// intBinary rewrites an integer binary op on n-bit values held in i32.
func (e *emulation) intBinary(b em, op *kir.Op, n int) {
	x, y := op.Args[0], op.Args[1]
	wrap := func(v kir.Value) kir.Value { return b.sext(v, n) }
	switch op.Kind {
	case kir.Add, kir.Sub, kir.Mul, kir.DivS, kir.FloorDivS, kir.CeilDivS:
		e.then(b, op, wrap)
	case kir.DivU, kir.RemU, kir.CeilDivU, kir.ShrU:
		op.Args[0], op.Args[1] = b.zext(x, n), b.zext(y, n)
		e.then(b, op, wrap)
	case kir.Shl:
		op.Args[1] = b.zext(y, n)
		e.then(b, op, wrap)
	case kir.ShrS:
		op.Args[1] = b.zext(y, n)
		b.Append(op)
	default: // RemS, MinS, MaxS, MinU, MaxU, And, Or, Xor
		b.Append(op)
	}
}

// intUnary rewrites an integer unary op on n-bit values held in i32.
func (e *emulation) intUnary(b em, op *kir.Op, n int) {
	x := op.Args[0]
	switch op.Kind {
	case kir.AbsI:
		e.then(b, op, func(v kir.Value) kir.Value { return b.sext(v, n) })
	case kir.CtLz:
		op.Args[0] = b.zext(x, n)
		e.then(b, op, func(v kir.Value) kir.Value { return b.binC(kir.Sub, v, int64(32-n)) })
	case kir.CtTz:
		op.Args[0] = b.binC(kir.Or, x, 1<<n)
		b.Append(op)
	case kir.CtPop:
		op.Args[0] = b.zext(x, n)
		b.Append(op)
	}
}

// exactFloat reports the float ops whose result is one of their operands
// or an integer-valued rounding of it, exact in the operand's type.
func exactFloat(k kir.Kind) bool {
	switch k {
	case kir.MinF, kir.MaxF, kir.MinNumF, kir.MaxNumF, kir.CopySign, kir.NegF, kir.AbsF,
		kir.Floor, kir.Ceil, kir.Round, kir.RoundEven, kir.Trunc:
		return true
	}
	return false
}

// floatArith rewrites a float op on f16 or bf16 values held in f32: the
// f32 op, then the rounding to s unless the result is exact.
func (e *emulation) floatArith(b em, op *kir.Op, s kir.Scalar) {
	if exactFloat(op.Kind) {
		b.Append(op)
		return
	}
	e.then(b, op, func(v kir.Value) kir.Value { return b.quantize(v, s) })
}

// reduce rewrites Reduce and SubgroupReduce of kind r over s.
func (e *emulation) reduce(b em, op *kir.Op, r kir.ReduceKind, s kir.Scalar) {
	switch {
	case r != kir.ReduceAdd && r != kir.ReduceMul:
		b.Append(op) // exact on the 32-bit values
	case s.IsInt():
		e.then(b, op, func(v kir.Value) kir.Value { return b.sext(v, s.Bits()) })
	case op.Kind == kir.Reduce:
		// Lane by lane, rounding each step.
		x := op.Args[0]
		kind := kir.Add
		if r == kir.ReduceMul {
			kind = kir.Mul
		}
		acc := b.EmitImm(kir.Extract, kir.S(kir.F32), 0, x)
		for i := 1; i < e.k.Types[x].Width(); i++ {
			acc = b.quantize(b.Bin(kind, acc, b.EmitImm(kir.Extract, kir.S(kir.F32), int64(i), x)), s)
		}
		e.sub[op.Results[0]] = acc
	default:
		e.sub[op.Results[0]] = e.subgroupSum(b, op.Args[0], r, s)
	}
}

// subgroupSum combines x over the subgroup in lane order, lane 0 first,
// rounding to s each step, as kir's SubgroupReduce does: the subgroup's
// thread count from an i32 subgroup sum of ones, then every lane of a
// full subgroup shuffled in and combined while below that count.
func (e *emulation) subgroupSum(b em, x kir.Value, r kir.ReduceKind, s kir.Scalar) kir.Value {
	kind := kir.Add
	if r == kir.ReduceMul {
		kind = kir.Mul
	}
	size := e.k.SubgroupSize
	if size <= 0 {
		size = kir.MaxSubgroupSize
	}
	i32 := kir.S(kir.I32)
	count := b.EmitImm(kir.SubgroupReduce, i32, int64(kir.ReduceAdd), b.Int(i32, 1))
	shuffle := func(lane int) kir.Value {
		return b.Emit(kir.SubgroupShuffle, kir.S(kir.F32), x, b.Idx(int64(lane)))
	}
	acc := shuffle(0)
	for lane := 1; lane < size; lane++ {
		y := b.quantize(b.Bin(kind, acc, shuffle(lane)), s)
		in := b.Cmp(kir.CmpI, kir.PredSLT, b.Int(i32, int64(lane)), count)
		acc = b.Select(in, y, acc)
	}
	return acc
}

// cast converts x, of original type from (held as its 32-bit form when
// emulated), to original type to; rt is the original result type.
func (e *emulation) cast(b em, k kir.Kind, from, to kir.Scalar, x kir.Value, rt kir.Type) kir.Value {
	t := e.k.Types[x]
	i32, f32 := laneType(t, kir.I32), laneType(t, kir.F32)
	out := laneType(t, to)
	if e.emu[to] {
		out = laneType(t, e.repr(to))
	}
	// asI32 gives an integer x (of from, not emulated) as i32, extended as
	// signed says.
	asI32 := func(x kir.Value, signed bool) kir.Value {
		switch {
		case from == kir.I32:
			return x
		case from.Bits() > 32:
			return b.Emit(kir.TruncI, i32, x)
		case signed:
			return b.Emit(kir.ExtS, i32, x)
		}
		return b.Emit(kir.ExtU, i32, x)
	}
	// fromI32 gives the i32 v, already in to's range (sign-extended), as a
	// value of to.
	fromI32 := func(v kir.Value) kir.Value {
		switch {
		case e.emu[to] || to == kir.I32:
			return v
		case to.Bits() > 32:
			if k == kir.ExtU {
				return b.Emit(kir.ExtU, out, v)
			}
			return b.Emit(kir.ExtS, out, v)
		}
		return b.Emit(kir.TruncI, out, v)
	}
	switch k {
	case kir.ExtS:
		if e.emu[from] {
			return fromI32(x)
		}
		return asI32(x, true)
	case kir.ExtU:
		if e.emu[from] {
			return fromI32(b.zext(x, from.Bits()))
		}
		return asI32(x, false)
	case kir.TruncI:
		v := x
		if !e.emu[from] {
			v = asI32(x, true)
		}
		if e.emu[to] {
			return b.sext(v, to.Bits())
		}
		return b.Emit(kir.TruncI, out, v)
	case kir.SIToFP, kir.UIToFP:
		v := x
		if e.emu[from] && k == kir.UIToFP {
			v = b.zext(x, from.Bits())
		}
		if !e.emu[to] {
			return b.Emit(k, out, v)
		}
		return b.quantize(b.Emit(k, f32, v), to)
	case kir.FPToSI, kir.FPToUI:
		if !e.emu[to] {
			return b.Emit(k, out, x)
		}
		v := b.Emit(k, i32, x) // saturated to the i32 range
		n := to.Bits()
		if k == kir.FPToUI {
			return b.sext(b.Bin(kir.MinU, v, b.c(i32, 1<<n-1)), n)
		}
		v = b.Bin(kir.MaxS, v, b.c(i32, -1<<(n-1)))
		return b.Bin(kir.MinS, v, b.c(i32, 1<<(n-1)-1))
	case kir.FPExt: // from f16 or bf16 (held in f32)
		if to == kir.F32 {
			return x
		}
		return b.Emit(kir.FPExt, out, x)
	case kir.FPTrunc: // to f16 or bf16
		v := x
		if from == kir.F64 {
			v = b.roundToOdd32(x)
		}
		return b.quantize(v, to)
	}
	// Bitcast between 16-bit types (8-bit ones: i8 to i8).
	if from == to {
		return x
	}
	return e.fromBits16(b, to, e.toBits16(b, from, x), out)
}

// toBits16 returns the bit patterns of the 16-bit values x of type s in
// the low bits of i32 lanes (zero above).
func (e *emulation) toBits16(b em, s kir.Scalar, x kir.Value) kir.Value {
	t := e.k.Types[x]
	i32 := laneType(t, kir.I32)
	if !e.emu[s] {
		if s == kir.I16 {
			return b.Emit(kir.ExtU, i32, x)
		}
		x = b.Emit(kir.FPExt, laneType(t, kir.F32), x) // exact
	}
	switch s {
	case kir.I16:
		return b.zext(x, 16)
	case kir.F16:
		return b.f16Bits(x)
	}
	return b.binC(kir.ShrU, b.Emit(kir.Bitcast, i32, x), 16)
}

// fromBits16 returns values of type s (type out) from the bit patterns in
// the low 16 bits of the i32 lanes h.
func (e *emulation) fromBits16(b em, s kir.Scalar, h kir.Value, out kir.Type) kir.Value {
	var v kir.Value
	switch s {
	case kir.I16:
		if !e.emu[s] {
			return b.Emit(kir.TruncI, out, h)
		}
		return b.sext(h, 16)
	case kir.F16:
		v = b.f16Value(h)
	default:
		v = b.Emit(kir.Bitcast, laneType(b.K.Types[h], kir.F32), b.binC(kir.Shl, h, 16))
	}
	if !e.emu[s] {
		return b.Emit(kir.FPTrunc, out, v) // exact
	}
	return v
}

// collectDefs records the defining op of every value of blk and its
// nested blocks (a For's for its induction variable), for alignOf.
func (e *emulation) collectDefs(blk *kir.Block) {
	for _, op := range blk.Ops {
		for _, r := range op.Results {
			e.defs[r] = op
		}
		if op.Kind == kir.For && len(op.Regions) > 0 && len(op.Regions[0].Args) > 0 {
			e.defs[op.Regions[0].Args[0]] = op
		}
		for _, r := range op.Regions {
			e.collectDefs(r)
		}
	}
}

// maxAlign is the largest alignment alignOf tracks: a word of i8.
const maxAlign = 4

// alignOf returns a power of two (at most maxAlign) that the integer v is
// known to be a multiple of: from constants, sums, products, shifts and
// masks of them, and loop variables whose start and step are.
func (e *emulation) alignOf(v kir.Value) int64 {
	if a, ok := e.aligns[v]; ok {
		return a
	}
	e.aligns[v] = 1 // cycles (loop-carried values) are unknown
	a := int64(1)
	op := e.defs[v]
	constAlign := func(x int64) int64 {
		if x == 0 {
			return maxAlign
		}
		return min(maxAlign, int64(1)<<bits.TrailingZeros64(uint64(x)))
	}
	constOf := func(v kir.Value) (int64, bool) {
		if d := e.defs[v]; d != nil && d.Kind == kir.ConstInt {
			return d.Imm, true
		}
		return 0, false
	}
	switch {
	case op == nil:
	case op.Kind == kir.For:
		a = min(e.alignOf(op.Args[0]), e.alignOf(op.Args[2]))
	case op.Kind == kir.ConstInt:
		a = constAlign(op.Imm)
	case op.Kind == kir.Add || op.Kind == kir.Sub || op.Kind == kir.Select && len(op.Args) == 3:
		xs := op.Args
		if op.Kind == kir.Select {
			xs = xs[1:]
		}
		a = min(e.alignOf(xs[0]), e.alignOf(xs[1]))
	case op.Kind == kir.Mul:
		a = min(maxAlign, e.alignOf(op.Args[0])*e.alignOf(op.Args[1]))
	case op.Kind == kir.Shl:
		if c, ok := constOf(op.Args[1]); ok && c >= 0 && c < 8 {
			a = min(maxAlign, e.alignOf(op.Args[0])<<c)
		}
	case op.Kind == kir.And:
		a = max(e.alignOf(op.Args[0]), e.alignOf(op.Args[1]))
	case op.Kind == kir.ExtS || op.Kind == kir.ExtU || op.Kind == kir.TruncI && e.orig(v).Elem.Bits() >= 8:
		a = e.alignOf(op.Args[0])
	}
	e.aligns[v] = a
	return a
}
