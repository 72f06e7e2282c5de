package vm

import (
	"github.com/gree-ml/gree/go/compiler/codegen"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/linalg"
	"github.com/gree-ml/gree/go/schemas/module"
)

// dispatch emits the host side of one dispatch region: result shapes (from
// the generic's inits), allocation, push constants, the workgroup grid and
// the dispatch instruction.
func (fe *fnEmitter) dispatch(region *ir.Operation) error {
	ref, ok := fe.e.in.Dispatches[region]
	if !ok {
		return ir.OpErrorf(region, "has no kernel (internal error)")
	}
	// Result shapes: each region result is a generic result whose init
	// tensor is captured from the host.
	ret := region.Regions[0].Blocks[0].Terminator()
	for k, res := range region.Results {
		if rt := res.Type.(*ir.RankedTensorType); ir.HasStaticShape(rt) {
			// Static: no init needed (a recurrence's results are its
			// loop's and workspaces).
			fe.tensors[res] = &tensor{reg: -1, dims: staticOr(rt, nil), typ: rt}
			continue
		}
		gv := ret.Operands[k]
		var inits []*ir.Value
		if g, ok := linalg.AsGeneric(gv.Owner()); ok {
			inits = g.Outputs()
		} else if linalg.IsExtOp(gv.Owner()) {
			inits = linalg.ExtInits(gv.Owner())
		} else {
			return ir.OpErrorf(region, "returns a value that is not a generic result (internal error)")
		}
		init, err := fe.tensorOf(inits[gv.Index()])
		if err != nil {
			return err
		}
		rt := res.Type.(*ir.RankedTensorType)
		fe.tensors[res] = &tensor{reg: -1, dims: staticOr(rt, init.dims), typ: rt}
	}
	if fe.dead[region] {
		// Only the shapes are used (by consumers that absorbed it).
		return nil
	}
	// Allocate the results the kernel writes. One it does not bind (a
	// consumer absorbed its computation) stays an unmaterialized zero
	// tensor, allocated only if the host ever needs it.
	for _, res := range region.Results {
		if !bindsValue(ref, res) {
			continue
		}
		if pl, ok := fe.place.pieces[res]; ok {
			// Written where its concatenation holds it.
			r, err := fe.subview(pl, res.Type.(*ir.RankedTensorType))
			if err != nil {
				return err
			}
			fe.tensors[res].reg = r
			continue
		}
		r, err := fe.ref(res)
		if err != nil {
			return err
		}
		fe.tensors[res].reg = r
		// A result the kernel only writes needs no zeroing.
		if !readsBinding(ref, res) {
			fe.f.Code[len(fe.f.Code)-1].Sub = 1
		}
	}
	var src []int32
	pushRegs := make([]int32, len(ref.Push))
	for i, p := range ref.Push {
		r, err := fe.pushValue(region, p.Value, p.Dim)
		if err != nil {
			return err
		}
		pushRegs[i] = r
	}
	// Workgroup counts: one triple per variant of the executable (its
	// first target's kernel, then the other targets'), each from its own
	// kernel's grid.
	for _, k := range append([]*kir.Kernel{ref.Kernel}, ref.Variants...) {
		src = append(src, fe.workgroupCounts(k, pushRegs)...)
	}
	src = append(src, pushRegs...)
	for _, b := range ref.Bindings {
		r, err := fe.ref(b)
		if err != nil {
			return err
		}
		src = append(src, r)
	}
	name := ref.Kernel.Name + "::" + ref.Kernel.Name
	var ins, outs []int32
	if fe.e.in.Trace {
		for i, b := range ref.Bindings {
			r := src[3*(1+len(ref.Variants))+len(ref.Push)+i]
			if b.Owner() == region {
				outs = append(outs, r)
			} else {
				ins = append(ins, r)
			}
		}
		fe.emit(module.Instr{Op: module.OpTrace, Str: name + " inputs", Src: ins})
	}
	fe.emit(module.Instr{Op: module.OpDispatch, Index: int32(ref.Executable), Index2: int32(ref.Entry), Imm: int64(len(ref.Push)), Src: src})
	if fe.e.in.Trace {
		fe.emit(module.Instr{Op: module.OpTrace, Str: name + " outputs", Src: outs})
	}
	return nil
}

