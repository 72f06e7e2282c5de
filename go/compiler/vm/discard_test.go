package vm

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/schemas/module"
)

// checkDiscards verifies a function's discards with a forward dataflow
// independent of the liveness analysis that placed them: on no path is a
// register read after a discard without being written in between, no
// argument is discarded, and every buffer a register holds is discarded or
// returned on every path to a return (nothing is left for the garbage
// collector), except module constants, which are the module's.
func checkDiscards(t *testing.T, f *module.Function) {
	t.Helper()
	n := len(f.Code)
	type state struct {
		dropped, held map[int32]bool // maybe discarded / maybe holding an undiscarded buffer
	}
	constant := f.ConstantRegisters() // module constants need no discard
	in := make([]*state, n)
	in[0] = &state{map[int32]bool{}, map[int32]bool{}}
	work := []int{0}
	// merge adds s into the entry state of pc and reports whether it grew.
	merge := func(pc int, s *state) bool {
		grew := in[pc] == nil
		if grew {
			in[pc] = &state{map[int32]bool{}, map[int32]bool{}}
		}
		for r := range s.dropped {
			if !in[pc].dropped[r] {
				in[pc].dropped[r], grew = true, true
			}
		}
		for r := range s.held {
			if !in[pc].held[r] {
				in[pc].held[r], grew = true, true
			}
		}
		return grew
	}
	for len(work) > 0 {
		pc := work[len(work)-1]
		work = work[:len(work)-1]
		ins := &f.Code[pc]
		s := &state{map[int32]bool{}, map[int32]bool{}}
		for r := range in[pc].dropped {
			s.dropped[r] = true
		}
		for r := range in[pc].held {
			s.held[r] = true
		}
		if ins.Op == module.OpDiscard {
			for _, r := range ins.Src {
				if int(r) < len(f.Args) {
					t.Errorf("%s: instruction %d discards argument register %%r%d", f.Name, pc, r)
				}
				s.dropped[r] = true
				delete(s.held, r)
			}
		} else {
			for _, r := range ins.Src {
				if s.dropped[r] {
					t.Errorf("%s: instruction %d (%s) reads %%r%d, which may have been discarded", f.Name, pc, module.InstrString(ins), r)
				}
			}
			for _, r := range ins.Dst {
				delete(s.dropped, r)
				if f.Regs[r] == module.KindRef && !constant[r] {
					s.held[r] = true
				} else {
					delete(s.held, r)
				}
			}
		}
		if ins.Op == module.OpReturn {
			ret := map[int32]bool{}
			for _, r := range ins.Src {
				ret[r] = true
			}
			for r := range s.held {
				if !ret[r] && int(r) >= len(f.Args) {
					t.Errorf("%s: %%r%d still holds a buffer at the return at %d", f.Name, r, pc)
				}
			}
		}
		for _, succ := range successors(ins, pc, n) {
			if merge(succ, s) {
				work = append(work, succ)
			}
		}
	}
}

func TestDiscardsStraightLineWithViews(t *testing.T) {
	// The barriers (aliases in the VM program) keep the element-wise ops
	// from moving above the reshapes into one dispatch.
	mod := build(t, `func.func @f(%a: tensor<4x8xf32>) -> tensor<32xf32> {
  %0 = math.exp %a : tensor<4x8xf32>
  %c = tensor.collapse_shape %0 [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  %1 = util.optimization_barrier %c : tensor<32xf32>
  %2 = math.exp %1 : tensor<32xf32>
  %e = tensor.expand_shape %2 [[0, 1]] output_shape [8, 4] : tensor<32xf32> into tensor<8x4xf32>
  %3 = util.optimization_barrier %e : tensor<8x4xf32>
  %4 = math.sqrt %3 : tensor<8x4xf32>
  %5 = tensor.collapse_shape %4 [[0, 1]] : tensor<8x4xf32> into tensor<32xf32>
  return %5 : tensor<32xf32>
}`)
	f := &mod.Functions[0]
	text := module.Disassemble(mod)
	checkDiscards(t, f)
	if strings.Count(text, "discard") == 0 {
		t.Errorf("no discards in\n%s", text)
	}
	// A dispatch's binding that nothing reads later is discarded right
	// after the dispatch, before the next allocation can want its buffer.
	for pc, in := range f.Code {
		if in.Op != module.OpDispatch {
			continue
		}
		for _, r := range in.Src[3+in.Imm:] {
			if int(r) < len(f.Args) || readLater(f.Code[pc+1:], r) {
				continue
			}
			if next := f.Code[pc+1]; next.Op != module.OpDiscard || !contains(next.Src, r) {
				t.Errorf("%%r%d is not discarded right after its last use at %d:\n%s", r, pc, text)
			}
		}
	}
	if n := strings.Count(text, "discard"); n != 5 {
		t.Errorf("%d discards, want 5 (3 dispatch results and 3 reshapes, less the returned one):\n%s", n, text)
	}
}

