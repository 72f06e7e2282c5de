package vm

import (
	"math"

	"github.com/gree-ml/gree/go/schemas/module"
)

// simplify removes host work a finished function does not need. In
// straight-line code (no branches) a scalar constant or a module constant
// already in a register is reused rather than loaded again (each register
// is written once there, so the first load reaches every later use). Then
// instructions without effects whose results nothing reads are dropped:
// the fill values of tensors a kernel writes entirely, shapes only a
// kernel needed, duplicates of constants.
func simplify(f *module.Function) {
	if straightLine(f) {
		reuseConstants(f)
	}
	removeDead(f)
}

// straightLine reports whether f has no branches and writes each register
// at most once (arguments not at all).
func straightLine(f *module.Function) bool {
	written := make([]bool, len(f.Regs))
	for r := range f.Args {
		if r < len(written) {
			written[r] = true
		}
	}
	for _, in := range f.Code {
		if in.Op == module.OpBranch || in.Op == module.OpCondBranch {
			return false
		}
		for _, d := range in.Dst {
			if d < 0 || int(d) >= len(written) || written[d] {
				return false
			}
			written[d] = true
		}
	}
	return true
}

// constKey identifies what a constant-loading instruction puts in its
// register.
type constKey struct {
	op   module.Opcode
	typ  uint8
	bits int64
}

// reuseConstants points every read of a register loaded with a constant
// that an earlier register already holds at that register. The later
// load is left without readers, for removeDead.
func reuseConstants(f *module.Function) {
	rename := make([]int32, len(f.Regs))
	for i := range rename {
		rename[i] = int32(i)
	}
	first := map[constKey]int32{}
	for pc := range f.Code {
		in := &f.Code[pc]
		in.Src = renumbered(in.Src, rename)
		var k constKey
		switch in.Op {
		case module.OpConstI:
			k = constKey{in.Op, in.Type, in.Imm}
		case module.OpConstF:
			k = constKey{in.Op, in.Type, int64(math.Float64bits(in.F))}
		case module.OpConstant:
			k = constKey{op: in.Op, bits: int64(in.Index)}
		default:
			continue
		}
		if r, ok := first[k]; ok {
			rename[in.Dst[0]] = r
		} else {
			first[k] = in.Dst[0]
		}
	}
}

// pure reports whether in only writes its destination registers and
// cannot fail, so that it may go when nothing reads them.
func pure(in *module.Instr) bool {
	switch in.Op {
	case module.OpMove, module.OpConstI, module.OpConstF, module.OpConstant, module.OpCmp, module.OpSelect:
		return true
	case module.OpArith:
		switch module.ArithOp(in.Sub) {
		case module.ArithDivS, module.ArithDivU, module.ArithRemS, module.ArithRemU,
			module.ArithFloorDivS, module.ArithCeilDivS, module.ArithCeilDivU:
			return false // division by zero is an error
		}
		return true
	}
	return false
}

// removeDead drops pure instructions none of whose results is read, until
// none is left, and retargets branches.
func removeDead(f *module.Function) {
	reads := make([]int, len(f.Regs))
	valid := func(r int32) bool { return r >= 0 && int(r) < len(reads) }
	for _, in := range f.Code {
		for _, s := range in.Src {
			if valid(s) {
				reads[s]++
			}
		}
	}
	dead := make([]bool, len(f.Code))
	for changed := true; changed; {
		changed = false
		for pc := len(f.Code) - 1; pc >= 0; pc-- {
			in := &f.Code[pc]
			if dead[pc] || !pure(in) {
				continue
			}
			used := false
			for _, d := range in.Dst {
				used = used || !valid(d) || reads[d] > 0
			}
			if used {
				continue
			}
			dead[pc], changed = true, true
			for _, s := range in.Src {
				if valid(s) {
					reads[s]--
				}
			}
		}
	}
	out := make([]module.Instr, 0, len(f.Code))
	newPC := make([]int32, len(f.Code)+1)
	for pc := range f.Code {
		newPC[pc] = int32(len(out))
		if !dead[pc] {
			out = append(out, f.Code[pc])
		}
	}
	newPC[len(f.Code)] = int32(len(out))
	retargetBranches(out, newPC)
	f.Code = out
}

// retargetBranches points the branches of rewritten code at the new
// addresses of their targets: newPC maps each old address to its new one.
func retargetBranches(code []module.Instr, newPC []int32) {
	at := func(t int32) int32 {
		if t >= 0 && int(t) < len(newPC) {
			return newPC[t]
		}
		return t
	}
	for i := range code {
		switch code[i].Op {
		case module.OpBranch:
			code[i].Index = at(code[i].Index)
		case module.OpCondBranch:
			code[i].Index, code[i].Index2 = at(code[i].Index), at(code[i].Index2)
		}
	}
}

// compactRegisters renumbers f's registers so that those no instruction
// uses are gone (the interpreter clears a call's whole register file when
// it ends); arguments keep their numbers.
func compactRegisters(f *module.Function) {
	used := make([]bool, len(f.Regs))
	for r := range f.Args {
		if r < len(used) {
			used[r] = true
		}
	}
	for _, in := range f.Code {
		for _, rs := range [][]int32{in.Src, in.Dst} {
			for _, r := range rs {
				if r >= 0 && int(r) < len(used) {
					used[r] = true
				}
			}
		}
	}
	num := make([]int32, len(f.Regs))
	var regs []module.Kind
	for r, k := range f.Regs {
		if used[r] {
			num[r] = int32(len(regs))
			regs = append(regs, k)
		}
	}
	if len(regs) == len(f.Regs) {
		return
	}
	for pc := range f.Code {
		in := &f.Code[pc]
		in.Src, in.Dst = renumbered(in.Src, num), renumbered(in.Dst, num)
	}
	f.Regs = regs
}

// renumbered returns a new slice of registers rs, each r as num[r] (out of
// range: unchanged). It does not write rs: the emitter shares operand
// slices between instructions.
func renumbered(rs, num []int32) []int32 {
	out := make([]int32, len(rs))
	for i, r := range rs {
		out[i] = r
		if r >= 0 && int(r) < len(num) {
			out[i] = num[r]
		}
	}
	return out
}
