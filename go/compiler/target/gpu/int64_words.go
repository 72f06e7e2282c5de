package gpu

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// 64-bit integer arithmetic on pairs of 32-bit words, with kir's
// semantics (wrapping, division by zero giving 0, shift amounts read as
// unsigned with large ones giving 0 or the sign fill). Words are i32 or
// vectors of i32, lane-wise; kir's i32 shifts by 32 or more give 0 (or
// the sign fill), which the shift sequences rely on.

// w applies the i32 binary op k.
func (e *emulator) w(k kir.Kind, a, b kir.Value) kir.Value { return e.b.Bin(k, a, b) }

// c returns the i32 constant x with the lanes of like.
func (e *emulator) k32(like kir.Value, x int64) kir.Value { return e.cint(words(e.k.Types[like]), x) }

// cmpw compares words.
func (e *emulator) cmpw(p kir.Pred, a, b kir.Value) kir.Value { return e.b.Cmp(kir.CmpI, p, a, b) }

// bitw is 1 where the i1 c is true, else 0, in the words of like.
func (e *emulator) bitw(c, like kir.Value) kir.Value {
	return e.b.Emit(kir.ExtU, words(e.k.Types[like]), c)
}

func (e *emulator) selp(c kir.Value, a, b pair) pair {
	return pair{e.b.Select(c, a.lo, b.lo), e.b.Select(c, a.hi, b.hi)}
}

// constPair returns the constant x in the words of like.
func (e *emulator) constPair(like kir.Value, x int64) pair {
	return pair{e.k32(like, x), e.k32(like, x>>32)}
}

func (e *emulator) add64(a, b pair) pair {
	lo := e.w(kir.Add, a.lo, b.lo)
	carry := e.bitw(e.cmpw(kir.PredULT, lo, a.lo), lo)
	return pair{lo, e.w(kir.Add, e.w(kir.Add, a.hi, b.hi), carry)}
}

func (e *emulator) sub64(a, b pair) pair {
	borrow := e.bitw(e.cmpw(kir.PredULT, a.lo, b.lo), a.lo)
	return pair{e.w(kir.Sub, a.lo, b.lo), e.w(kir.Sub, e.w(kir.Sub, a.hi, b.hi), borrow)}
}

func (e *emulator) neg64(a pair) pair { return e.sub64(e.constPair(a.lo, 0), a) }

// mulWide returns the 64-bit product of the unsigned words a and b, from
// four 16×16-bit partial products.
func (e *emulator) mulWide(a, b kir.Value) pair {
	m16, s16 := e.k32(a, 0xffff), e.k32(a, 16)
	a0, a1 := e.w(kir.And, a, m16), e.w(kir.ShrU, a, s16)
	b0, b1 := e.w(kir.And, b, m16), e.w(kir.ShrU, b, s16)
	p00, p01 := e.w(kir.Mul, a0, b0), e.w(kir.Mul, a0, b1)
	p10, p11 := e.w(kir.Mul, a1, b0), e.w(kir.Mul, a1, b1)
	// The middle column: at most 3·(2^16−1), no carry lost.
	mid := e.w(kir.Add, e.w(kir.Add, e.w(kir.ShrU, p00, s16), e.w(kir.And, p01, m16)), e.w(kir.And, p10, m16))
	hi := e.w(kir.Add, e.w(kir.Add, p11, e.w(kir.ShrU, p01, s16)), e.w(kir.Add, e.w(kir.ShrU, p10, s16), e.w(kir.ShrU, mid, s16)))
	return pair{e.w(kir.Mul, a, b), hi}
}

func (e *emulator) mul64(a, b pair) pair {
	p := e.mulWide(a.lo, b.lo)
	cross := e.w(kir.Add, e.w(kir.Mul, a.lo, b.hi), e.w(kir.Mul, a.hi, b.lo))
	return pair{p.lo, e.w(kir.Add, p.hi, cross)}
}

