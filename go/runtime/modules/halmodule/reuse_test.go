package halmodule

import (
	"os"
	"testing"
	"unsafe"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/hal/local"
	"github.com/gree-ml/gree/go/runtime/vm"
	"github.com/gree-ml/gree/go/schemas/module"
)

// Host programs that discard buffers, run on the bridge with its real
// cache: a buffer must be reused once nothing refers to it, and never
// while something still can read it.

const (
	side = 256 // 256×256 i8 = 64 KiB, a size the cache keeps
	i8   = 0x10000008
)

// fn builds one host function.
type fn struct{ f module.Function }

func newFn(name string, args, results []module.Kind) *fn {
	return &fn{module.Function{Name: name, Args: args, Results: results, Regs: append([]module.Kind(nil), args...)}}
}

func (b *fn) reg(k module.Kind) int32 {
	b.f.Regs = append(b.f.Regs, k)
	return int32(len(b.f.Regs) - 1)
}

func (b *fn) emit(in module.Instr) { b.f.Code = append(b.f.Code, in) }

func (b *fn) i64(x int64) int32 {
	r := b.reg(module.KindI64)
	b.emit(module.Instr{Op: module.OpConstI, Type: module.TypeI64, Dst: []int32{r}, Imm: x})
	return r
}

// alloc allocates a side×side i8 buffer.
func (b *fn) alloc(uninitialized bool) int32 {
	d := b.i64(side)
	r := b.reg(module.KindRef)
	in := module.Instr{Op: module.OpAlloc, Dst: []int32{r}, Src: []int32{d, d}, Imm: i8}
	if uninitialized {
		in.Sub = 1
	}
	b.emit(in)
	return r
}

// store writes v at element (0, 5) of a side×side buffer (or at 5 of a
// flat one).
func (b *fn) store(buf int32, v int64, flat bool) {
	val := b.reg(module.KindI32)
	b.emit(module.Instr{Op: module.OpConstI, Type: module.TypeI32, Dst: []int32{val}, Imm: v})
	b.emit(module.Instr{Op: module.OpStore, Type: module.TypeI8, Src: append([]int32{buf, val}, b.index(flat)...)})
}

func (b *fn) load(buf int32, flat bool) int32 {
	r := b.reg(module.KindI32)
	b.emit(module.Instr{Op: module.OpLoad, Type: module.TypeI8, Dst: []int32{r}, Src: append([]int32{buf}, b.index(flat)...)})
	return r
}

func (b *fn) index(flat bool) []int32 {
	if flat {
		return []int32{b.i64(5)}
	}
	return []int32{b.i64(0), b.i64(5)}
}

func (b *fn) discard(rs ...int32) { b.emit(module.Instr{Op: module.OpDiscard, Src: rs}) }

func (b *fn) ret(rs ...int32) { b.emit(module.Instr{Op: module.OpReturn, Src: rs}) }

// run loads a module of the functions (all exported) on a fresh bridge.
func run(t *testing.T, m *module.Module, fns ...*fn) *vm.Context {
	t.Helper()
	m.Name = "m"
	for i, f := range fns {
		m.Functions = append(m.Functions, f.f)
		m.Exports = append(m.Exports, module.Export{Name: f.f.Name, Function: i})
	}
	mod, err := vm.LoadModule(module.Encode(m))
	if err != nil {
		t.Fatal(err)
	}
	c := vm.NewContext(New(testDevice(t)))
	if err := c.Register(mod); err != nil {
		t.Fatal(err)
	}
	return c
}

