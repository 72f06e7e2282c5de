package vm

import (
	"math"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/schemas/module"
	"github.com/gree-ml/gree/go/status"
)

// sumTo is a host function: s = 0; for i in [0, n): s += i; return s.
func sumTo() *module.Module {
	I := func(op module.Opcode, dst []int32, src []int32) module.Instr {
		return module.Instr{Op: op, Dst: dst, Src: src}
	}
	code := []module.Instr{
		{Op: module.OpConstI, Type: module.TypeI64, Dst: []int32{1}, Imm: 0},                  // 0: s = 0
		{Op: module.OpConstI, Type: module.TypeI64, Dst: []int32{2}, Imm: 0},                  // 1: i = 0
		{Op: module.OpConstI, Type: module.TypeI64, Dst: []int32{3}, Imm: 1},                  // 2: one
		{Op: module.OpCmp, Sub: 2, Type: module.TypeI64, Dst: []int32{4}, Src: []int32{2, 0}}, // 3: i < n
		{Op: module.OpCondBranch, Src: []int32{4}, Index: 5, Index2: 8},                       // 4
		{Op: module.OpArith, Sub: uint8(module.ArithAdd), Type: module.TypeI64, Dst: []int32{1}, Src: []int32{1, 2}},
		{Op: module.OpArith, Sub: uint8(module.ArithAdd), Type: module.TypeI64, Dst: []int32{2}, Src: []int32{2, 3}},
		{Op: module.OpBranch, Index: 3},
		I(module.OpReturn, nil, []int32{1}),
	}
	return &module.Module{
		Name: "m",
		Functions: []module.Function{{
			Name: "sum", Args: []module.Kind{module.KindI64}, Results: []module.Kind{module.KindI64},
			Regs: []module.Kind{module.KindI64, module.KindI64, module.KindI64, module.KindI64, module.KindI32},
			Code: code,
		}},
		Exports: []module.Export{{Name: "sum", Function: 0}},
	}
}

func load(t *testing.T, m *module.Module) *Context {
	t.Helper()
	mod, err := LoadModule(module.Encode(m))
	if err != nil {
		t.Fatal(err)
	}
	c := NewContext(nil)
	if err := c.Register(mod); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestLoopAndCall(t *testing.T) {
	c := load(t, sumTo())
	res, err := c.Invoke("m", "sum", []Value{I64(100)})
	if err != nil || len(res) != 1 || res[0].I != 4950 {
		t.Fatalf("sum(100) = %v, %v", res, err)
	}
	if _, err := c.Invoke("m", "sum", []Value{I32(1)}); status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "argument 0 must be an i64") {
		t.Errorf("wrong kind: %v", err)
	}
	if _, err := c.Invoke("m", "nope", nil); status.CodeOf(err) != status.NotFound {
		t.Errorf("missing function: %v", err)
	}
}

func TestScalarSemantics(t *testing.T) {
	regs := []Value{I32(-7), I32(2), I32(0), Value{Kind: KindI32, I: -128}}
	check := func(op module.ArithOp, ty uint8, a, b int32, want int64) {
		t.Helper()
		v, err := arith(op, ty, regs, []int32{a, b})
		if err != nil || v.I != want {
			t.Errorf("arith %d(%v, %v) = %v, %v; want %d", op, regs[a].I, regs[b].I, v.I, err, want)
		}
	}
	check(module.ArithDivS, module.TypeI32, 0, 1, -3)
	check(module.ArithRemS, module.TypeI32, 0, 1, -1)
	check(module.ArithFloorDivS, module.TypeI32, 0, 1, -4)
	check(module.ArithCeilDivS, module.TypeI32, 0, 1, -3)
	check(module.ArithAdd, module.TypeI8, 3, 3, 0) // -128 + -128 wraps in i8
	check(module.ArithShrU, module.TypeI8, 3, 1, 32)
	if _, err := arith(module.ArithDivS, module.TypeI32, regs, []int32{0, 2}); err == nil {
		t.Error("division by zero accepted")
	}
	if v := cast(module.CastFPToSI, module.TypeF32, module.TypeI32, F32(-2.7)); v.I != -2 {
		t.Errorf("fptosi(-2.7) = %d", v.I)
	}
	if v := cast(module.CastBitcast, module.TypeF32, module.TypeI32, F32(1)); v.I != 0x3f800000 {
		t.Errorf("bitcast(1.0f) = %x", v.I)
	}
	if v := floatValue(module.TypeF16, 1+1.0/4096); v.F != 1 {
		t.Errorf("f16 rounding: %v", v.F)
	}
	if v := compare(11, module.TypeF32, F32(float32(math.NaN())), F32(1)); v.I != 1 {
		t.Error("ult with NaN must be true")
	}
	if v := compare(4, module.TypeF32, F32(float32(math.NaN())), F32(1)); v.I != 0 {
		t.Error("olt with NaN must be false")
	}
}

// TestRegisterFilesStartZeroed: a call reuses the register file of a
// finished one, which must look fresh: here r1 is read before any write
// (the zero of its kind), then written, so a file handed on as it was
// left would make the second call return 10.
func TestRegisterFilesStartZeroed(t *testing.T) {
	m := &module.Module{
		Name: "m",
		Functions: []module.Function{{
			Name: "f", Args: []module.Kind{module.KindI64}, Results: []module.Kind{module.KindI64},
			Regs: []module.Kind{module.KindI64, module.KindI64},
			Code: []module.Instr{
				{Op: module.OpArith, Sub: uint8(module.ArithAdd), Type: module.TypeI64, Dst: []int32{1}, Src: []int32{1, 0}},
				{Op: module.OpReturn, Src: []int32{1}},
			},
		}},
		Exports: []module.Export{{Name: "f", Function: 0}},
	}
	c := load(t, m)
	for i := 0; i < 3; i++ {
		res, err := c.Invoke("m", "f", []Value{I64(5)})
		if err != nil || len(res) != 1 || res[0].I != 5 {
			t.Fatalf("call %d: f(5) = %v, %v; want 5", i, res, err)
		}
	}
}