// shift translates Shl, ShrS and ShrU by the unsigned 64-bit amount b.
func (e *emulator) shift(k kir.Kind, a, b pair) pair {
	// An amount of 2^32 or more acts as one of 2^32−1: everything is
	// shifted out.
	s := e.b.Select(e.cmpw(kir.PredEQ, b.hi, e.k32(b.hi, 0)), b.lo, e.k32(b.lo, -1))
	c32 := e.k32(s, 32)
	up, down := e.w(kir.Sub, s, c32), e.w(kir.Sub, c32, s) // s−32, 32−s (mod 2^32)
	switch k {
	case kir.Shl:
		hi := e.w(kir.Or, e.w(kir.Or, e.w(kir.Shl, a.hi, s), e.w(kir.ShrU, a.lo, down)), e.w(kir.Shl, a.lo, up))
		return pair{e.w(kir.Shl, a.lo, s), hi}
	case kir.ShrU:
		lo := e.w(kir.Or, e.w(kir.Or, e.w(kir.ShrU, a.lo, s), e.w(kir.Shl, a.hi, down)), e.w(kir.ShrU, a.hi, up))
		return pair{lo, e.w(kir.ShrU, a.hi, s)}
	}
	small := e.w(kir.Or, e.w(kir.ShrU, a.lo, s), e.w(kir.Shl, a.hi, down))
	lo := e.b.Select(e.cmpw(kir.PredULT, s, c32), small, e.w(kir.ShrS, a.hi, up))
	return pair{lo, e.w(kir.ShrS, a.hi, s)}
}

// unsignedPred returns the unsigned predicate ordering as p does.
func unsignedPred(p kir.Pred) kir.Pred {
	switch p {
	case kir.PredSLT:
		return kir.PredULT
	case kir.PredSLE:
		return kir.PredULE
	case kir.PredSGT:
		return kir.PredUGT
	case kir.PredSGE:
		return kir.PredUGE
	}
	return p
}

// cmp compares a and b with predicate p (i1 with their lanes).
func (e *emulator) cmp(p kir.Pred, a, b pair) kir.Value {
	switch p {
	case kir.PredEQ:
		return e.w(kir.And, e.cmpw(kir.PredEQ, a.lo, b.lo), e.cmpw(kir.PredEQ, a.hi, b.hi))
	case kir.PredNE:
		return e.w(kir.Or, e.cmpw(kir.PredNE, a.lo, b.lo), e.cmpw(kir.PredNE, a.hi, b.hi))
	}
	// Where the high words differ they decide (strictly); else the low
	// words, unsigned.
	return e.b.Select(e.cmpw(kir.PredEQ, a.hi, b.hi), e.cmpw(unsignedPred(p), a.lo, b.lo), e.cmpw(p, a.hi, b.hi))
}

// isZero is true where a is 0.
func (e *emulator) isZero(a pair) kir.Value {
	return e.cmpw(kir.PredEQ, e.w(kir.Or, a.lo, a.hi), e.k32(a.lo, 0))
}

// isNeg is true where a is negative.
func (e *emulator) isNeg(a pair) kir.Value { return e.cmpw(kir.PredSLT, a.hi, e.k32(a.hi, 0)) }

func (e *emulator) binary(k kir.Kind, a, b pair) pair {
	switch k {
	case kir.Add:
		return e.add64(a, b)
	case kir.Sub:
		return e.sub64(a, b)
	case kir.Mul:
		return e.mul64(a, b)
	case kir.And, kir.Or, kir.Xor:
		return pair{e.w(k, a.lo, b.lo), e.w(k, a.hi, b.hi)}
	case kir.Shl, kir.ShrS, kir.ShrU:
		return e.shift(k, a, b)
	case kir.MinS, kir.MinU, kir.MaxS, kir.MaxU:
		p := map[kir.Kind]kir.Pred{kir.MinS: kir.PredSLT, kir.MinU: kir.PredULT, kir.MaxS: kir.PredSGT, kir.MaxU: kir.PredUGT}[k]
		return e.selp(e.cmp(p, a, b), a, b)
	}
	return e.divide(k, a, b)
}

func (e *emulator) unary(k kir.Kind, a pair) pair {
	zero := e.k32(a.lo, 0)
	c32 := e.k32(a.lo, 32)
	switch k {
	case kir.AbsI:
		return e.selp(e.isNeg(a), e.neg64(a), a)
	case kir.CtLz:
		n := e.b.Select(e.cmpw(kir.PredNE, a.hi, zero), e.b.Emit(kir.CtLz, words(e.k.Types[a.hi]), a.hi),
			e.w(kir.Add, c32, e.b.Emit(kir.CtLz, words(e.k.Types[a.lo]), a.lo)))
		return pair{n, zero}
	case kir.CtTz:
		n := e.b.Select(e.cmpw(kir.PredNE, a.lo, zero), e.b.Emit(kir.CtTz, words(e.k.Types[a.lo]), a.lo),
			e.w(kir.Add, c32, e.b.Emit(kir.CtTz, words(e.k.Types[a.hi]), a.hi)))
		return pair{n, zero}
	}
	t := words(e.k.Types[a.lo])
	return pair{e.w(kir.Add, e.b.Emit(kir.CtPop, t, a.lo), e.b.Emit(kir.CtPop, t, a.hi)), zero}
}

