package llvmcpu

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/schemas/llvmcpu"
	"github.com/gree-ml/gree/go/status"
)

// module collects the text of one LLVM module: the kernels' functions and
// the helpers and declarations they use, each emitted once.
type module struct {
	m       Machine
	vl      int // f32 lanes of the Contract microkernel's vectors
	body    strings.Builder
	decls   map[string]string // name → declaration or helper definition
	order   []string
	attrs   string
	checkNo int
	softF16 bool // convert f16 with integer operations (x86 without F16C)
	// colBlocks: the Contract row kernels include column blocks (false
	// when no product of the executable reaches them: mayNeedColBlocks).
	colBlocks bool
}

// newModule starts an empty module for machine m.
func newModule(m Machine) *module {
	mo := &module{m: m, decls: map[string]string{}, vl: vectorLanes(m), colBlocks: true}
	mo.attrs = functionAttrs(m)
	mo.softF16 = archOf(m.Triple) == "x86_64" && !has(requiredFeatures(m), "f16c")
	return mo
}

// declare records a declaration or helper definition under name once.
func (mo *module) declare(name, text string) {
	if _, ok := mo.decls[name]; ok {
		return
	}
	mo.decls[name] = text
	mo.order = append(mo.order, name)
}

func (mo *module) String() string {
	var b strings.Builder
	b.WriteString("; gree llvm-cpu kernels\n")
	b.WriteString(mo.body.String())
	for _, n := range mo.order {
		b.WriteString(mo.decls[n])
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "attributes #0 = { %s }\n", mo.attrs)
	b.WriteString("!0 = !{!\"branch_weights\", i32 1048575, i32 1}\n")
	return b.String()
}

// fn is the emission state of one function.
type fn struct {
	mo    *module
	k     *kir.Kernel
	b     strings.Builder
	vals  []string // LLVM operand of each kir value ("%v3" or a constant)
	tmp   int
	label int
	cur   string // the label of the block being emitted
	// scratch is the lane count of the stack buffers lane loops use (0:
	// none); they are allocated in the entry block, at scratchMarker.
	scratch int
	// consts holds the scalar integer values known at compile time
	// (constants and their sums, differences and products).
	consts map[kir.Value]int64
}

// scratchMarker is replaced by the entry block's scratch allocation.
const scratchMarker = "  ;@@SCRATCH@@\n"

// scratchFor makes sure the scratch buffers hold n lanes: %scratch holds
// three arrays of n f64 lanes (two operands and a result).
func (f *fn) scratchFor(n int) {
	f.scratch = max(f.scratch, n)
}

func (f *fn) emitf(format string, args ...any) {
	f.b.WriteString("  ")
	fmt.Fprintf(&f.b, format, args...)
	f.b.WriteByte('\n')
}

// t returns a fresh temporary name.
func (f *fn) t() string {
	f.tmp++
	return fmt.Sprintf("%%t%d", f.tmp)
}

// newLabel returns a fresh block label with the given stem.
func (f *fn) newLabel(stem string) string {
	f.label++
	return fmt.Sprintf("%s%d", stem, f.label)
}

// startBlock begins block l.
func (f *fn) startBlock(l string) {
	fmt.Fprintf(&f.b, "%s:\n", l)
	f.cur = l
}

// v returns the operand text of kir value x.
func (f *fn) v(x kir.Value) string { return f.vals[x] }

// typed returns "type operand" of x.
func (f *fn) typed(x kir.Value) string { return ty(f.k.Types[x]) + " " + f.vals[x] }

// set gives kir value x the operand text s.
func (f *fn) set(x kir.Value, s string) { f.vals[x] = s }

// check emits a run-time check: when ok (an i1 operand) is false the
// workgroup function returns code.
func (f *fn) check(ok string, kind llvmcpu.ErrorKind, binding int) {
	f.mo.checkNo++
	code := llvmcpu.MakeError(kind, binding, f.mo.checkNo)
	pass, fail := f.newLabel("ok"), f.newLabel("fail")
	f.emitf("br i1 %s, label %%%s, label %%%s, !prof !0", ok, pass, fail)
	f.startBlock(fail)
	f.emitf("ret i64 %d", int64(code))
	f.startBlock(pass)
}

