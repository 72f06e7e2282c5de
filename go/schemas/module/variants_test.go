package module

import (
	"encoding/binary"
	"strings"
	"testing"
)

// variantsSample has one executable group of two variants and a dispatch
// with a workgroup-count triple for each.
func variantsSample() *Module {
	return &Module{
		Name: "mv",
		Functions: []Function{{
			Name: "f", Args: []Kind{KindRef}, Results: []Kind{KindRef},
			Regs: []Kind{KindRef, KindI64, KindI64},
			Code: []Instr{
				{Op: OpConstI, Type: TypeI64, Dst: []int32{1}, Imm: 1},
				{Op: OpConstI, Type: TypeI64, Dst: []int32{2}, Imm: 4},
				{Op: OpDispatch, Index: 0, Index2: 0, Src: []int32{1, 1, 1, 2, 1, 1, 0}},
				{Op: OpReturn, Src: []int32{0}},
			},
		}},
		Exports: []Export{{Name: "f", Function: 0}},
		Executables: []Executable{
			{Format: "llvm-cpu-elf", Entries: []string{"f_dispatch_0"}, Data: []byte("native")},
			{Format: "vmvx-bytecode", Entries: []string{"f_dispatch_0"}, Data: []byte("bytecode"), Variant: 1},
		},
	}
}

func TestVariantsRoundTripAsFormat2(t *testing.T) {
	data := Encode(variantsSample())
	if v := binary.LittleEndian.Uint32(data[8:]); v != VersionVariants {
		t.Fatalf("a module with variants is written as format %d, want %d", v, VersionVariants)
	}
	m, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if gs := m.Groups(); len(gs) != 1 || gs[0] != (Group{First: 0, Size: 2}) || m.VariantCount(0) != 2 || m.VariantCount(1) != 0 {
		t.Fatalf("groups %v", gs)
	}
	if m.Executables[1].Variant != 1 || string(m.Executables[1].Data) != "bytecode" {
		t.Fatalf("executable 1: %+v", m.Executables[1])
	}
	dis := Disassemble(m)
	for _, want := range []string{`executable 1 "vmvx-bytecode" variant 1 of executable 0`, "grid.v0(%r1, %r1, %r1) grid.v1(%r2, %r1, %r1) push() bindings(%r0)"} {
		if !strings.Contains(dis, want) {
			t.Errorf("disassembly lacks %q:\n%s", want, dis)
		}
	}
}

func TestModulesWithoutVariantsStayFormat1(t *testing.T) {
	m := variantsSample()
	m.Executables = m.Executables[:1]
	m.Functions[0].Code[2].Src = []int32{1, 1, 1, 0}
	data := Encode(m)
	if v := binary.LittleEndian.Uint32(data[8:]); v != Version {
		t.Fatalf("a module without variants is written as format %d, want %d", v, Version)
	}
	if _, err := Decode(data); err != nil {
		t.Fatal(err)
	}
	// Format 1 has no variant field: read as format 2, the executable
	// table is one byte short.
	data[8] = VersionVariants
	if _, err := Decode(data); err == nil {
		t.Fatal("a format 1 file read as format 2 decoded")
	}
	data[8] = 9
	if _, err := Decode(data); err == nil || !strings.Contains(err.Error(), "format version 9") {
		t.Fatalf("format 9: %v", err)
	}
}

func TestVerifyRejectsBadVariants(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(m *Module)
		want   string
	}{
		{"other entries", func(m *Module) { m.Executables[1].Entries = []string{"g"} }, "not its group's"},
		{"variant out of sequence", func(m *Module) { m.Executables[1].Variant = 2 }, "does not follow variant 1"},
		{"first executable an alternative", func(m *Module) { m.Executables[0].Variant = 1 }, "does not follow variant 0"},
		{"dispatch of an alternative", func(m *Module) { m.Functions[0].Code[2].Index = 1 }, "a dispatch names the group's first executable"},
		{"one triple for two variants", func(m *Module) { m.Functions[0].Code[2].Src = []int32{1, 1, 1, 0} }, "4 operands for 6 workgroup counts"},
		{"push constants past the operands", func(m *Module) { m.Functions[0].Code[2].Imm = 5 }, "6 workgroup counts and 5 push constants"},
	} {
		m := variantsSample()
		c.change(m)
		if err := Verify(m); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
	if err := Verify(variantsSample()); err != nil {
		t.Fatal(err)
	}
}

func FuzzDecodeVariants(f *testing.F) {
	f.Add(Encode(variantsSample()))
	f.Fuzz(func(t *testing.T, data []byte) {
		Decode(data)
	})
}
