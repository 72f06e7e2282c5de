package vm

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/schemas/module"
)

// A straight-line function with static shapes and tensor constants: after
// simplify, no scalar or module constant is loaded twice, no instruction
// without effects has an unread result, every register is used, and
// constants are bound to dispatches without being discarded.
func TestSimplifyStraightLine(t *testing.T) {
	mod := build(t, `func.func @f(%a: tensor<4x8xf32>) -> tensor<4x16xf32> {
  %w = arith.constant dense<`+denseText(8, 16)+`> : tensor<8x16xf32>
  %b = arith.constant dense<`+denseText(4, 16)+`> : tensor<4x16xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m = linalg.matmul ins(%a, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  %r = arith.addf %m, %b : tensor<4x16xf32>
  %c = tensor.collapse_shape %r [[0, 1]] : tensor<4x16xf32> into tensor<64xf32>
  %x = math.exp %c : tensor<64xf32>
  %y = tensor.expand_shape %x [[0, 1]] output_shape [4, 16] : tensor<64xf32> into tensor<4x16xf32>
  %s = arith.mulf %y, %b : tensor<4x16xf32>
  return %s : tensor<4x16xf32>
}`)
	f := &mod.Functions[0]
	text := module.Disassemble(mod)
	t.Log(text)
	checkDiscards(t, f)
	seen := map[constKey]bool{}
	reads := map[int32]bool{}
	for _, in := range f.Code {
		for _, r := range in.Src {
			reads[r] = true
		}
	}
	used := map[int32]bool{}
	for pc, in := range f.Code {
		var k constKey
		switch in.Op {
		case module.OpConstI:
			k = constKey{in.Op, in.Type, in.Imm}
		case module.OpConstant:
			k = constKey{op: in.Op, bits: int64(in.Index)}
		}
		if k.op != 0 {
			if seen[k] {
				t.Errorf("instruction %d loads a constant again: %s", pc, module.InstrString(&in))
			}
			seen[k] = true
		}
		for _, d := range in.Dst {
			if pure(&in) && !reads[d] {
				t.Errorf("instruction %d (%s) writes %%r%d, which nothing reads", pc, module.InstrString(&in), d)
			}
			used[d] = true
		}
		for _, r := range in.Src {
			used[r] = true
		}
	}
	for r := len(f.Args); r < len(f.Regs); r++ {
		if !used[int32(r)] {
			t.Errorf("register %%r%d is unused", r)
		}
	}
	if strings.Contains(text, "const.f") {
		t.Errorf("the fill value stayed on the host although the kernel writes the matmul's result:\n%s", text)
	}
	if n := strings.Count(text, "= constant #"); n != 2 {
		t.Errorf("%d constant loads, want 2 (the weight and the bias, loaded once):\n%s", n, text)
	}
}

// removeDead keeps instructions that may fail and retargets branches over
// the instructions it drops.
func TestRemoveDeadKeepsEffectsAndRetargets(t *testing.T) {
	i64 := module.KindI64
	f := &module.Function{
		Name: "g", Args: []module.Kind{i64}, Results: []module.Kind{i64},
		Regs: []module.Kind{i64, i64, i64, i64, i64},
		Code: []module.Instr{
			{Op: module.OpConstI, Type: module.TypeI64, Dst: []int32{1}, Imm: 7},                                              // dead
			{Op: module.OpArith, Sub: uint8(module.ArithCeilDivS), Type: module.TypeI64, Dst: []int32{2}, Src: []int32{0, 0}}, // may fail: kept
			{Op: module.OpCondBranch, Src: []int32{0}, Index: 4, Index2: 6},
			{Op: module.OpConstI, Type: module.TypeI64, Dst: []int32{3}, Imm: 1}, // dead, unreachable
			{Op: module.OpConstI, Type: module.TypeI64, Dst: []int32{3}, Imm: 2}, // dead branch target
			{Op: module.OpReturn, Src: []int32{0}},
			{Op: module.OpArith, Sub: uint8(module.ArithAdd), Type: module.TypeI64, Dst: []int32{4}, Src: []int32{0, 0}},
			{Op: module.OpReturn, Src: []int32{4}},
		},
	}
	simplify(f)
	compactRegisters(f)
	text := module.Disassemble(&module.Module{Functions: []module.Function{*f}})
	want := []module.Opcode{module.OpArith, module.OpCondBranch, module.OpReturn, module.OpArith, module.OpReturn}
	if len(f.Code) != len(want) {
		t.Fatalf("code:\n%s", text)
	}
	for i, op := range want {
		if f.Code[i].Op != op {
			t.Fatalf("instruction %d is %s, want %s:\n%s", i, f.Code[i].Op, op, text)
		}
	}
	if br := f.Code[1]; br.Index != 2 || br.Index2 != 3 {
		t.Errorf("branch targets %d, %d, want 2, 3:\n%s", br.Index, br.Index2, text)
	}
	if len(f.Regs) != 3 || f.Code[0].Dst[0] != 1 || f.Code[3].Dst[0] != 2 || f.Code[4].Src[0] != 2 {
		t.Errorf("registers not compacted (%d):\n%s", len(f.Regs), text)
	}
}

// denseText is the text of an r×c dense literal of distinct values (a
// splat would be folded into the kernels).
func denseText(r, c int) string {
	var b strings.Builder
	b.WriteString("[")
	for i := 0; i < r; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("[")
		for j := 0; j < c; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%d.0", i*c+j)
		}
		b.WriteString("]")
	}
	b.WriteString("]")
	return b.String()
}

// compactRegisters renumbers each operand once even where instructions
// share an operand slice (the emitter reuses slices).
func TestCompactRegistersSharedOperands(t *testing.T) {
	i64 := module.KindI64
	shared := []int32{3, 3}
	f := &module.Function{
		Name: "h", Args: []module.Kind{i64}, Results: []module.Kind{i64},
		Regs: []module.Kind{i64, i64, i64, i64, i64, i64},
		Code: []module.Instr{
			{Op: module.OpConstI, Type: module.TypeI64, Dst: []int32{3}, Imm: 5},
			{Op: module.OpArith, Sub: uint8(module.ArithAdd), Type: module.TypeI64, Dst: []int32{4}, Src: shared},
			{Op: module.OpArith, Sub: uint8(module.ArithMul), Type: module.TypeI64, Dst: []int32{5}, Src: shared},
			{Op: module.OpArith, Sub: uint8(module.ArithAdd), Type: module.TypeI64, Dst: []int32{5}, Src: []int32{4, 5}},
			{Op: module.OpReturn, Src: []int32{5}},
		},
	}
	compactRegisters(f)
	for _, pc := range []int{1, 2} {
		if got := f.Code[pc].Src; got[0] != 1 || got[1] != 1 {
			t.Errorf("instruction %d reads %v, want [1 1]", pc, got)
		}
	}
	if len(f.Regs) != 4 {
		t.Errorf("%d registers, want 4", len(f.Regs))
	}
}