// guard emits a run-time check that stays inside loops (a check that
// returns is an exit of every enclosing loop, and LLVM's loop passes
// spend time on each exit): when ok is false the workgroup records code
// in %gree.err (the first failure's code is what the workgroup returns
// when it ends; volatile, so that LLVM keeps it in memory instead of
// threading it through every loop as a phi) and skips the guarded code. The caller emits the guarded
// code next and ends it with endGuard(join); fail is the label of the
// skipping path, for phis at join.
func (f *fn) guard(ok string, kind llvmcpu.ErrorKind, binding int) (join, fail string) {
	f.mo.checkNo++
	code := llvmcpu.MakeError(kind, binding, f.mo.checkNo)
	pass := f.newLabel("ok")
	fail, join = f.newLabel("fail"), f.newLabel("join")
	f.emitf("br i1 %s, label %%%s, label %%%s, !prof !0", ok, pass, fail)
	f.startBlock(fail)
	e, z, c := f.t(), f.t(), f.t()
	f.emitf("%s = load volatile i64, ptr %%gree.err, align 8", e)
	f.emitf("%s = icmp eq i64 %s, 0", z, e)
	f.emitf("%s = select i1 %s, i64 %d, i64 %s", c, z, int64(code), e)
	f.emitf("store volatile i64 %s, ptr %%gree.err, align 8", c)
	f.emitf("br label %%%s", join)
	f.startBlock(pass)
	return join, fail
}

// endGuard ends the code guard began: it continues at join.
func (f *fn) endGuard(join string) {
	f.emitf("br label %%%s", join)
	f.startBlock(join)
}

// Emit translates kernels into one llvm-cpu executable for machine m;
// entry i is kernels[i]. Each kernel is verified first.
func Emit(kernels []*kir.Kernel, m Machine) ([]byte, error) {
	return EmitWithDump(kernels, m, Dump{})
}

// Dump says where to write the intermediate files of a build (IREE's
// --iree-hal-dump-executable-{intermediates,binaries}-to); empty
// directories write nothing.
type Dump struct {
	// Intermediates receives Name.ll (the generated IR),
	// Name.optimized.ll and Name.o.
	Intermediates string
	// Binaries receives Name.so.
	Binaries string
	// Name is the files' base name.
	Name string
}

func (d Dump) write(dir, ext string, data []byte) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return status.Errorf(status.PermissionDenied, "llvm-cpu: dump directory: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, d.Name+ext), data, 0o644); err != nil {
		return status.Errorf(status.PermissionDenied, "llvm-cpu: dumping %s: %v", d.Name+ext, err)
	}
	return nil
}

// EmitWithDump is Emit that also writes the build's intermediate files.
func EmitWithDump(kernels []*kir.Kernel, m Machine, d Dump) ([]byte, error) {
	if d.Intermediates == "" {
		// Nothing to dump: compile distinct kernels, in parallel parts.
		srcs, x, err := TranslateParts(kernels, m, partsFor(len(kernels)))
		if err != nil {
			return nil, err
		}
		objs, err := compileParts(srcs, m)
		if err != nil {
			return nil, err
		}
		return finish(x, objs, d)
	}
	src, x, err := Translate(kernels, m)
	if err != nil {
		return nil, err
	}
	if err := d.write(d.Intermediates, ".ll", []byte(src)); err != nil {
		return nil, err
	}
	var optimized *string
	if d.Intermediates != "" {
		optimized = new(string)
	}
	obj, err := compileIR(src, m, optimized)
	if err != nil {
		return nil, err
	}
	if optimized != nil {
		if err := d.write(d.Intermediates, ".optimized.ll", []byte(*optimized)); err != nil {
			return nil, err
		}
	}
	if err := d.write(d.Intermediates, ".o", obj); err != nil {
		return nil, err
	}
	return finish(x, [][]byte{obj}, d)
}