// workgroupCounts returns i64 registers with kernel k's workgroup counts
// (x, y, z) for the push constants in pushRegs.
func (fe *fnEmitter) workgroupCounts(k *kir.Kernel, pushRegs []int32) []int32 {
	var src []int32
	for _, gd := range k.Grid {
		if len(gd.PushConstants) == 0 {
			n := codegen.CeilDiv(gd.Static, max(gd.Tile, 1))
			if gd.Max > 0 {
				n = min(n, gd.Max)
			}
			src = append(src, fe.constI64(n))
			continue
		}
		r := fe.constI64(gd.Static)
		for _, pi := range gd.PushConstants {
			r = fe.arithI64(module.ArithMul, r, pushRegs[pi])
		}
		if gd.Tile > 1 {
			r = fe.arithI64(module.ArithCeilDivS, r, fe.constI64(gd.Tile))
		}
		if gd.Max > 0 {
			r = fe.arithI64(module.ArithMinS, r, fe.constI64(gd.Max))
		}
		src = append(src, r)
	}
	return src
}

// pushValue returns an i64 register with a push constant's value.
func (fe *fnEmitter) pushValue(region *ir.Operation, v *ir.Value, d int) (int32, error) {
	if d >= 0 {
		t, err := fe.tensorOf(v)
		if err != nil {
			return 0, err
		}
		return fe.dimReg(t.dims[d]), nil
	}
	r, err := fe.scalar(v)
	if err != nil {
		return 0, err
	}
	st, ok := scalarType(v.Type)
	if !ok {
		return 0, ir.OpErrorf(region, "captures a scalar of type %s, which gree cannot pass to a kernel", v.Type)
	}
	switch st {
	case module.TypeI64:
		return r, nil
	case module.TypeF64:
		out := fe.newReg(module.KindI64)
		fe.emit(module.Instr{Op: module.OpCast, Sub: uint8(module.CastBitcast), Type: st, Type2: module.TypeI64, Dst: []int32{out}, Src: []int32{r}})
		return out, nil
	case module.TypeF32, module.TypeF16, module.TypeBF16:
		bits := fe.newReg(module.KindI32)
		it := map[uint8]uint8{module.TypeF32: module.TypeI32, module.TypeF16: module.TypeI16, module.TypeBF16: module.TypeI16}[st]
		fe.emit(module.Instr{Op: module.OpCast, Sub: uint8(module.CastBitcast), Type: st, Type2: it, Dst: []int32{bits}, Src: []int32{r}})
		out := fe.newReg(module.KindI64)
		fe.emit(module.Instr{Op: module.OpCast, Sub: uint8(module.CastExtU), Type: it, Type2: module.TypeI64, Dst: []int32{out}, Src: []int32{bits}})
		return out, nil
	}
	out := fe.newReg(module.KindI64)
	fe.emit(module.Instr{Op: module.OpCast, Sub: uint8(module.CastExtS), Type: st, Type2: module.TypeI64, Dst: []int32{out}, Src: []int32{r}})
	return out, nil
}

func (fe *fnEmitter) arithI64(op module.ArithOp, a, b int32) int32 {
	r := fe.newReg(module.KindI64)
	fe.emit(module.Instr{Op: module.OpArith, Sub: uint8(op), Type: module.TypeI64, Dst: []int32{r}, Src: []int32{a, b}})
	return r
}

// readsBinding reports whether the kernel (or any of its variants) reads
// tensor v's binding before writing it (or does not bind it at all, in
// which case it must stay zero).
func readsBinding(ref DispatchRef, v *ir.Value) bool {
	for i, b := range ref.Bindings {
		if b != v {
			continue
		}
		if ref.WrittenFirst[i] {
			return false
		}
		for _, k := range append([]*kir.Kernel{ref.Kernel}, ref.Variants...) {
			if k.Bindings[i].Access&kir.Read != 0 {
				return true
			}
		}
		return false
	}
	return true
}

// bindsValue reports whether the kernel has a binding for tensor v.
func bindsValue(ref DispatchRef, v *ir.Value) bool {
	for _, b := range ref.Bindings {
		if b == v {
			return true
		}
	}
	return false
}
