package llvmcpu

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/status"
)

// cast emits a conversion op.
func (f *fn) cast(k kir.Kind, from, to kir.Type, x string) (string, error) {
	r := f.t()
	switch k {
	case kir.ExtS, kir.ExtU, kir.TruncI, kir.Bitcast:
		op := map[kir.Kind]string{kir.ExtS: "sext", kir.ExtU: "zext", kir.TruncI: "trunc", kir.Bitcast: "bitcast"}[k]
		f.emitf("%s = %s %s %s to %s", r, op, ty(from), x, ty(to))
	case kir.SIToFP, kir.UIToFP:
		op := "sitofp"
		if k == kir.UIToFP {
			op = "uitofp"
		}
		wt := with(to, wideElem(to.Elem))
		f.emitf("%s = %s %s %s to %s", r, op, ty(from), x, ty(wt))
		return f.fromWide(to, r), nil
	case kir.FPToSI, kir.FPToUI:
		wf := with(from, wideElem(from.Elem))
		name := "llvm.fptosi.sat"
		if k == kir.FPToUI {
			name = "llvm.fptoui.sat"
		}
		if to.IsVector() && archOf(f.mo.m.Triple) == "x86_64" {
			// x86 has no saturating vector conversion: LLVM would
			// convert lane by lane.
			return f.clampedToInt(k == kir.FPToUI, wf, to, f.toF32(from, x)), nil
		}
		name += mangle(to.Elem, to.Width()) + mangle(wf.Elem, wf.Width())
		return f.call(ty(to), name, ty(wf), f.toF32(from, x)), nil
	case kir.FPExt, kir.FPTrunc:
		return f.convFloat(from, from.Elem, to.Elem, x), nil
	default:
		return "", status.Errorf(status.Unimplemented, "conversion %s has no llvm-cpu lowering", k)
	}
	return r, nil
}

// clampedToInt converts float vector x (of type ft: f32 or f64) to the
// integers of type to with the saturating conversions' results (NaN
// gives 0, values beyond the type's range its bounds) in vector
// instructions: x clamped into the range and NaN replaced by zero
// converts without overflow, and lanes above the largest float within
// the range take the type's maximum.
func (f *fn) clampedToInt(unsigned bool, ft, to kir.Type, x string) string {
	// The type's range is [lo, 2^k - 1]; hiF is the largest float of ft
	// within it (2^k - 1 itself when the mantissa holds it).
	n := to.Elem.Bits()
	k, lo := n-1, -math.Ldexp(1, n-1)
	maxInt := int64(1)<<(n-1) - 1
	if unsigned {
		k, lo, maxInt = n, 0, -1 // all ones
	}
	p := 53
	if ft.Elem == kir.F32 {
		p = 24
	}
	hiF := math.Ldexp(1, k) - 1
	if k > p {
		hiF = math.Ldexp(1, k) - math.Ldexp(1, k-p)
	}
	loC, hiC := cst(ft, floatLit(ft.Elem, lo)), cst(ft, floatLit(ft.Elem, hiF))
	c := f.sel(ft, f.fcmp("olt", ft, x, loC), loC, x)
	c = f.sel(ft, f.fcmp("ogt", ft, c, hiC), hiC, c)
	c = f.sel(ft, f.fcmp("uno", ft, x, x), cst(ft, floatLit(ft.Elem, 0)), c)
	op := "fptosi"
	if unsigned {
		op = "fptoui"
	}
	r := f.t()
	f.emitf("%s = %s %s %s to %s", r, op, ty(ft), c, ty(to))
	return f.sel(to, f.fcmp("ogt", ft, x, hiC), ilit(to, maxInt), r)
}
