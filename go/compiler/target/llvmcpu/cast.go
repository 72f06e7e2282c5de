package llvmcpu

import (
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
		name += mangle(to.Elem, to.Width()) + mangle(wf.Elem, wf.Width())
		return f.call(ty(to), name, ty(wf), f.toF32(from, x)), nil
	case kir.FPExt, kir.FPTrunc:
		return f.convFloat(from, from.Elem, to.Elem, x), nil
	default:
		return "", status.Errorf(status.Unimplemented, "conversion %s has no llvm-cpu lowering", k)
	}
	return r, nil
}