// divide translates the divisions and remainders from the unsigned
// quotient and remainder of the magnitudes.
func (e *emulator) divide(k kir.Kind, a, b pair) pair {
	switch k {
	case kir.DivU, kir.RemU, kir.CeilDivU:
		q, r := e.udivmod(a, b)
		switch k {
		case kir.DivU:
			return q
		case kir.RemU:
			return r
		}
		up := e.bitw(e.w(kir.Xor, e.isZero(r), e.cint(kir.Type{Elem: kir.I1, Lanes: e.k.Types[r.lo].Lanes}, 1)), q.lo)
		return e.add64(q, pair{up, e.k32(q.lo, 0)})
	}
	na, nb := e.isNeg(a), e.isNeg(b)
	q, r := e.udivmod(e.selp(na, e.neg64(a), a), e.selp(nb, e.neg64(b), b))
	differ := e.w(kir.Xor, na, nb)
	q = e.selp(differ, e.neg64(q), q)
	r = e.selp(na, e.neg64(r), r)
	switch k {
	case kir.DivS:
		return q
	case kir.RemS:
		return r
	}
	i1 := kir.Type{Elem: kir.I1, Lanes: e.k.Types[r.lo].Lanes}
	inexact := e.w(kir.Xor, e.isZero(r), e.cint(i1, 1))
	if k == kir.FloorDivS {
		// Round down where the exact quotient is negative.
		adj := e.bitw(e.w(kir.And, inexact, differ), q.lo)
		return e.sub64(q, pair{adj, e.k32(q.lo, 0)})
	}
	adj := e.bitw(e.w(kir.And, inexact, e.w(kir.Xor, differ, e.cint(i1, 1))), q.lo)
	return e.add64(q, pair{adj, e.k32(q.lo, 0)})
}

// udivmod returns the unsigned quotient and remainder of n and d (both 0
// where d is 0): 32-bit division when every lane's high words are zero,
// else 64 steps of shift and subtract.
func (e *emulator) udivmod(n, d pair) (q, r pair) {
	wt := words(e.k.Types[n.lo])
	high := e.w(kir.Or, n.hi, d.hi)
	if wt.IsVector() {
		high = e.b.Reduce(kir.ReduceOr, high)
	}
	small := e.cmpw(kir.PredEQ, high, e.cint(kir.S(kir.I32), 0))
	ts := []kir.Type{wt, wt, wt, wt}
	outer := e.b
	in := func(b *kir.Builder, f func() []kir.Value) []kir.Value {
		e.b = b
		e.scopes = append(e.scopes, nil)
		defer e.leave(outer)
		return f()
	}
	res := outer.If(small, ts, func(b *kir.Builder) []kir.Value {
		return in(b, func() []kir.Value {
			zero := e.cint(wt, 0)
			return []kir.Value{e.w(kir.DivU, n.lo, d.lo), zero, e.w(kir.RemU, n.lo, d.lo), zero}
		})
	}, func(b *kir.Builder) []kir.Value {
		return in(b, func() []kir.Value { return e.divLoop(n, d) })
	})
	q, r = pair{res[0], res[1]}, pair{res[2], res[3]}
	dz := e.isZero(d)
	zero := e.constPair(q.lo, 0)
	return e.selp(dz, zero, q), e.selp(dz, zero, r)
}