// finish links the object files into x's shared object and encodes x.
func finish(x *llvmcpu.Executable, objs [][]byte, d Dump) ([]byte, error) {
	so, err := link(objs)
	if err != nil {
		return nil, err
	}
	if err := d.write(d.Binaries, ".so", so); err != nil {
		return nil, err
	}
	x.Object = so
	return llvmcpu.Encode(x)
}

// Translate returns the LLVM IR text of kernels and the executable's
// header (without the shared object).
func Translate(kernels []*kir.Kernel, m Machine) (string, *llvmcpu.Executable, error) {
	mo := newModule(m)
	mo.colBlocks = mayNeedColBlocks(kernels, mo.vl)
	x := &llvmcpu.Executable{Triple: m.Triple, CPU: m.CPU, Features: m.Features, Required: requiredFeatures(m)}
	for i, k := range kernels {
		if err := kir.Verify(k); err != nil {
			return "", nil, fmt.Errorf("llvm-cpu: kernel %d: %w", i, err)
		}
		sym := fmt.Sprintf("gree_entry_%d", i)
		if err := mo.kernel(k, i, sym); err != nil {
			return "", nil, fmt.Errorf("llvm-cpu: kernel %d (@%s): %w", i, k.Name, err)
		}
		x.Entries = append(x.Entries, llvmcpu.Entry{Name: k.Name, Symbol: sym, NumPushConstants: k.NumPushConstants, NumBindings: len(k.Bindings)})
	}
	return mo.String(), x, nil
}

