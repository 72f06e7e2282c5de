package vmvx

import (
	"math/rand/v2"
	"testing"

	"github.com/gree-ml/gree/go/schemas/vmvx"
	"github.com/gree-ml/gree/go/status"
)

// randomEntry builds a random entry that passes verification: random typed
// registers and random instructions (of opcodes pick draws), each kept
// only if the entry still verifies. Jumps go forward only, so every run
// terminates.
func randomEntry(r *rand.Rand, pick func(*rand.Rand) vmvx.Opcode) vmvx.Entry {
	elems := []vmvx.Elem{vmvx.I1, vmvx.I8, vmvx.I16, vmvx.I32, vmvx.I64, vmvx.F16, vmvx.BF16, vmvx.F32, vmvx.F64}
	e := vmvx.Entry{Name: "random", WorkgroupSize: [3]uint32{1, 1, 1}, NumPushConstants: 2}
	if r.IntN(3) == 0 {
		e.WorkgroupSize = [3]uint32{uint32(1 + r.IntN(4)), uint32(1 + r.IntN(3)), 1}
	}
	for i := 0; i < 4; i++ {
		e.Bindings = append(e.Bindings, vmvx.Binding{Elem: elems[r.IntN(len(elems))], Access: vmvx.Access(1 + r.IntN(3))})
	}
	e.Shared = []vmvx.Shared{{Elem: vmvx.F32, Count: 16}}
	for i := 0; i < 24; i++ {
		lanes := []uint32{1, 1, 1, 3, 8}[r.IntN(5)]
		e.Regs = append(e.Regs, vmvx.RegType{Elem: elems[r.IntN(len(elems))], Lanes: lanes})
	}
	// Some i64 scalars with small values for offsets, and an i1 condition.
	for i := 0; i < 4; i++ {
		e.Regs = append(e.Regs, vmvx.RegType{Elem: vmvx.I64, Lanes: 1})
		e.Code = append(e.Code, vmvx.Instr{Op: vmvx.ConstInt, Dst: uint32(len(e.Regs) - 1), Imm: int64(r.IntN(5)) - 1})
	}
	// reg picks a register, favouring the i64 scalars (which many operands
	// need) and registers of the same type as the instruction's first.
	var like vmvx.RegType
	reg := func() uint32 {
		switch r.IntN(3) {
		case 0:
			return uint32(len(e.Regs) - 1 - r.IntN(4))
		case 1:
			for range 8 {
				if i := r.IntN(len(e.Regs)); e.Regs[i] == like {
					return uint32(i)
				}
			}
		}
		return uint32(r.IntN(len(e.Regs)))
	}
	const n = 60
	for tries := 0; len(e.Code) < n && tries < 4000; tries++ {
		op := pick(r)
		like = e.Regs[r.IntN(len(e.Regs))]
		in := vmvx.Instr{Op: op, Dst: reg()}
		for _, c := range op.Layout() {
			switch c {
			case 'r':
				if op == vmvx.Contract {
					in.Args = append(in.Args, uint32(len(e.Regs)-1-r.IntN(4)))
					continue
				}
				in.Args = append(in.Args, reg())
			case 'i':
				in.Imm = int64(r.Uint64())
			case 'u':
				in.Imm = int64(r.IntN(16))
			case 'f':
				in.Imm = vmvx.FloatImm(r.NormFloat64() * 10)
			case 't':
				in.Target = uint32(len(e.Code) + 1 + r.IntN(n-len(e.Code)))
			}
		}
		binds := 0
		for _, c := range op.Layout() {
			if c == 'b' {
				in.Bindings[binds] = uint32(r.IntN(4))
				binds++
			}
		}
		e.Code = append(e.Code, in)
		if vmvx.Verify(&vmvx.Executable{Entries: []vmvx.Entry{e}}) != nil {
			e.Code = e.Code[:len(e.Code)-1]
		}
	}
	for i := range e.Code { // targets past the end are clipped to the end
		if int(e.Code[i].Target) > len(e.Code) {
			e.Code[i].Target = uint32(len(e.Code))
		}
	}
	return e
}

// firstOpcodes draws the opcodes up to ForNext, those of the format's
// first version, with the random stream the tests' seeds were chosen for.
func firstOpcodes(r *rand.Rand) vmvx.Opcode { return vmvx.Opcode(1 + r.IntN(int(vmvx.ForNext))) }

// TestRandomPrograms runs random verified programs: they may fail, but
// never with an internal error (a recovered panic).
func TestRandomPrograms(t *testing.T) {
	// The programs of opcodes up to ForNext are drawn as they always were;
	// a second series draws the opcodes added since too, but no contract
	// (a contract whose strides are zero runs as long as its sizes say,
	// and a random register may hold 2^62: some seeds make programs that
	// do not end in practice).
	first := firstOpcodes
	later := func(r *rand.Rand) vmvx.Opcode {
		for {
			if op := vmvx.Opcode(1 + r.IntN(vmvx.NumOpcodes-1)); op != vmvx.Contract {
				return op
			}
		}
	}
	ops := map[vmvx.Opcode]bool{}
	runRandom(t, rand.New(rand.NewPCG(42, 43)), first, 400, ops)
	runRandom(t, rand.New(rand.NewPCG(44, 45)), later, 200, ops)
	if len(ops) < vmvx.NumOpcodes-6 {
		t.Errorf("the programs used only %d opcodes", len(ops))
	}
}

// runRandom runs n random programs of opcodes pick draws, recording the
// opcodes in ops.
func runRandom(t *testing.T, r *rand.Rand, pick func(*rand.Rand) vmvx.Opcode, n int, ops map[vmvx.Opcode]bool) {
	t.Helper()
	for i := 0; i < n; i++ {
		e := randomEntry(r, pick)
		for _, in := range e.Code {
			ops[in.Op] = true
		}
		ex := mustLoad(t, &vmvx.Executable{Entries: []vmvx.Entry{e}})
		bufs := make([][]byte, len(e.Bindings))
		for j := range bufs {
			bufs[j] = make([]byte, 8*r.IntN(12))
			for k := range bufs[j] {
				bufs[j][k] = byte(r.Uint32())
			}
		}
		err := ex.RunWorkgroup(NewState(), 0, [3]int64{}, [3]int64{1, 1, 1}, []int64{int64(r.IntN(4)), 1}, bufs)
		if status.CodeOf(err) == status.Internal {
			t.Fatalf("program %d: %v", i, err)
		}
	}
}