// divLoop is restoring division: 64 steps, each shifting the next bit of
// n into the remainder and subtracting d where it fits.
func (e *emulator) divLoop(n, d pair) []kir.Value {
	wt := words(e.k.Types[n.lo])
	it := kir.S(e.index)
	zero := e.cint(wt, 0)
	outer := e.b
	out := outer.For(e.cint(it, 0), e.cint(it, 64), e.cint(it, 1), []kir.Value{n.lo, n.hi, zero, zero, zero, zero},
		func(b *kir.Builder, iv kir.Value, c []kir.Value) []kir.Value {
			e.k.Types[iv] = it
			e.b = b
			e.scopes = append(e.scopes, nil)
			defer e.leave(outer)
			one, s31 := e.k32(c[0], 1), e.k32(c[0], 31)
			twice := func(x pair, in kir.Value) pair { // x<<1 | in
				return pair{e.w(kir.Or, e.w(kir.Shl, x.lo, one), in), e.w(kir.Or, e.w(kir.Shl, x.hi, one), e.w(kir.ShrU, x.lo, s31))}
			}
			nn, q, r := pair{c[0], c[1]}, pair{c[2], c[3]}, pair{c[4], c[5]}
			// r is at most the bits of n shifted in so far, below 2^63
			// before the shift: nothing is lost.
			r = twice(r, e.w(kir.ShrU, nn.hi, s31))
			nn = twice(nn, e.k32(c[0], 0))
			fits := e.cmp(kir.PredUGE, r, d)
			r = e.selp(fits, e.sub64(r, d), r)
			q = twice(q, e.bitw(fits, q.lo))
			return []kir.Value{nn.lo, nn.hi, q.lo, q.hi, r.lo, r.hi}
		})
	return out[2:]
}

// reduce combines the lanes of the vector a in order.
func (e *emulator) reduce(r kir.ReduceKind, a pair, n int) pair {
	switch r {
	case kir.ReduceAnd, kir.ReduceOr, kir.ReduceXor:
		return pair{e.b.Reduce(r, a.lo), e.b.Reduce(r, a.hi)}
	}
	lane := func(i int) pair {
		return pair{e.b.EmitImm(kir.Extract, kir.S(kir.I32), int64(i), a.lo), e.b.EmitImm(kir.Extract, kir.S(kir.I32), int64(i), a.hi)}
	}
	k := reduceOp[r]
	acc := lane(0)
	for i := 1; i < n; i++ {
		acc = e.binary(k, acc, lane(i))
	}
	return acc
}

// reduceOp is the binary op of each integer reduction kind.
var reduceOp = map[kir.ReduceKind]kir.Kind{kir.ReduceAdd: kir.Add, kir.ReduceMul: kir.Mul, kir.ReduceMinS: kir.MinS,
	kir.ReduceMaxS: kir.MaxS, kir.ReduceMinU: kir.MinU, kir.ReduceMaxU: kir.MaxU, kir.ReduceAnd: kir.And,
	kir.ReduceOr: kir.Or, kir.ReduceXor: kir.Xor}

// subgroupReduce combines x over the subgroup with 32-bit subgroup
// reductions: sums of 16-bit chunks (exact for up to 2^16 lanes) carried
// into 64 bits, minima and maxima of the high words and then of the low
// words of the lanes that hold that high word, bitwise ops word by word.
func (e *emulator) subgroupReduce(r kir.ReduceKind, x pair) pair {
	red := func(r kir.ReduceKind, w kir.Value) kir.Value {
		return e.b.EmitImm(kir.SubgroupReduce, kir.S(kir.I32), int64(r), w)
	}
	switch r {
	case kir.ReduceAnd, kir.ReduceOr, kir.ReduceXor:
		return pair{red(r, x.lo), red(r, x.hi)}
	case kir.ReduceAdd:
		m16, s16 := e.k32(x.lo, 0xffff), e.k32(x.lo, 16)
		s0 := red(r, e.w(kir.And, x.lo, m16))
		s1 := red(r, e.w(kir.ShrU, x.lo, s16))
		s2 := red(r, e.w(kir.And, x.hi, m16))
		s3 := red(r, e.w(kir.ShrU, x.hi, s16))
		zero := e.k32(s0, 0)
		sum := e.add64(pair{s0, zero}, pair{e.w(kir.Shl, s1, s16), e.w(kir.ShrU, s1, s16)})
		return pair{sum.lo, e.w(kir.Add, e.w(kir.Add, sum.hi, s2), e.w(kir.Shl, s3, s16))}
	}
	hiKind, loKind, fill := r, kir.ReduceMinU, int64(-1)
	if r == kir.ReduceMaxS || r == kir.ReduceMaxU {
		loKind, fill = kir.ReduceMaxU, 0
	}
	hi := red(hiKind, x.hi)
	lo := red(loKind, e.b.Select(e.cmpw(kir.PredEQ, x.hi, hi), x.lo, e.k32(x.lo, fill)))
	return pair{lo, hi}
}

// floatOf returns the float type s with the lanes of like.
func (e *emulator) floatOf(s kir.Scalar, like kir.Value) kir.Type {
	return kir.Type{Elem: s, Lanes: e.k.Types[like].Lanes}
}