// readLater reports whether an instruction other than a discard reads r.
func readLater(code []module.Instr, r int32) bool {
	for _, in := range code {
		if in.Op != module.OpDiscard && contains(in.Src, r) {
			return true
		}
	}
	return false
}

func TestDiscardsAcrossControlFlow(t *testing.T) {
	srcs := map[string]string{
		"scf.for": `func.func @f(%a: tensor<2xf32>, %n: index) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = math.exp %a : tensor<2xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> (tensor<2xf32>) {
    %x = arith.addf %acc, %b : tensor<2xf32>
    %y = arith.mulf %x, %acc : tensor<2xf32>
    scf.yield %y : tensor<2xf32>
  }
  %z = arith.addf %r, %b : tensor<2xf32>
  return %z : tensor<2xf32>
}`,
		"scf.if": `func.func @f(%a: tensor<2xf32>, %c: i1) -> (tensor<2xf32>, tensor<2xf32>) {
  %b = math.exp %a : tensor<2xf32>
  %d = math.sqrt %a : tensor<2xf32>
  %r = scf.if %c -> (tensor<2xf32>) {
    %x = arith.addf %b, %b : tensor<2xf32>
    scf.yield %x : tensor<2xf32>
  } else {
    scf.yield %b : tensor<2xf32>
  }
  return %r, %d : tensor<2xf32>, tensor<2xf32>
}`,
		"scf.while": `func.func @f(%a: tensor<2xf32>, %n: i32) -> tensor<2xf32> {
  %one = arith.constant 1 : i32
  %zero = arith.constant 0 : i32
  %k = math.exp %a : tensor<2xf32>
  %res:2 = scf.while (%i = %zero, %t = %a) : (i32, tensor<2xf32>) -> (i32, tensor<2xf32>) {
    %more = arith.cmpi slt, %i, %n : i32
    scf.condition(%more) %i, %t : i32, tensor<2xf32>
  } do {
  ^bb0(%i: i32, %t: tensor<2xf32>):
    %u = arith.addf %t, %k : tensor<2xf32>
    %j = arith.addi %i, %one : i32
    scf.yield %j, %u : i32, tensor<2xf32>
  }
  return %res#1 : tensor<2xf32>
}`,
		"cf": `func.func @f(%a: tensor<2xf32>, %c: i1) -> tensor<2xf32> {
  %b = math.exp %a : tensor<2xf32>
  %d = math.sqrt %a : tensor<2xf32>
  cf.cond_br %c, ^bb1(%b : tensor<2xf32>), ^bb2
^bb1(%x: tensor<2xf32>):
  %y = arith.addf %x, %d : tensor<2xf32>
  cf.br ^bb3(%y : tensor<2xf32>)
^bb2:
  cf.br ^bb3(%d : tensor<2xf32>)
^bb3(%z: tensor<2xf32>):
  %w = arith.mulf %z, %z : tensor<2xf32>
  return %w : tensor<2xf32>
}`,
	}
	for name, src := range srcs {
		t.Run(name, func(t *testing.T) {
			mod := build(t, src)
			for i := range mod.Functions {
				checkDiscards(t, &mod.Functions[i])
			}
			if !strings.Contains(module.Disassemble(mod), "discard") {
				t.Errorf("no discards in\n%s", module.Disassemble(mod))
			}
			if t.Failed() || testing.Verbose() {
				t.Logf("\n%s", module.Disassemble(mod))
			}
		})
	}
}