// kernel emits the workgroup function of k and its exported entry, which
// loops over a range of workgroups.
func (mo *module) kernel(k *kir.Kernel, idx int, sym string) error {
	if k.WorkgroupSize[0]*k.WorkgroupSize[1]*k.WorkgroupSize[2] != 1 {
		return status.Errorf(status.Unimplemented, "workgroups of %v threads are for GPU targets; llvm-cpu runs tile-level kernels (one thread per workgroup)", k.WorkgroupSize)
	}
	var sharedBytes int64
	for _, s := range k.Shared {
		sharedBytes += s.Count * int64(s.Elem.ByteSize())
	}
	if sharedBytes > 1<<16 {
		return status.Errorf(status.Unimplemented, "%d bytes of workgroup memory; llvm-cpu keeps it on the stack and allows at most 65536", sharedBytes)
	}
	f := &fn{mo: mo, k: k, vals: make([]string, len(k.Types)), consts: map[kir.Value]int64{}}
	wg := fmt.Sprintf("gree_wg_%d", idx)
	fmt.Fprintf(&f.b, "; kernel @%s\ndefine internal i64 @%s(ptr noalias %%d, i64 %%wx, i64 %%wy, i64 %%wz) #0 {\n", k.Name, wg)
	f.startBlock("entry")
	f.b.WriteString(scratchMarker)
	f.emitf("%%bindings = load ptr, ptr %%d, align 8")
	f.emitf("%%countsp = getelementptr inbounds i8, ptr %%d, i64 8")
	f.emitf("%%counts = load ptr, ptr %%countsp, align 8")
	f.emitf("%%pushp = getelementptr inbounds i8, ptr %%d, i64 16")
	f.emitf("%%push = load ptr, ptr %%pushp, align 8")
	for d := 0; d < 3; d++ {
		f.emitf("%%gcp%d = getelementptr inbounds i8, ptr %%d, i64 %d", d, 24+8*d)
		f.emitf("%%gc%d = load i64, ptr %%gcp%d, align 8", d, d)
	}
	for i := range k.Bindings {
		f.emitf("%%bp%d = getelementptr inbounds ptr, ptr %%bindings, i64 %d", i, i)
		f.emitf("%%b%d = load ptr, ptr %%bp%d, align 8", i, i)
		f.emitf("%%np%d = getelementptr inbounds i64, ptr %%counts, i64 %d", i, i)
		f.emitf("%%nb%d = load i64, ptr %%np%d, align 8", i, i)
		f.emitf("%%n%d = udiv i64 %%nb%d, %d", i, i, k.Bindings[i].Elem.ByteSize())
	}
	for i, s := range k.Shared {
		f.emitf("%%s%d = alloca %s, i64 %d, align 64", i, memTy(s.Elem), s.Count)
		if !s.Scratch {
			mo.declare("llvm.memset", "declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)")
			f.emitf("call void @llvm.memset.p0.i64(ptr %%s%d, i8 0, i64 %d, i1 false)", i, s.Count*int64(s.Elem.ByteSize()))
		}
		// As a tile op's operand (kir.Kernel.TileMem): %b and %n of its
		// ordinal, as a binding's.
		o := k.SharedOrdinal(i)
		f.emitf("%%b%d = getelementptr inbounds i8, ptr %%s%d, i64 0", o, i)
		f.emitf("%%n%d = add i64 0, %d", o, s.Count)
	}
	if err := f.block(k.Body); err != nil {
		return err
	}
	r := f.t()
	f.emitf("%s = load volatile i64, ptr %%gree.err, align 8", r)
	f.emitf("ret i64 %s", r)
	f.b.WriteString("}\n\n")
	alloc := "  %gree.err = alloca i64, align 8\n  store i64 0, ptr %gree.err, align 8\n"
	if f.scratch > 0 {
		alloc += fmt.Sprintf("  %%scratch = alloca double, i64 %d, align 64\n", 3*f.scratch)
	}
	mo.body.WriteString(strings.Replace(f.b.String(), scratchMarker, alloc, 1))
	fmt.Fprintf(&mo.body, `define i64 @%[1]s(ptr noalias %%d, i64 %%first, i64 %%count) #0 {
entry:
  %%gxp = getelementptr inbounds i8, ptr %%d, i64 24
  %%gx = load i64, ptr %%gxp, align 8
  %%gyp = getelementptr inbounds i8, ptr %%d, i64 32
  %%gy = load i64, ptr %%gyp, align 8
  %%end = add i64 %%first, %%count
  br label %%head
head:
  %%i = phi i64 [ %%first, %%entry ], [ %%next, %%cont ]
  %%more = icmp slt i64 %%i, %%end
  br i1 %%more, label %%body, label %%done
body:
  %%wx = urem i64 %%i, %%gx
  %%q = udiv i64 %%i, %%gx
  %%wy = urem i64 %%q, %%gy
  %%wz = udiv i64 %%q, %%gy
  %%r = call i64 @%[2]s(ptr %%d, i64 %%wx, i64 %%wy, i64 %%wz)
  %%ok = icmp eq i64 %%r, 0
  br i1 %%ok, label %%cont, label %%fail
cont:
  %%next = add i64 %%i, 1
  br label %%head
fail:
  ret i64 %%r
done:
  ret i64 0
}

`, sym, wg)
	return nil
}

