package vmvx

import (
	"encoding/binary"
	"hash/crc32"
	"reflect"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/status"
)

// sample returns a small valid executable using most operand kinds.
func sample() *Executable {
	i64, f8, f1, b1 := RegType{I64, 1}, RegType{F32, 8}, RegType{F32, 1}, RegType{I1, 1}
	return &Executable{Entries: []Entry{{
		Name:             "scale",
		WorkgroupSize:    [3]uint32{1, 1, 1},
		NumPushConstants: 1,
		Bindings:         []Binding{{F32, Read}, {F32, ReadWrite}},
		Regs:             []RegType{i64, i64, i64, f8, f8, f1, b1, i64},
		Code: []Instr{
			{Op: PushConstant, Dst: 0, Imm: 0},
			{Op: ConstInt, Dst: 1, Imm: 0},
			{Op: ConstInt, Dst: 2, Imm: 8},
			{Op: ConstFloat, Dst: 4, Imm: FloatImm(1.5)},
			{Op: ForInit, Args: []uint32{7, 1, 0, 2}, Target: 10},
			{Op: Load, Dst: 3, Args: []uint32{7}},
			{Op: Mul, Dst: 3, Args: []uint32{3, 4}},
			{Op: Reduce, Dst: 5, Args: []uint32{3}, Imm: ReduceAdd},
			{Op: Store, Args: []uint32{7, 3}, Bindings: [3]uint32{1}},
			{Op: ForNext, Args: []uint32{7, 0, 2}, Target: 5},
			{Op: CmpF, Dst: 6, Args: []uint32{5, 5}, Imm: 4},
			{Op: Jz, Args: []uint32{6}, Target: 13},
			{Op: Store, Args: []uint32{1, 5}, Bindings: [3]uint32{1}},
		},
	}, {
		Name:          "empty",
		WorkgroupSize: [3]uint32{4, 2, 1},
		Shared:        []Shared{{I32, 16}},
		Regs:          []RegType{{F16, 1}},
		Code:          []Instr{{Op: Barrier}, {Op: Jmp, Target: 2}},
	}}}
}

func TestRoundTrip(t *testing.T) {
	x := sample()
	data, err := Encode(x)
	if err != nil {
		t.Fatal(err)
	}
	y, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(x, y) {
		t.Errorf("round trip changed the executable:\n%+v\n%+v", x, y)
	}
	again, _ := Encode(y)
	if string(again) != string(data) {
		t.Errorf("re-encoding differs")
	}
}

func TestDecodeDamaged(t *testing.T) {
	data, err := Encode(sample())
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(data); n++ {
		if _, err := Decode(data[:n]); err == nil {
			t.Fatalf("truncated to %d bytes: no error", n)
		} else if c := status.CodeOf(err); c != status.DataLoss && c != status.InvalidArgument {
			t.Fatalf("truncated to %d: code %v", n, c)
		}
	}
	for i := 0; i < 8*len(data); i++ {
		d := append([]byte(nil), data...)
		d[i/8] ^= 1 << (i % 8)
		if _, err := Decode(d); err == nil {
			t.Fatalf("bit %d flipped: no error", i)
		}
	}
	if _, err := Decode(append(data, 0)); status.CodeOf(err) != status.DataLoss {
		t.Errorf("trailing byte: %v", err)
	}
	bad := append([]byte(nil), data...)
	copy(bad, "NOPE")
	if _, err := Decode(bad); status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "magic") {
		t.Errorf("bad magic: %v", err)
	}
	binary.LittleEndian.PutUint16(bad[4:], 2)
	copy(bad, Magic)
	if _, err := Decode(bad); status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "version") {
		t.Errorf("bad version: %v", err)
	}
}

// reseal fixes the length and checksum of a modified body so Decode gets
// past the header to the structural checks.
func reseal(d []byte) []byte {
	binary.LittleEndian.PutUint32(d[8:], uint32(len(d)-HeaderSize))
	binary.LittleEndian.PutUint32(d[12:], crc32.ChecksumIEEE(d[HeaderSize:]))
	return d
}

