package vmvx

import (
	"strings"
	"testing"
)

// TestVerifyFlowRejects checks the control-flow rules on edits of sample()
// (its loop is instructions 4..9): each would let a kernel loop forever or
// run a loop body with a counter no for_init set. The first is the change
// the reliability suite's mutation made (a for_next retargeted), which hung
// the interpreter.
func TestVerifyFlowRejects(t *testing.T) {
	for _, tc := range []struct {
		name  string
		entry int
		edit  func(e *Entry)
		want  string
	}{
		{"for_next retargeted", 0, func(e *Entry) { e.Code[9].Target = 0 }, "a for_next that jumps back to 5"},
		{"for_init past its for_next", 0, func(e *Entry) { e.Code[4].Target = 11 }, "must follow a for_next"},
		{"other counter", 0, func(e *Entry) { e.Code[9].Args[0] = 1 }, "are not its for_init's"},
		{"body writes the step", 0, func(e *Entry) { e.Code[7] = Instr{Op: ConstInt, Dst: 2, Imm: 1} },
			"counter, bound or step of the loop at 4..9"},
		{"body writes the counter", 0, func(e *Entry) { e.Code[7] = Instr{Op: ConstInt, Dst: 7, Imm: 0} },
			"writes register 7"},
		{"inner loop reuses the counter", 0, func(e *Entry) {
			e.Code[6] = Instr{Op: ForInit, Args: []uint32{7, 1, 0, 2}, Target: 8}
			e.Code[7] = Instr{Op: ForNext, Args: []uint32{7, 0, 2}, Target: 7}
		}, "writes register 7"},
		{"jump into a loop", 0, func(e *Entry) { e.Code[3] = Instr{Op: Jmp, Target: 6} }, "inside a loop it is not in"},
		{"jz backwards", 0, func(e *Entry) { e.Code[11].Target = 2 }, "jumps back to 2"},
		{"jmp to itself", 1, func(e *Entry) { e.Code[1].Target = 1 }, "jumps back to 1"},
	} {
		x := sample()
		tc.edit(&x.Entries[tc.entry])
		err := Verify(x)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
	if err := Verify(sample()); err != nil {
		t.Fatalf("sample: %v", err)
	}
}

// TestVerifyFlowNestedLoops accepts loops nested two deep with an if
// inside, exiting forward, as the compiler emits them.
func TestVerifyFlowNestedLoops(t *testing.T) {
	i64, b1 := RegType{I64, 1}, RegType{I1, 1}
	x := &Executable{Entries: []Entry{{
		Name:          "nest",
		WorkgroupSize: [3]uint32{1, 1, 1},
		Regs:          []RegType{i64, i64, i64, i64, i64, b1},
		Code: []Instr{
			{Op: ConstInt, Dst: 0, Imm: 0},
			{Op: ConstInt, Dst: 1, Imm: 4},
			{Op: ConstInt, Dst: 2, Imm: 1},
			{Op: ForInit, Args: []uint32{3, 0, 1, 2}, Target: 10}, // 3..9
			{Op: ForInit, Args: []uint32{4, 0, 1, 2}, Target: 9},  // 4..8
			{Op: CmpI, Dst: 5, Args: []uint32{3, 4}, Imm: 0},
			{Op: Jz, Args: []uint32{5}, Target: 8},
			{Op: Jmp, Target: 8},
			{Op: ForNext, Args: []uint32{4, 1, 2}, Target: 5},
			{Op: ForNext, Args: []uint32{3, 1, 2}, Target: 4},
		},
	}}}
	if err := Verify(x); err != nil {
		t.Fatal(err)
	}
	x.Entries[0].Code[4].Target = 11 // the inner loop past the outer one
	x.Entries[0].Code[8].Target = 5
	if err := Verify(x); err == nil {
		t.Fatal("overlapping loops verified")
	}
}