// block emits the ops of b (its Yield is handled by the enclosing op).
func (f *fn) block(b *kir.Block) error {
	for _, op := range b.Ops {
		var err error
		switch op.Kind {
		case kir.Yield:
			continue
		case kir.For:
			err = f.forOp(op)
		case kir.If:
			err = f.ifOp(op)
		default:
			err = f.op(op)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// yields returns the values the Yield ending b carries.
func yields(b *kir.Block) []kir.Value {
	if n := len(b.Ops); n > 0 && b.Ops[n-1].Kind == kir.Yield {
		return b.Ops[n-1].Args
	}
	return nil
}

// forOp emits a counted loop: the header holds the induction variable and
// the loop-carried values as phis; the latch adds the step and stops when
// the addition overflows, as kir.Run does.
func (f *fn) forOp(op *kir.Op) error {
	lo, hi, step := f.v(op.Args[0]), f.v(op.Args[1]), f.v(op.Args[2])
	pos := f.t()
	f.emitf("%s = icmp sgt i64 %s, 0", pos, step)
	f.check(pos, 3 /* ErrStep */, 0)
	pre := f.cur
	head, body, latch, exit := f.newLabel("for.head"), f.newLabel("for.body"), f.newLabel("for.latch"), f.newLabel("for.exit")
	reg := op.Regions[0]
	iv := fmt.Sprintf("%%v%d", reg.Args[0])
	f.set(reg.Args[0], iv)
	next := f.t()
	// Phi names are fixed before the body so the body can use them.
	for _, a := range reg.Args[1:] {
		f.set(a, fmt.Sprintf("%%v%d", a))
	}
	f.emitf("br label %%%s", head)
	var phis strings.Builder
	f.startBlock(head)
	// Placeholder: the phis' incoming values from the latch are known only
	// after the body; write them at the end with a marker replaced below.
	marker := fmt.Sprintf("@@PHIS%s@@", head)
	f.b.WriteString(marker)
	c := f.t()
	f.emitf("%s = icmp slt i64 %s, %s", c, iv, hi)
	f.emitf("br i1 %s, label %%%s, label %%%s", c, body, exit)
	f.startBlock(body)
	if err := f.block(reg); err != nil {
		return err
	}
	ys := yields(reg)
	f.emitf("br label %%%s", latch)
	f.startBlock(latch)
	sum := f.t()
	f.emitf("%s = call { i64, i1 } @llvm.sadd.with.overflow.i64(i64 %s, i64 %s)", sum, iv, step)
	f.mo.declare("llvm.sadd.with.overflow.i64", "declare { i64, i1 } @llvm.sadd.with.overflow.i64(i64, i64)")
	s0, ov := f.t(), f.t()
	f.emitf("%s = extractvalue { i64, i1 } %s, 0", s0, sum)
	f.emitf("%s = extractvalue { i64, i1 } %s, 1", ov, sum)
	f.emitf("%s = select i1 %s, i64 %s, i64 %s", next, ov, hi, s0)
	f.emitf("br label %%%s", head)
	fmt.Fprintf(&phis, "  %s = phi i64 [ %s, %%%s ], [ %s, %%%s ]\n", iv, lo, pre, next, latch)
	for i, a := range reg.Args[1:] {
		t := ty(f.k.Types[a])
		fmt.Fprintf(&phis, "  %s = phi %s [ %s, %%%s ], [ %s, %%%s ]\n", f.v(a), t, f.v(op.Args[3+i]), pre, f.v(ys[i]), latch)
	}
	text := strings.Replace(f.b.String(), marker, phis.String(), 1)
	f.b.Reset()
	f.b.WriteString(text)
	f.startBlock(exit)
	for i, r := range op.Results {
		f.set(r, f.v(reg.Args[1+i]))
	}
	return nil
}

// ifOp emits a two-way branch joining in a block whose phis are the
// results.
func (f *fn) ifOp(op *kir.Op) error {
	then, els, join := f.newLabel("if.then"), f.newLabel("if.else"), f.newLabel("if.end")
	cond := f.v(op.Args[0])
	if f.k.Types[op.Args[0]].IsVector() {
		c := f.t()
		f.emitf("%s = extractelement %s, i64 0", c, f.typed(op.Args[0]))
		cond = c
	}
	f.emitf("br i1 %s, label %%%s, label %%%s", cond, then, els)
	var ends [2]string
	var ys [2][]kir.Value
	for i, l := range []string{then, els} {
		f.startBlock(l)
		if i < len(op.Regions) && op.Regions[i] != nil {
			if err := f.block(op.Regions[i]); err != nil {
				return err
			}
			ys[i] = yields(op.Regions[i])
		}
		ends[i] = f.cur
		f.emitf("br label %%%s", join)
	}
	f.startBlock(join)
	for j, r := range op.Results {
		name := fmt.Sprintf("%%v%d", r)
		f.emitf("%s = phi %s [ %s, %%%s ], [ %s, %%%s ]", name, ty(f.k.Types[r]), f.v(ys[0][j]), ends[0], f.v(ys[1][j]), ends[1])
		f.set(r, name)
	}
	return nil
}