func TestDecodeDamagedBody(t *testing.T) {
	data, _ := Encode(sample())
	for i := HeaderSize; i < len(data); i++ {
		for _, v := range []byte{0, 1, 0x7f, 0x80, 0xff, data[i] + 1} {
			d := append([]byte(nil), data...)
			d[i] = v
			_, _ = Decode(reseal(d)) // must not panic
		}
		d := append(append([]byte(nil), data[:i]...), data[i+1:]...)
		_, _ = Decode(reseal(d))
	}
}

func TestVerifyRejects(t *testing.T) {
	cases := []struct {
		name string
		edit func(e *Entry)
		want string
	}{
		{"register range", func(e *Entry) { e.Code[5].Dst = 99 }, "destination register 99"},
		{"operand range", func(e *Entry) { e.Code[6].Args[1] = 8 }, "operand register 8"},
		{"jump target", func(e *Entry) { e.Code[11].Target = 14 }, "jump target 14"},
		{"opcode", func(e *Entry) { e.Code[0].Op = Opcode(NumOpcodes) }, "invalid opcode"},
		{"binding", func(e *Entry) { e.Code[8].Bindings[0] = 2 }, "binding 2 of 2"},
		{"write read-only", func(e *Entry) { e.Code[8].Bindings[0] = 0 }, "not accessible"},
		{"types differ", func(e *Entry) { e.Code[6].Args[1] = 5 }, "differ"},
		{"int op on float", func(e *Entry) { e.Code[6].Op = DivS }, "not defined on"},
		{"push constant", func(e *Entry) { e.Code[0].Imm = 1 }, "push constant 1 of 1"},
		{"reduce kind", func(e *Entry) { e.Code[7].Imm = ReduceXor }, "reduction kind"},
		{"predicate", func(e *Entry) { e.Code[10].Imm = 16 }, "predicate 16"},
		{"jz cond", func(e *Entry) { e.Code[11].Args[0] = 0 }, "want i1"},
		{"loop bound type", func(e *Entry) { e.Code[4].Args[2] = 5 }, "want i64"},
		{"arg count", func(e *Entry) { e.Code[6].Args = e.Code[6].Args[:1] }, "register operands"},
		{"lanes", func(e *Entry) { e.Regs[3].Lanes = MaxLanes + 1 }, "invalid type"},
		{"elem", func(e *Entry) { e.Regs[3].Elem = 10 }, "invalid type"},
		{"binding elem", func(e *Entry) { e.Bindings[0].Elem = 0 }, "invalid element type"},
		{"access", func(e *Entry) { e.Bindings[0].Access = 4 }, "invalid access"},
		{"workgroup", func(e *Entry) { e.WorkgroupSize = [3]uint32{64, 64, 1} }, "threads"},
		{"name", func(e *Entry) { e.Name = "" }, "name"},
		{"register bytes", func(e *Entry) {
			for i := 0; i < 300; i++ {
				e.Regs = append(e.Regs, RegType{F64, MaxLanes})
			}
		}, "registers take"},
		{"load elem", func(e *Entry) { e.Bindings[0].Elem = I32 }, "loads vector<8xf32> from a buffer of i32"},
	}
	for _, c := range cases {
		x := sample()
		c.edit(&x.Entries[0])
		err := Verify(x)
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		if status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want INVALID_ARGUMENT mentioning %q", c.name, err, c.want)
		}
	}
	x := sample()
	x.Entries[1].Name = "scale"
	if err := Verify(x); err == nil || !strings.Contains(err.Error(), "both named") {
		t.Errorf("duplicate names: %v", err)
	}
}

func FuzzDecode(f *testing.F) {
	data, _ := Encode(sample())
	f.Add(data)
	f.Add(data[:HeaderSize+3])
	f.Fuzz(func(t *testing.T, d []byte) {
		if len(d) >= HeaderSize {
			copy(d, Magic)
			binary.LittleEndian.PutUint16(d[4:], Version)
			binary.LittleEndian.PutUint16(d[6:], 0)
			d = reseal(d)
		}
		x, err := Decode(d)
		if err != nil {
			return
		}
		out, err := Encode(x)
		if err != nil {
			t.Fatalf("decoded executable does not re-encode: %v", err)
		}
		if _, err := Decode(out); err != nil {
			t.Fatalf("re-encoded executable does not decode: %v", err)
		}
	})
}
