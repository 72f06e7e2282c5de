package module

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/status"
)

func sample() *Module {
	return &Module{
		Name: "arith", Version: 0,
		Functions: []Function{{
			Name: "add", Args: []Kind{KindI32, KindI32}, Results: []Kind{KindI32},
			Regs: []Kind{KindI32, KindI32, KindI32},
			Code: []Instr{
				{Op: OpArith, Sub: uint8(ArithAdd), Type: TypeI32, Dst: []int32{2}, Src: []int32{0, 1}},
				{Op: OpReturn, Src: []int32{2}},
			},
		}},
		Exports:   []Export{{Name: "add", Function: 0}},
		Constants: []Constant{{ElementType: 0x21000020, Shape: []int64{2}, Data: []byte{0, 0, 128, 63, 0, 0, 0, 64}}},
	}
}

func TestRoundTrip(t *testing.T) {
	data := Encode(sample())
	m, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "arith" || len(m.Functions) != 1 || m.Functions[0].CConv() != "0ii_i" || string(m.Constants[0].Data) != string(sample().Constants[0].Data) {
		t.Fatalf("round trip lost data: %+v", m)
	}
	if !strings.Contains(Disassemble(m), "arith.1 t4 %r0, %r1") {
		t.Errorf("disassembly:\n%s", Disassemble(m))
	}
}

func TestCorruptFiles(t *testing.T) {
	data := Encode(sample())
	for n := 0; n < len(data); n++ {
		if _, err := Decode(data[:n]); err == nil {
			t.Fatalf("truncated to %d bytes: no error", n)
		}
	}
	for i := 0; i < len(data); i++ {
		for _, bit := range []byte{1, 0x80} {
			c := append([]byte(nil), data...)
			c[i] ^= bit
			Decode(c) // must not panic; some flips are harmless
		}
	}
	if _, err := Decode([]byte("not a module at all, clearly not.............................")); status.CodeOf(err) != status.InvalidArgument {
		t.Errorf("bad magic: %v", err)
	}
}

func TestVerifyRejects(t *testing.T) {
	m := sample()
	m.Functions[0].Code[0].Src = []int32{0, 7}
	if err := Verify(m); err == nil || !strings.Contains(err.Error(), "register 7 out of range") {
		t.Errorf("got %v", err)
	}
	m = sample()
	m.Functions[0].Code[0].Type = TypeF32
	if err := Verify(m); err == nil {
		t.Errorf("int op on float type accepted")
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(Encode(sample()))
	f.Fuzz(func(t *testing.T, data []byte) {
		Decode(data)
	})
}

func TestDiscard(t *testing.T) {
	m := sample()
	f := &m.Functions[0]
	f.Regs = append(f.Regs, KindRef)
	f.Code = append([]Instr{{Op: OpConstant, Index: 0, Dst: []int32{3}}, {Op: OpDiscard, Src: []int32{3}}}, f.Code...)
	d, err := Decode(Encode(m))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(Disassemble(d), "discard %r3") {
		t.Errorf("disassembly:\n%s", Disassemble(d))
	}
	f.Code[1].Src = []int32{0} // an i32 register holds no buffer
	if err := Verify(m); err == nil || !strings.Contains(err.Error(), "discard") {
		t.Errorf("discard of an i32 register: %v", err)
	}
}
