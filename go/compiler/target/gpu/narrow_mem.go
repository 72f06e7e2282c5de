package gpu

import (
	"math/bits"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// packing describes the elements of a packed binding: per elements of
// width bits in each i32 word, element i of a word in bits i·width up.
type packing struct {
	elem  kir.Scalar
	per   int   // elements per word: 4 (i1, i8) or 2 (16-bit types)
	lg    int64 // log2(per)
	width int   // bits per element
}

func packingOf(s kir.Scalar) packing {
	size := s.ByteSize()
	p := packing{elem: s, per: 4 / size, width: 8 * size}
	p.lg = int64(bits.TrailingZeros(uint(p.per)))
	return p
}

// mask returns the bits of an element in the low bits of a word.
func (p packing) mask() int64 { return 1<<p.width - 1 }

// wordIndex returns the index of the word holding element off (an
// integer of the offset's type; a negative offset gives a negative word,
// which the load or store reports as out of bounds).
func (p packing) wordIndex(b em, off kir.Value) kir.Value { return b.binC(kir.ShrS, off, p.lg) }

// shift returns, as i32, the position of element off's bits in its word.
func (p packing) shift(b em, off kir.Value) kir.Value {
	o := off
	if t := b.K.Types[off]; t.Elem != kir.I32 {
		o = b.Emit(kir.TruncI, kir.S(kir.I32), off)
	}
	return b.binC(kir.Shl, b.binC(kir.And, o, int64(p.per-1)), int64(bits.TrailingZeros(uint(p.width))))
}

// unpack returns the values (of the element type, held as NarrowTypes
// holds them) of the fields in the low bits of the i32 lanes f.
func (p packing) unpack(b em, f kir.Value) kir.Value {
	switch p.elem {
	case kir.I1:
		return b.cmpC(kir.PredNE, b.binC(kir.And, f, 1), 0)
	case kir.I8, kir.I16:
		return b.sext(f, p.width)
	case kir.F16:
		return b.f16Value(f)
	}
	return b.floatOf(b.binC(kir.Shl, f, 16)) // bf16
}

// pack returns the fields (in the low bits of i32 lanes, zero above) of
// the element values x.
func (p packing) pack(b em, x kir.Value) kir.Value {
	switch p.elem {
	case kir.I1:
		return b.Emit(kir.ExtU, laneType(b.K.Types[x], kir.I32), x)
	case kir.I8, kir.I16:
		return b.zext(x, p.width)
	case kir.F16:
		return b.f16Bits(x)
	}
	return b.binC(kir.ShrU, b.bitsOf(x), 16) // bf16
}

// lane returns lane i of x (x itself for a scalar).
func lane(b em, x kir.Value, i int) kir.Value {
	t := b.K.Types[x]
	if !t.IsVector() {
		return x
	}
	return b.EmitImm(kir.Extract, kir.S(t.Elem), int64(i), x)
}

// vectorOf assembles scalars into a value of type t (the scalar itself
// when there is one).
func vectorOf(b em, t kir.Type, xs []kir.Value) kir.Value {
	if len(xs) == 1 {
		return xs[0]
	}
	v := b.Emit(kir.Broadcast, t, xs[0])
	for i, x := range xs[1:] {
		v = b.EmitImm(kir.Insert, t, int64(i+1), v, x)
	}
	return v
}

// plus returns off + i (i a constant of off's type).
func plus(b em, off kir.Value, i int64) kir.Value {
	if i == 0 {
		return off
	}
	return b.binC(kir.Add, off, i)
}

// load rewrites a load from a packed binding: the fields of its lanes are
// gathered into i32 lanes, then unpacked together.
func (e *emulation) load(b em, op *kir.Op) {
	p := packingOf(e.elems[op.Binding])
	bind, off := op.Binding, op.Args[0]
	r := op.Results[0]
	n := e.k.Types[r].Width()
	ft := laneType(e.k.Types[r], kir.I32)
	var fields kir.Value
	switch {
	case op.Kind == kir.LoadStrided:
		stride := op.Args[1]
		fs := make([]kir.Value, n)
		for i := range fs {
			at := off
			if i > 0 {
				at = b.Bin(kir.Add, off, b.Bin(kir.Mul, stride, b.c(b.K.Types[stride], int64(i))))
			}
			fs[i] = e.loadField(b, bind, p, at)
		}
		fields = vectorOf(b, ft, fs)
	case n == 1:
		fields = e.loadField(b, bind, p, off)
	case e.alignOf(off) >= int64(p.per):
		fields = e.loadAligned(b, bind, p, off, ft)
	default:
		aligned := b.cmpC(kir.PredEQ, b.binC(kir.And, off, int64(p.per-1)), 0)
		fields = b.If(aligned, []kir.Type{ft}, func(ib *kir.Builder) []kir.Value {
			return []kir.Value{e.loadAligned(b.in(ib), bind, p, off, ft)}
		}, func(ib *kir.Builder) []kir.Value {
			fs := make([]kir.Value, n)
			for i := range fs {
				fs[i] = e.loadField(b.in(ib), bind, p, plus(b.in(ib), off, int64(i)))
			}
			return []kir.Value{vectorOf(b.in(ib), ft, fs)}
		})[0]
	}
	e.sub[r] = p.unpack(b, fields)
}

// loadField loads the word holding element off and returns the element's
// field in the low bits of an i32 (the bits above are the word's next
// elements).
func (e *emulation) loadField(b em, bind int, p packing, off kir.Value) kir.Value {
	w := b.Load(bind, kir.S(kir.I32), p.wordIndex(b, off))
	return b.Bin(kir.ShrU, w, p.shift(b, off))
}

// loadAligned loads the words of ft.Width() elements from element off, a
// multiple of p.per, and returns their fields as i32 lanes.
func (e *emulation) loadAligned(b em, bind int, p packing, off kir.Value, ft kir.Type) kir.Value {
	n := ft.Width()
	m := (n + p.per - 1) / p.per
	wt := kir.S(kir.I32)
	if m > 1 {
		wt = kir.V(kir.I32, m)
	}
	words := b.Load(bind, wt, p.wordIndex(b, off))
	fs := make([]kir.Value, n)
	for i := range fs {
		f := lane(b, words, i/p.per)
		if s := i % p.per * p.width; s > 0 {
			f = b.binC(kir.ShrU, f, int64(s))
		}
		fs[i] = f
	}
	return vectorOf(b, ft, fs)
}

// store rewrites a store to a packed binding: the lanes are packed
// together, then stored whole words at a time where the offset is aligned
// and element by element (atomically) elsewhere.
func (e *emulation) store(b em, op *kir.Op) {
	p := packingOf(e.elems[op.Binding])
	bind, off := op.Binding, op.Args[0]
	val := op.Args[len(op.Args)-1]
	n := e.k.Types[val].Width()
	fields := p.pack(b, val)
	switch {
	case op.Kind == kir.StoreStrided:
		stride := op.Args[1]
		for i := 0; i < n; i++ {
			at := off
			if i > 0 {
				at = b.Bin(kir.Add, off, b.Bin(kir.Mul, stride, b.c(b.K.Types[stride], int64(i))))
			}
			e.storeField(b, bind, p, at, lane(b, fields, i))
		}
	case n == 1:
		e.storeField(b, bind, p, off, fields)
	case e.alignOf(off) >= int64(p.per):
		e.storeAligned(b, bind, p, off, fields)
	default:
		aligned := b.cmpC(kir.PredEQ, b.binC(kir.And, off, int64(p.per-1)), 0)
		b.If(aligned, nil, func(ib *kir.Builder) []kir.Value {
			e.storeAligned(b.in(ib), bind, p, off, fields)
			return nil
		}, func(ib *kir.Builder) []kir.Value {
			for i := 0; i < n; i++ {
				e.storeField(b.in(ib), bind, p, plus(b.in(ib), off, int64(i)), lane(b.in(ib), fields, i))
			}
			return nil
		})
	}
}

// storeField stores the field f (an i32, zero above the element's bits)
// as element off: an atomic and clears the element's bits in its word,
// an atomic or sets them, and the word's other elements, which other
// threads may be storing at the same time, are untouched.
func (e *emulation) storeField(b em, bind int, p packing, off, f kir.Value) {
	w := p.wordIndex(b, off)
	sh := p.shift(b, off)
	mask := b.Bin(kir.Shl, b.c(kir.S(kir.I32), p.mask()), sh)
	b.AtomicRMW(bind, kir.AtomicAnd, w, b.binC(kir.Xor, mask, -1))
	b.AtomicRMW(bind, kir.AtomicOr, w, b.Bin(kir.Shl, f, sh))
}

// storeAligned stores the fields (i32 lanes) of elements from off, a
// multiple of p.per: the whole words plainly (every element of each is
// the store's own), a last partial word with an atomic and and or.
func (e *emulation) storeAligned(b em, bind int, p packing, off, fields kir.Value) {
	n := b.K.Types[fields].Width()
	w := p.wordIndex(b, off)
	word := func(from, count int) kir.Value {
		var v kir.Value = -1
		for q := 0; q < count; q++ {
			f := lane(b, fields, from+q)
			if q > 0 {
				f = b.binC(kir.Shl, f, int64(q*p.width))
			}
			if v < 0 {
				v = f
			} else {
				v = b.Bin(kir.Or, v, f)
			}
		}
		return v
	}
	full := n / p.per
	if full > 0 {
		ws := make([]kir.Value, full)
		for j := range ws {
			ws[j] = word(j*p.per, p.per)
		}
		t := kir.S(kir.I32)
		if full > 1 {
			t = kir.V(kir.I32, full)
		}
		b.Store(bind, w, vectorOf(b, t, ws))
	}
	if tail := n % p.per; tail > 0 {
		var mask int64
		for q := 0; q < tail; q++ {
			mask |= p.mask() << (q * p.width)
		}
		wt := plus(b, w, int64(full))
		b.AtomicRMW(bind, kir.AtomicAnd, wt, b.c(kir.S(kir.I32), ^mask))
		b.AtomicRMW(bind, kir.AtomicOr, wt, word(full*p.per, tail))
	}
}
