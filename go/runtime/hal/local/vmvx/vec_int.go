package vmvx

import (
	"math/bits"

	"github.com/gree-ml/gree/go/schemas/vmvx"
)

// Integer kernels. Lanes hold values sign-extended to the storage type;
// in.mask selects the element's bits for unsigned views, in.bits is its
// width. Division by zero gives 0; shifts by the width or more give 0
// (shl, shru) or the sign fill (shrs).

func addK[T nums](d, a, b []T, _ *inst) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] + b[i]
	}
}

func subK[T nums](d, a, b []T, _ *inst) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] - b[i]
	}
}

func mulK[T nums](d, a, b []T, _ *inst) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] * b[i]
	}
}

// intBinK returns the kernel of an integer binary opcode.
func intBinK[T ints](op vmvx.Opcode) binKernel[T] {
	switch op {
	case vmvx.Add:
		return addK[T]
	case vmvx.Sub:
		return subK[T]
	case vmvx.Mul:
		return mulK[T]
	case vmvx.And:
		return func(d, a, b []T, _ *inst) {
			for i := range d {
				d[i] = a[i] & b[i]
			}
		}
	case vmvx.Or:
		return func(d, a, b []T, _ *inst) {
			for i := range d {
				d[i] = a[i] | b[i]
			}
		}
	case vmvx.Xor:
		return func(d, a, b []T, _ *inst) {
			for i := range d {
				d[i] = a[i] ^ b[i]
			}
		}
	case vmvx.MinS:
		return func(d, a, b []T, _ *inst) {
			for i := range d {
				d[i] = min(a[i], b[i])
			}
		}
	case vmvx.MaxS:
		return func(d, a, b []T, _ *inst) {
			for i := range d {
				d[i] = max(a[i], b[i])
			}
		}
	}
	return func(d, a, b []T, in *inst) {
		for i := range d {
			d[i] = T(intBinLane(op, int64(a[i]), int64(b[i]), in.mask, in.bits))
		}
	}
}

// intBinLane evaluates the rarer integer binary ops on one lane.
func intBinLane(op vmvx.Opcode, sa, sb int64, mask uint64, n int) int64 {
	ua, ub := uint64(sa)&mask, uint64(sb)&mask
	switch op {
	case vmvx.DivS:
		if sb != 0 {
			return sa / sb
		}
	case vmvx.DivU:
		if ub != 0 {
			return int64(ua / ub)
		}
	case vmvx.RemS:
		if sb != 0 {
			return sa % sb
		}
	case vmvx.RemU:
		if ub != 0 {
			return int64(ua % ub)
		}
	case vmvx.FloorDivS:
		if sb != 0 {
			q := sa / sb
			if sa%sb != 0 && (sa < 0) != (sb < 0) {
				q--
			}
			return q
		}
	case vmvx.CeilDivS:
		if sb != 0 {
			q := sa / sb
			if sa%sb != 0 && (sa < 0) == (sb < 0) {
				q++
			}
			return q
		}
	case vmvx.CeilDivU:
		if ub != 0 {
			q := ua / ub
			if ua%ub != 0 {
				q++
			}
			return int64(q)
		}
	case vmvx.MinU:
		return int64(min(ua, ub))
	case vmvx.MaxU:
		return int64(max(ua, ub))
	case vmvx.Shl:
		if ub < uint64(n) {
			return sa << ub
		}
	case vmvx.ShrS:
		if ub < uint64(n) {
			return sa >> ub
		}
		return sa >> 63
	case vmvx.ShrU:
		if ub < uint64(n) {
			return int64(ua >> ub)
		}
	}
	return 0
}

// intUnK returns the kernel of an integer unary opcode.
func intUnK[T ints](op vmvx.Opcode) unKernel[T] {
	return func(d, a []T, in *inst) {
		for i := range d {
			u := uint64(a[i]) & in.mask
			var r int64
			switch op {
			case vmvx.AbsI:
				r = int64(a[i])
				if r < 0 {
					r = -r
				}
			case vmvx.CtLz:
				r = int64(bits.LeadingZeros64(u) - (64 - in.bits))
			case vmvx.CtTz:
				if u == 0 {
					r = int64(in.bits)
				} else {
					r = int64(bits.TrailingZeros64(u))
				}
			case vmvx.CtPop:
				r = int64(bits.OnesCount64(u))
			}
			d[i] = T(r)
		}
	}
}

// cmpInt compares integer lanes into i1 lanes (0 or -1).
func cmpInt[T ints](t *thread, in *inst) error {
	d := vec[int8](t, in.d, in.n)
	a, b := vec[T](t, in.a, in.n), vec[T](t, in.b, in.n)
	a, b = a[:len(d)], b[:len(d)]
	m := in.mask
	switch in.pred {
	case 0:
		for i := range d {
			d[i] = i1(a[i] == b[i])
		}
	case 1:
		for i := range d {
			d[i] = i1(a[i] != b[i])
		}
	case 2:
		for i := range d {
			d[i] = i1(a[i] < b[i])
		}
	case 3:
		for i := range d {
			d[i] = i1(a[i] <= b[i])
		}
	case 4:
		for i := range d {
			d[i] = i1(a[i] > b[i])
		}
	case 5:
		for i := range d {
			d[i] = i1(a[i] >= b[i])
		}
	case 6:
		for i := range d {
			d[i] = i1(uint64(a[i])&m < uint64(b[i])&m)
		}
	case 7:
		for i := range d {
			d[i] = i1(uint64(a[i])&m <= uint64(b[i])&m)
		}
	case 8:
		for i := range d {
			d[i] = i1(uint64(a[i])&m > uint64(b[i])&m)
		}
	case 9:
		for i := range d {
			d[i] = i1(uint64(a[i])&m >= uint64(b[i])&m)
		}
	}
	return nil
}

// i1 converts a bool to an i1 lane.
func i1(b bool) int8 {
	if b {
		return -1
	}
	return 0
}

// reduceInt combines the lanes of a into scalar d, lane 0 first.
func reduceInt[T ints](t *thread, in *inst) error {
	a := vec[T](t, in.a, in.na)
	acc := int64(a[0])
	m := in.mask
	for _, x := range a[1:] {
		v := int64(x)
		switch in.imm {
		case vmvx.ReduceAdd:
			acc += v
		case vmvx.ReduceMul:
			acc *= v
		case vmvx.ReduceMinS:
			acc = min(acc, v)
		case vmvx.ReduceMaxS:
			acc = max(acc, v)
		case vmvx.ReduceMinU:
			acc = int64(min(uint64(acc)&m, uint64(v)&m))
		case vmvx.ReduceMaxU:
			acc = int64(max(uint64(acc)&m, uint64(v)&m))
		case vmvx.ReduceAnd:
			acc &= v
		case vmvx.ReduceOr:
			acc |= v
		case vmvx.ReduceXor:
			acc ^= v
		}
		acc = sext(uint64(acc), in.bits)
	}
	*ptr[T](t, in.d) = T(acc)
	return nil
}