// TestDiscardPlacement checks the analysis on a hand-written function: a
// loop whose body kills the carried buffer, a value live across the loop,
// and a register that dies on one edge of a conditional branch.
func TestDiscardPlacement(t *testing.T) {
	R, I := module.KindRef, module.KindI64
	f := &module.Function{
		Name: "f", Args: []module.Kind{R, I}, Results: []module.Kind{R},
		// r0 arg, r1 n, r2 k (live across the loop), r3 carried, r4 body
		// value, r5 cond, r6 i, r7 one.
		Regs: []module.Kind{R, I, R, R, R, module.KindI32, I, I},
		Code: []module.Instr{
			{Op: module.OpClone, Dst: []int32{2}, Src: []int32{0}},                                // 0
			{Op: module.OpClone, Dst: []int32{3}, Src: []int32{0}},                                // 1
			{Op: module.OpConstI, Type: module.TypeI64, Dst: []int32{6}},                          // 2
			{Op: module.OpConstI, Type: module.TypeI64, Dst: []int32{7}, Imm: 1},                  // 3
			{Op: module.OpCmp, Sub: 2, Type: module.TypeI64, Dst: []int32{5}, Src: []int32{6, 1}}, // 4: header
			{Op: module.OpCondBranch, Src: []int32{5}, Index: 6, Index2: 10},                      // 5
			{Op: module.OpClone, Dst: []int32{4}, Src: []int32{3}},                                // 6: body
			{Op: module.OpDispatch, Src: []int32{7, 7, 7, 4, 2}},                                  // 7
			{Op: module.OpArith, Sub: uint8(module.ArithAdd), Type: module.TypeI64, Dst: []int32{6}, Src: []int32{6, 7}},
			{Op: module.OpBranch, Dst: []int32{3}, Src: []int32{4}, Index: 4}, // 9
			{Op: module.OpReturn, Src: []int32{3}},                            // 10
		},
	}
	insertDiscards(f)
	checkDiscards(t, f)
	want := []string{
		"%r2 = clone %r0",
		"%r3 = clone %r0",
		"%r6 = const.i 0 : t5",
		"%r7 = const.i 1 : t5",
		"discard %r4", // the back edge's source dies at the header
		"%r5 = cmp.2 t5 %r6, %r1",
		"cond_br %r5 ? ^7 : ^12",
		"%r4 = clone %r3",
		"discard %r3", // the carried value dies in the body
		"dispatch exec 0 entry 0 grid(%r7, %r7, %r7) push() bindings(%r4, %r2)",
		"%r6 = arith.1 t5 %r6, %r7",
		"br ^4 (%r3) <- (%r4)",
		"discard %r2", // k dies on the exit edge
		"return %r3",
	}
	var got []string
	for i := range f.Code {
		got = append(got, module.InstrString(&f.Code[i]))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The body's clone is the last use of the carried value: it may move
	// it; the clones of the argument, live after them, may not.
	for pc, in := range f.Code {
		if in.Op != module.OpClone {
			continue
		}
		if may := in.Sub == module.CloneMayMove; may != (in.Src[0] == 3) {
			t.Errorf("instruction %d (%s): may move %v", pc, module.InstrString(&in), may)
		}
	}
}

// TestDiscardKinds checks the kinds straight-line code's discards get: a
// buffer whose reshaped view is still live is kept, the last view of a
// buffer the function allocated is released without a search, and a
// buffer the function returns a view of is searched for. The kinds must
// also be sound: after a release, no live register shares the storage.
func TestDiscardKinds(t *testing.T) {
	// The barriers as in TestDiscardsStraightLineWithViews.
	mod := build(t, `func.func @f(%a: tensor<4x8xf32>) -> (tensor<32xf32>, tensor<4x8xf32>) {
  %0 = math.exp %a : tensor<4x8xf32>
  %c = tensor.collapse_shape %0 [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  %1 = util.optimization_barrier %c : tensor<32xf32>
  %2 = math.exp %1 : tensor<32xf32>
  %e = tensor.expand_shape %2 [[0, 1]] output_shape [4, 8] : tensor<32xf32> into tensor<4x8xf32>
  %3 = util.optimization_barrier %e : tensor<4x8xf32>
  %4 = math.sqrt %3 : tensor<4x8xf32>
  %5 = tensor.collapse_shape %4 [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  %6 = math.exp %4 : tensor<4x8xf32>
  return %5, %6 : tensor<32xf32>, tensor<4x8xf32>
}`)
	f := &mod.Functions[0]
	text := module.Disassemble(mod)
	checkDiscards(t, f)
	count := map[uint8]int{}
	for pc, in := range f.Code {
		if in.Op != module.OpDiscard {
			continue
		}
		count[in.Sub]++
		if in.Sub != module.DiscardRelease {
			continue
		}
		// Sound: every register still read later holds other storage
		// than the released ones (a reshape or move of them would share it).
		for _, r := range in.Src {
			for _, later := range f.Code[pc+1:] {
				if later.Op != module.OpDiscard && contains(later.Src, r) {
					t.Errorf("instruction %d releases %%r%d, read later:\n%s", pc, r, text)
				}
			}
			for _, v := range viewsOf(f.Code[:pc], r) {
				if readLater(f.Code[pc+1:], v) {
					t.Errorf("instruction %d releases %%r%d while its view %%r%d is read later:\n%s", pc, r, v, text)
				}
			}
		}
	}
	if count[module.DiscardKeep] == 0 || count[module.DiscardRelease] == 0 {
		t.Errorf("discard kinds %v, want some kept (a view is live) and some released:\n%s", count, text)
	}
}

// viewsOf returns the registers that code makes reshapes or moves of r
// (transitively), and those r is a reshape or move of.
func viewsOf(code []module.Instr, r int32) []int32 {
	set := map[int32]bool{r: true}
	for changed := true; changed; {
		changed = false
		for _, in := range code {
			if in.Op != module.OpReshape && in.Op != module.OpMove {
				continue
			}
			d, s := in.Dst[0], in.Src[0]
			if set[d] != set[s] {
				set[d], set[s] = true, true
				changed = true
			}
		}
	}
	var out []int32
	for x := range set {
		if x != r {
			out = append(out, x)
		}
	}
	return out
}