// toFloat translates SIToFP and UIToFP of a to rt: f64 as hi·2^32 + lo
// (one rounding), f32 by normalizing the magnitude to its top 32 bits
// with a sticky bit and scaling the correctly rounded u32 conversion by a
// power of two; f16 and bf16 round that f32, as kir defines them.
func (e *emulator) toFloat(a pair, signed bool, rt kir.Type) kir.Value {
	if rt.Elem == kir.F64 {
		ft := e.floatOf(kir.F64, a.lo)
		hk := kir.UIToFP
		if signed {
			hk = kir.SIToFP
		}
		hi := e.b.Emit(kir.Mul, ft, e.b.Emit(hk, ft, a.hi), e.cfloat(ft, 1<<32))
		return e.b.Emit(kir.Add, ft, hi, e.b.Emit(kir.UIToFP, ft, a.lo))
	}
	ft := e.floatOf(kir.F32, a.lo)
	m := a
	var neg kir.Value
	if signed {
		neg = e.isNeg(a)
		m = e.selp(neg, e.neg64(a), a)
	}
	n := e.b.Emit(kir.CtLz, words(e.k.Types[m.hi]), m.hi) // 0..32
	top := e.w(kir.Or, e.w(kir.Shl, m.hi, n), e.w(kir.ShrU, m.lo, e.w(kir.Sub, e.k32(n, 32), n)))
	sticky := e.bitw(e.cmpw(kir.PredNE, e.w(kir.Shl, m.lo, n), e.k32(n, 0)), n)
	f := e.b.Emit(kir.UIToFP, ft, e.w(kir.Or, top, sticky))
	scale := e.b.Emit(kir.Bitcast, ft, e.w(kir.Shl, e.w(kir.Sub, e.k32(n, 127+32), n), e.k32(n, 23))) // 2^(32−n)
	f = e.b.Emit(kir.Mul, ft, f, scale)
	if signed {
		f = e.b.Select(neg, e.b.Emit(kir.NegF, ft, f), f)
	}
	if rt.Elem != kir.F32 {
		f = e.b.Emit(kir.FPTrunc, rt, f)
	}
	return f
}

// fromFloat translates FPToSI and FPToUI of x to i64: truncation toward
// zero, saturation at the range, NaN giving 0. The magnitude's high word
// is the truncated quotient by 2^32 and the low word the rest, both
// exact in the float type.
func (e *emulator) fromFloat(x kir.Value, signed bool) pair {
	ft := e.k.Types[x]
	if ft.Elem != kir.F32 && ft.Elem != kir.F64 {
		ft.Elem = kir.F32
		x = e.b.Emit(kir.FPExt, ft, x)
	}
	wt := words(ft)
	i1 := kir.Type{Elem: kir.I1, Lanes: ft.Lanes}
	t := e.b.Emit(kir.Trunc, ft, x)
	mag := t
	if signed {
		mag = e.b.Emit(kir.AbsF, ft, t)
	}
	hiF := e.b.Emit(kir.Trunc, ft, e.b.Emit(kir.Mul, ft, mag, e.cfloat(ft, 0x1p-32)))
	loF := e.b.Emit(kir.Sub, ft, mag, e.b.Emit(kir.Mul, ft, hiF, e.cfloat(ft, 0x1p32)))
	p := pair{e.b.Emit(kir.FPToUI, wt, loF), e.b.Emit(kir.FPToUI, wt, hiF)}
	cmpf := func(pr kir.Pred, a, b kir.Value) kir.Value { return e.b.EmitImm(kir.CmpF, i1, int64(pr), a, b) }
	if signed {
		p = e.selp(cmpf(kir.FPredOLT, t, e.cfloat(ft, 0)), e.neg64(p), p)
		p = e.selp(cmpf(kir.FPredOGE, t, e.cfloat(ft, 0x1p63)), e.constPair(p.lo, math.MaxInt64), p)
		p = e.selp(cmpf(kir.FPredOLT, t, e.cfloat(ft, -0x1p63)), e.constPair(p.lo, math.MinInt64), p)
		return e.selp(e.b.Emit(kir.IsNaN, i1, x), e.constPair(p.lo, 0), p)
	}
	p = e.selp(cmpf(kir.FPredOGE, t, e.cfloat(ft, 0x1p64)), e.constPair(p.lo, -1), p)
	return e.selp(cmpf(kir.FPredULE, t, e.cfloat(ft, 0)), e.constPair(p.lo, 0), p) // ≤ 0 or NaN
}