func invoke(t *testing.T, c *vm.Context, name string, args ...vm.Value) []vm.Value {
	t.Helper()
	res, err := c.Invoke("m", name, args)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func storage(v vm.Value) *byte { return unsafe.SliceData(v.Ref.(*hal.BufferView).Bytes()) }

func element(v vm.Value) int8 { return int8(v.Ref.(*hal.BufferView).Bytes()[5]) }

var (
	ref = module.KindRef
	i32 = module.KindI32
)

func TestDiscardReusesBuffers(t *testing.T) {
	skipUnderPoison(t)
	f := newFn("f", nil, []module.Kind{i32, i32})
	a := f.alloc(false)
	f.store(a, 42, false)
	f.discard(a)
	b := f.alloc(true) // takes a's buffer, contents as a left them
	v1 := f.load(b, false)
	f.discard(b)
	z := f.alloc(false) // takes it again, cleared
	v2 := f.load(z, false)
	f.discard(z)
	f.ret(v1, v2)
	c := run(t, &module.Module{}, f)
	if res := invoke(t, c, "f"); res[0].I != 42 || res[1].I != 0 {
		t.Fatalf("got %v, want the discarded buffer reused uninitialized (42) then zeroed (0)", res)
	}
}

func TestDiscardKeepsStorageAViewStillUses(t *testing.T) {
	skipUnderPoison(t)
	f := newFn("f", nil, []module.Kind{i32, i32})
	a := f.alloc(false)
	f.store(a, 42, false)
	view := f.reg(ref)
	f.emit(module.Instr{Op: module.OpReshape, Dst: []int32{view}, Src: []int32{a, f.i64(side * side)}})
	f.discard(a) // the view still uses the storage
	b := f.alloc(true)
	f.store(b, 7, false)
	v1 := f.load(view, true)
	f.discard(view, b) // now both buffers are free
	c1 := f.alloc(true)
	c2 := f.alloc(true)
	w1, w2 := f.load(c1, false), f.load(c2, false)
	sum := f.reg(i32)
	f.emit(module.Instr{Op: module.OpArith, Sub: uint8(module.ArithAdd), Type: module.TypeI32, Dst: []int32{sum}, Src: []int32{w1, w2}})
	f.discard(c1, c2)
	f.ret(v1, sum)
	c := run(t, &module.Module{}, f)
	res := invoke(t, c, "f")
	if res[0].I != 42 {
		t.Fatalf("a reshape view read %d after its source register was discarded, want 42", res[0].I)
	}
	if res[1].I != 42+7 {
		t.Fatalf("after both views were discarded the two buffers were not reused (%d, want 49)", res[1].I)
	}
}

func TestResultsAndArgumentsSurviveLaterCalls(t *testing.T) {
	skipUnderPoison(t)
	// make returns a fresh buffer holding 42; it also discards a
	// temporary of the same size.
	mk := newFn("make", nil, []module.Kind{ref})
	tmp := mk.alloc(false)
	mk.store(tmp, 9, false)
	mk.discard(tmp)
	out := mk.alloc(true)
	mk.store(out, 42, false)
	mk.ret(out)
	// use discards a view of its argument and the argument register itself
	// (nothing forbids a module to), then writes 7 to a new buffer.
	use := newFn("use", []module.Kind{ref}, []module.Kind{ref})
	v := use.reg(ref)
	use.emit(module.Instr{Op: module.OpReshape, Dst: []int32{v}, Src: []int32{0, use.i64(side * side)}})
	use.discard(v, 0)
	nb := use.alloc(true)
	use.store(nb, 7, false)
	use.ret(nb)
	c := run(t, &module.Module{}, mk, use)
	r1 := invoke(t, c, "make")[0]
	r2 := invoke(t, c, "make")[0]
	if storage(r1) == storage(r2) || element(r1) != 42 || element(r2) != 42 {
		t.Fatalf("a second call reused the first call's result (same storage %v, values %d %d)", storage(r1) == storage(r2), element(r1), element(r2))
	}
	r3 := invoke(t, c, "use", r1)[0]
	if storage(r3) == storage(r1) || element(r1) != 42 || element(r3) != 7 {
		t.Fatalf("a call recycled the caller's argument: values %d %d", element(r1), element(r3))
	}
	// The caller's own release is what frees a result; the released
	// view can no longer be read.
	s1 := storage(r1)
	c.Release([]vm.Value{r1}, nil)
	if r1.Ref.(*hal.BufferView).Bytes() != nil {
		t.Fatal("a released result can still be read")
	}
	r4 := invoke(t, c, "make")[0]
	if storage(r4) != s1 {
		t.Fatal("a released result was not reused")
	}
}

func TestDiscardInCalleeKeepsCallerBuffer(t *testing.T) {
	callee := newFn("callee", []module.Kind{ref}, []module.Kind{i32})
	v := callee.reg(ref)
	callee.emit(module.Instr{Op: module.OpReshape, Dst: []int32{v}, Src: []int32{0, callee.i64(side * side)}})
	callee.discard(v, 0)
	b := callee.alloc(true)
	callee.store(b, 7, false)
	x := callee.load(b, false)
	callee.discard(b)
	callee.ret(x)
	caller := newFn("caller", nil, []module.Kind{i32, i32})
	a := caller.alloc(false)
	caller.store(a, 42, false)
	y := caller.reg(i32)
	caller.emit(module.Instr{Op: module.OpCall, Index: 0, Src: []int32{a}, Dst: []int32{y}})
	got := caller.load(a, false)
	caller.discard(a)
	caller.ret(got, y)
	c := run(t, &module.Module{}, callee, caller)
	if res := invoke(t, c, "caller"); res[0].I != 42 || res[1].I != 7 {
		t.Fatalf("got %v, want the caller's buffer intact (42) and the callee's own (7)", res)
	}
}

func TestDiscardKeepsGlobals(t *testing.T) {
	f := newFn("f", nil, []module.Kind{i32})
	a := f.alloc(false)
	f.store(a, 42, false)
	f.emit(module.Instr{Op: module.OpGlobalStore, Index: 0, Src: []int32{a}})
	f.discard(a)
	b := f.alloc(true)
	f.store(b, 7, false)
	g := f.reg(ref)
	f.emit(module.Instr{Op: module.OpGlobalLoad, Index: 0, Dst: []int32{g}})
	x := f.load(g, false)
	f.discard(b, g)
	f.ret(x)
	c := run(t, &module.Module{Globals: []module.Global{{Name: "g", Kind: ref, Mutable: true, Init: -1}}}, f)
	for i := 0; i < 2; i++ {
		if res := invoke(t, c, "f"); res[0].I != 42 {
			t.Fatalf("call %d: a global's buffer was recycled (read %d, want 42)", i, res[0].I)
		}
	}
}

func TestDiscardNeverRecyclesConstants(t *testing.T) {
	data := make([]byte, side*side)
	data[5] = 42
	f := newFn("f", nil, []module.Kind{i32})
	k := f.reg(ref)
	f.emit(module.Instr{Op: module.OpConstant, Index: 0, Dst: []int32{k}})
	f.discard(k)
	b := f.alloc(true)
	f.store(b, 7, false)
	f.discard(b)
	k2 := f.reg(ref)
	f.emit(module.Instr{Op: module.OpConstant, Index: 0, Dst: []int32{k2}})
	x := f.load(k2, false)
	f.ret(x)
	c := run(t, &module.Module{Constants: []module.Constant{{ElementType: i8, Shape: []int64{side, side}, Data: data}}}, f)
	if res := invoke(t, c, "f"); res[0].I != 42 {
		t.Fatalf("a module constant was recycled (read %d, want 42)", res[0].I)
	}
}

func TestPoisonMode(t *testing.T) {
	c := testCache()
	c.minBytes, c.poison = 1, true
	_, u := get(t, c, 100, true)
	if u[0] != 0xff || u[99] != 0xff {
		t.Fatal("uninitialized allocation not poisoned")
	}
	ab, a := get(t, c, 100, false)
	a[3] = 1
	c.release([]any{viewOf(ab)}, nil)
	if a[3] != 0xff {
		t.Fatal("released buffer not poisoned")
	}
	if _, z := get(t, c, 100, false); &z[0] != &a[0] || z[3] != 0 {
		t.Fatal("zeroed allocation did not reuse and clear the released buffer")
	}
}

func TestDiscardedClonesAreReused(t *testing.T) {
	skipUnderPoison(t)
	f := newFn("f", nil, []module.Kind{i32})
	a := f.alloc(false)
	f.store(a, 42, false)
	c := f.reg(ref)
	f.emit(module.Instr{Op: module.OpClone, Dst: []int32{c}, Src: []int32{a}})
	f.discard(a)
	f.store(c, 9, false) // the clone is a copy: a's reuse must not see it
	b := f.alloc(true)   // a's storage
	f.discard(c)
	d := f.alloc(true) // the clone's storage
	x, y := f.load(b, false), f.load(d, false)
	sum := f.reg(i32)
	f.emit(module.Instr{Op: module.OpArith, Sub: uint8(module.ArithMul), Type: module.TypeI32, Dst: []int32{sum}, Src: []int32{x, y}})
	f.discard(b, d)
	f.ret(sum)
	ctx := run(t, &module.Module{}, f)
	if res := invoke(t, ctx, "f"); res[0].I != 42*9 {
		t.Fatalf("got %d, want 42*9: the source and the clone's storage reused separately", res[0].I)
	}
}

// testDevice returns a local-sync device, closed at the end of the test.
func testDevice(t *testing.T) hal.Device {
	d, err := local.NewDriver("local-sync", 1).CreateDevice(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// skipUnderPoison skips tests that read what a recycled buffer holds or
// when its release lands: GREE_DEBUG_BUFFER_CACHE=1 poisons recycled
// buffers on purpose, with fills queued until the next submission.
func skipUnderPoison(t *testing.T) {
	if os.Getenv(DebugEnv) == "1" {
		t.Skipf("%s=1 poisons recycled buffers, which this test reads", DebugEnv)
	}
}

// TestCloneMovesOnlyExclusiveStorage checks a clone whose source dies at
// it (module.CloneMayMove): the clone takes the source's storage over
// when nothing else refers to it, and copies when a view of it is still
// live (the view keeps the old contents) or the source is the caller's.
func TestCloneMovesOnlyExclusiveStorage(t *testing.T) {
	skipUnderPoison(t)
	clone := func(f *fn, src int32) int32 {
		r := f.reg(ref)
		f.emit(module.Instr{Op: module.OpClone, Sub: module.CloneMayMove, Dst: []int32{r}, Src: []int32{src}})
		f.discard(src)
		return r
	}
	// moved: the clone is the source's buffer, a store into it is seen.
	mv := newFn("moved", nil, []module.Kind{ref})
	a := mv.alloc(false)
	mv.store(a, 42, false)
	c := clone(mv, a)
	mv.store(c, 7, false)
	mv.ret(c)
	// taken: after a move the source's buffer is not released, so a new
	// uninitialized allocation does not get it (a copy would have
	// released it, and the allocation would hold its 42).
	tk := newFn("taken", nil, []module.Kind{i32, ref})
	a = tk.alloc(false)
	tk.store(a, 42, false)
	c = clone(tk, a)
	b := tk.alloc(true)
	v := tk.load(b, false)
	tk.discard(b)
	tk.ret(v, c)
	// viewed: a reshape of the source is live after the clone.
	vw := newFn("viewed", nil, []module.Kind{ref, ref})
	a = vw.alloc(false)
	vw.store(a, 42, false)
	view := vw.reg(ref)
	vw.emit(module.Instr{Op: module.OpReshape, Dst: []int32{view}, Src: []int32{a, vw.i64(side * side)}})
	c = clone(vw, a)
	vw.store(c, 7, false)
	vw.ret(view, c)
	// argument: the caller's buffer is never taken.
	ag := newFn("argument", []module.Kind{ref}, []module.Kind{ref})
	c = ag.reg(ref)
	ag.emit(module.Instr{Op: module.OpClone, Sub: module.CloneMayMove, Dst: []int32{c}, Src: []int32{0}})
	ag.store(c, 7, false)
	ag.ret(c)
	ctx := run(t, &module.Module{}, mv, vw, ag, tk)
	// The results' buffers and the context go at the end, so that no
	// finalizer frees them during another test's memory accounting.
	var held []vm.Value
	defer func() {
		for _, v := range held {
			v.Ref.(*hal.BufferView).Buffer.Release()
		}
		ctx.Close()
	}()
	invoke := func(t *testing.T, c *vm.Context, name string, args ...vm.Value) []vm.Value {
		res := invoke(t, c, name, args...)
		for _, v := range res {
			if v.Kind == vm.KindRef {
				held = append(held, v)
			}
		}
		return res
	}
	if res := invoke(t, ctx, "taken"); res[0].I != 0 || element(res[1]) != 42 {
		t.Fatalf("taken: a new allocation holds %d and the clone %d; want 0 (the source's buffer moved) and 42", res[0].I, element(res[1]))
	}
	if res := invoke(t, ctx, "moved"); element(res[0]) != 7 {
		t.Fatalf("moved: element %d, want 7", element(res[0]))
	}
	res := invoke(t, ctx, "viewed")
	if element(res[0]) != 42 || element(res[1]) != 7 || storage(res[0]) == storage(res[1]) {
		t.Fatalf("viewed: the view holds %d and the clone %d (shared %v); want 42 and 7 in two buffers",
			element(res[0]), element(res[1]), storage(res[0]) == storage(res[1]))
	}
	arg := invoke(t, ctx, "moved")[0]
	out := invoke(t, ctx, "argument", arg)[0]
	if element(arg) != 7 || element(out) != 7 || storage(arg) == storage(out) {
		t.Fatalf("argument: the caller's buffer was taken over")
	}
}
