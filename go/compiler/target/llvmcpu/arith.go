package llvmcpu

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/status"
)

var inf = math.Inf(1)

// cst returns a constant of type t, every lane lit.
func cst(t kir.Type, lit string) string { return splat(scalarTy(t.Elem), t.Width(), lit) }

// ilit returns the integer constant x of type t.
func ilit(t kir.Type, x int64) string { return cst(t, intLit(t.Elem, x)) }

// with returns t with element type s.
func with(t kir.Type, s kir.Scalar) kir.Type { return kir.Type{Elem: s, Lanes: t.Lanes} }

// bin emits "r = op T a, b" and returns r.
func (f *fn) bin(op string, t kir.Type, a, b string) string {
	r := f.t()
	f.emitf("%s = %s %s %s, %s", r, op, ty(t), a, b)
	return r
}

// sel emits a select with an i1 (or i1-vector) condition.
func (f *fn) sel(t kir.Type, c, a, b string) string {
	r := f.t()
	f.emitf("%s = select %s %s, %s %s, %s %s", r, ty(with(t, kir.I1)), c, ty(t), a, ty(t), b)
	return r
}

func (f *fn) icmp(pred string, t kir.Type, a, b string) string {
	r := f.t()
	f.emitf("%s = icmp %s %s %s, %s", r, pred, ty(t), a, b)
	return r
}

// fcmp emits "r = fcmp pred T a, b" and returns r.
func (f *fn) fcmp(pred string, t kir.Type, a, b string) string {
	r := f.t()
	f.emitf("%s = fcmp %s %s %s, %s", r, pred, ty(t), a, b)
	return r
}

// intrinsic calls an overloaded intrinsic on operands of type t.
func (f *fn) intrinsic(name string, t kir.Type, args ...string) string {
	var typed []string
	for _, a := range args {
		typed = append(typed, ty(t), a)
	}
	return f.call(ty(t), name+mangle(t.Elem, t.Width()), typed...)
}

// intBinary emits an integer binary op with kir.Run's semantics: division
// by zero gives 0, MIN / -1 wraps, out-of-range shifts give 0 or the sign.
func (f *fn) intBinary(k kir.Kind, t kir.Type, a, b string) (string, error) {
	z, one, m1 := ilit(t, 0), ilit(t, 1), ilit(t, -1)
	bits := int64(t.Elem.Bits())
	b1 := with(t, kir.I1)
	switch k {
	case kir.Add, kir.Sub, kir.Mul, kir.And, kir.Or, kir.Xor:
		return f.bin(map[kir.Kind]string{kir.Add: "add", kir.Sub: "sub", kir.Mul: "mul", kir.And: "and", kir.Or: "or", kir.Xor: "xor"}[k], t, a, b), nil
	case kir.DivS, kir.RemS, kir.FloorDivS, kir.CeilDivS:
		bz, bm := f.icmp("eq", t, b, z), f.icmp("eq", t, b, m1)
		bad := f.bin("or", b1, bz, bm)
		sb := f.sel(t, bad, one, b)
		q, r := f.bin("sdiv", t, a, sb), f.bin("srem", t, a, sb)
		neg := f.bin("sub", t, z, a)
		q = f.sel(t, bm, neg, q)
		switch k {
		case kir.DivS:
			return f.sel(t, bz, z, q), nil
		case kir.RemS:
			return f.sel(t, bad, z, r), nil
		}
		rnz := f.icmp("ne", t, r, z)
		x := f.bin("xor", t, a, b)
		pred := "slt"
		if k == kir.CeilDivS {
			pred = "sge"
		}
		adj := f.bin("and", b1, rnz, f.icmp(pred, t, x, z))
		d := f.sel(t, adj, one, z)
		if k == kir.FloorDivS {
			q = f.bin("sub", t, q, d)
		} else {
			q = f.bin("add", t, q, d)
		}
		return f.sel(t, bz, z, q), nil
	case kir.DivU, kir.RemU, kir.CeilDivU:
		bz := f.icmp("eq", t, b, z)
		sb := f.sel(t, bz, one, b)
		q, r := f.bin("udiv", t, a, sb), f.bin("urem", t, a, sb)
		switch k {
		case kir.DivU:
			return f.sel(t, bz, z, q), nil
		case kir.RemU:
			return f.sel(t, bz, z, r), nil
		}
		q = f.bin("add", t, q, f.sel(t, f.icmp("ne", t, r, z), one, z))
		return f.sel(t, bz, z, q), nil
	case kir.MinS, kir.MaxS, kir.MinU, kir.MaxU:
		name := map[kir.Kind]string{kir.MinS: "llvm.smin", kir.MaxS: "llvm.smax", kir.MinU: "llvm.umin", kir.MaxU: "llvm.umax"}[k]
		return f.intrinsic(name, t, a, b), nil
	case kir.Shl, kir.ShrU:
		ok := f.icmp("ult", t, b, ilit(t, bits))
		m := f.bin("and", t, b, ilit(t, bits-1))
		op := "shl"
		if k == kir.ShrU {
			op = "lshr"
		}
		return f.sel(t, ok, f.bin(op, t, a, m), z), nil
	case kir.ShrS:
		amt := f.intrinsic("llvm.umin", t, b, ilit(t, bits-1))
		return f.bin("ashr", t, a, amt), nil
	}
	return "", status.Errorf(status.Unimplemented, "integer op %s has no llvm-cpu lowering", k)
}

// intUnary emits abs, ctlz, cttz and ctpop.
func (f *fn) intUnary(k kir.Kind, t kir.Type, a string) (string, error) {
	T := ty(t)
	m := mangle(t.Elem, t.Width())
	switch k {
	case kir.AbsI:
		return f.call(T, "llvm.abs"+m, T, a, "i1", "false"), nil
	case kir.CtLz:
		return f.call(T, "llvm.ctlz"+m, T, a, "i1", "false"), nil
	case kir.CtTz:
		return f.call(T, "llvm.cttz"+m, T, a, "i1", "false"), nil
	case kir.CtPop:
		return f.call(T, "llvm.ctpop"+m, T, a), nil
	}
	return "", status.Errorf(status.Unimplemented, "integer op %s has no llvm-cpu lowering", k)
}
