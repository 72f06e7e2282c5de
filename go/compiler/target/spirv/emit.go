package spirv

import (
	"fmt"
	"sort"

	"github.com/gree-ml/gree/go/compiler/kir"
	schema "github.com/gree-ml/gree/go/schemas/spirv"
	"github.com/gree-ml/gree/go/status"
)

// Options are the target's choices (from its target description).
type Options struct {
	// Version is the SPIR-V version word, e.g. 0x00010300 (1.3),
	// 0x00010500 or 0x00010600; 0 means 1.3. Versions below 1.3 are
	// not supported.
	Version uint32
	// Capabilities are the SPIR-V capabilities the target has, by name
	// ("Int64", "Float64", "StorageBuffer8BitAccess", …). Shader is
	// always assumed. Emit fails with FAILED_PRECONDITION naming the
	// capability and what needs it when a kernel needs one not listed.
	Capabilities map[string]bool
	// SubgroupSize is the target's subgroup size, used when the kernel
	// does not set one (0: any).
	SubgroupSize int
	// Target names the target in error messages (optional).
	Target string
}

// failure carries an error out of the translation (see Emit).
type failure struct{ err error }

// emitter translates one kernel.
type emitter struct {
	k    *kir.Kernel
	opts Options
	m    *module

	fn    []uint32 // the function being built
	block uint32   // the label of the current block

	vals [][]uint32 // each kir value's lane ids
	defs []*kir.Op  // each kir value's defining op (nil for block arguments)

	opNo int     // ops translated so far, for messages
	op   *kir.Op // the op being translated

	capNames []string
	checkNo  int
	status   uint32 // the status buffer, 0 until a check needs it
	report   uint32 // the function that records a failed check
	bindings []uint32
	shared   []uint32
	push     uint32
	builtins map[uint32]uint32
	helpers  map[string]uint32
	sg       int // the subgroup size (0: any)
}

// Emit translates k into one SPIR-V module for Vulkan compute and returns
// the executable-format entry describing it. k is verified first; the
// tile ops Contract and DWConv are UNIMPLEMENTED (GPU legalization expands
// them into loops first).
func Emit(k *kir.Kernel, opts Options) (entry schema.Entry, err error) {
	if err := kir.Verify(k); err != nil {
		return schema.Entry{}, err
	}
	if opts.Version == 0 {
		opts.Version = 0x00010300
	}
	if opts.Version < 0x00010300 || opts.Version > 0x00010600 || opts.Version&0xff0000ff != 0 {
		return schema.Entry{}, status.Errorf(status.InvalidArgument, "spirv: kernel @%s: SPIR-V version %#x is not supported (1.3 to 1.6)", k.Name, opts.Version)
	}
	e := &emitter{k: k, opts: opts, m: newModule(opts.Version), vals: make([][]uint32, len(k.Types)),
		defs: make([]*kir.Op, len(k.Types)), builtins: map[uint32]uint32{}, helpers: map[string]uint32{}}
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(failure)
			if !ok {
				panic(r)
			}
			entry, err = schema.Entry{}, f.err
		}
	}()
	e.prepare()
	e.main()
	return e.entry(), nil
}

// failf stops the translation with an error about the current op.
func (e *emitter) failf(code status.Code, format string, args ...any) {
	panic(failure{status.Errorf(code, "spirv: kernel @%s: %s", e.k.Name, fmt.Sprintf(format, args...))})
}

// where describes the op being translated, for messages.
func (e *emitter) where() string {
	if e.op == nil {
		return "its interface"
	}
	return fmt.Sprintf("op %d: %s", e.opNo, e.op.Kind)
}

// need declares capability c, which what needs; it fails when the target
// lacks it.
func (e *emitter) need(c, what string) {
	id, ok := capabilityIDs[c]
	if !ok {
		e.failf(status.Internal, "unknown capability %s", c)
	}
	for _, n := range e.capNames {
		if n == c {
			return
		}
	}
	if c != "Shader" && !e.opts.Capabilities[c] {
		target := "the target"
		if e.opts.Target != "" {
			target = "target " + e.opts.Target
		}
		hint := ""
		switch c {
		case "Float64":
			hint = "; compile with --iree-input-demote-f64-to-f32"
		case "Int64":
			hint = "; kernel index arithmetic is 64-bit"
		}
		panic(failure{status.Errorf(status.FailedPrecondition, "spirv: kernel %s uses %s, which needs the SPIR-V capability %s that %s lacks%s", e.k.Name, what, c, target, hint)})
	}
	e.capNames = append(e.capNames, c)
	e.m.capability(id)
	switch {
	case c == "StorageBuffer8BitAccess" && e.opts.Version < 0x00010500:
		e.m.extension("SPV_KHR_8bit_storage")
	}
}

// prepare checks for ops the target does not handle, records defining ops
// and declares the interface.
func (e *emitter) prepare() {
	e.need("Shader", "")
	var walk func(b *kir.Block)
	uses := false
	walk = func(b *kir.Block) {
		for _, op := range b.Ops {
			switch op.Kind {
			case kir.Contract, kir.DWConv:
				e.failf(status.Unimplemented, "the SPIR-V target does not implement the tile op %s (GPU legalization expands it into loops first)", op.Kind)
			case kir.SubgroupReduce, kir.SubgroupShuffle, kir.SubgroupSize, kir.LaneID:
				uses = true
			}
			for _, r := range op.Results {
				e.defs[r] = op
			}
			for _, r := range op.Regions {
				walk(r)
			}
		}
	}
	walk(e.k.Body)
	if uses {
		e.sg = e.k.SubgroupSize
		if e.sg == 0 {
			e.sg = e.opts.SubgroupSize
		}
	}
	e.declareBindings()
}

// main builds the entry point function.
func (e *emitter) main() {
	void := e.m.tVoid()
	id := e.m.id()
	e.m.entry = id
	e.m.local = e.k.WorkgroupSize
	ft := e.m.tFunc(void)
	e.emit(opFunction, void, id, 0, ft)
	e.label(e.m.id())
	e.zeroShared()
	e.ops(e.k.Body)
	e.emit(opReturn)
	e.emit(opFunctionEnd)
	e.m.funcs = append(e.m.funcs, e.fn...)
	e.fn = nil
}

// entry describes the finished module.
func (e *emitter) entry() schema.Entry {
	x := schema.Entry{Name: e.k.Name, WorkgroupSize: e.k.WorkgroupSize, SubgroupSize: e.sg,
		NumPushConstants: e.k.NumPushConstants, SPIRV: e.m.encode()}
	for _, b := range e.k.Bindings {
		x.Bindings = append(x.Bindings, schema.Access(b.Access))
	}
	for _, s := range e.k.Shared {
		x.SharedBytes += int(s.Count) * sharedElemBytes(s.Elem)
	}
	if e.status != 0 {
		x.Flags |= schema.FlagErrors
	}
	x.Capabilities = append([]string(nil), e.capNames...)
	sort.Strings(x.Capabilities)
	return x
}

// helper returns the function name, building it on first use with body,
// which gets the parameters and returns the result (ignored for void).
func (e *emitter) helper(name string, ret uint32, params []uint32, body func(args []uint32) uint32) uint32 {
	if id, ok := e.helpers[name]; ok {
		return id
	}
	saveFn, saveBlock := e.fn, e.block
	e.fn = nil
	id := e.m.id()
	e.helpers[name] = id
	ft := e.m.tFunc(ret, params...)
	e.emit(opFunction, ret, id, 0, ft)
	args := make([]uint32, len(params))
	for i, p := range params {
		args[i] = e.m.id()
		e.emit(opFunctionParameter, p, args[i])
	}
	e.label(e.m.id())
	r := body(args)
	if ret == e.m.tVoid() {
		e.emit(opReturn)
	} else {
		e.emit(opReturnValue, r)
	}
	e.emit(opFunctionEnd)
	e.m.funcs = append(e.m.funcs, e.fn...)
	e.fn, e.block = saveFn, saveBlock
	return id
}

// call calls function fn.
func (e *emitter) call(ret, fn uint32, args ...uint32) uint32 {
	return e.val(ret, opFunctionCall, append([]uint32{fn}, args...)...)
}

// emit appends an instruction without a result to the current function.
func (e *emitter) emit(op uint32, operands ...uint32) { e.fn = inst(e.fn, op, operands...) }

// val appends an instruction with result type t and returns its result.
// Float arithmetic is decorated NoContraction: each operation rounds on
// its own, as the interpreter's do (no fusing into FMAs, no
// reassociation by the driver's compiler).
func (e *emitter) val(t, op uint32, operands ...uint32) uint32 {
	id := e.m.id()
	e.fn = inst(e.fn, op, append([]uint32{t, id}, operands...)...)
	switch op {
	case opFAdd, opFSub, opFMul, opFDiv:
		e.m.decorate(id, decNoContraction)
	}
	return id
}

// ext calls GLSL.std.450 instruction fn.
func (e *emitter) ext(t, fn uint32, args ...uint32) uint32 {
	set := e.m.glslSet()
	return e.val(t, opExtInst, append([]uint32{set, fn}, args...)...)
}

// label starts block id.
func (e *emitter) label(id uint32) {
	e.emit(opLabel, id)
	e.block = id
}

// ops translates the ops of b (up to its Yield, which the caller handles).
func (e *emitter) ops(b *kir.Block) []kir.Value {
	for _, op := range b.Ops {
		e.opNo++
		e.op = op
		if op.Kind == kir.Yield {
			return op.Args
		}
		e.translate(op)
	}
	return nil
}

// set gives kir value v its lane ids.
func (e *emitter) set(v kir.Value, lanes []uint32) { e.vals[v] = lanes }

// lane returns lane i of v (a scalar's only lane for any i).
func (e *emitter) lane(v kir.Value, i int) uint32 {
	l := e.vals[v]
	if len(l) == 1 {
		return l[0]
	}
	return l[i]
}

// translate emits one op that is not a Yield.
func (e *emitter) translate(op *kir.Op) {
	k := op.Kind
	var rt kir.Type
	if len(op.Results) == 1 {
		rt = e.k.Types[op.Results[0]]
	}
	switch {
	case k == kir.For:
		e.forOp(op)
	case k == kir.If:
		e.ifOp(op)
	case k == kir.ConstInt || k == kir.ConstFloat:
		e.constant(op, rt)
	case k == kir.PushConstant && rt.Width() == 2:
		e.set(op.Results[0], []uint32{e.pushConstant(int(op.Imm), true), e.pushWord(2*int(op.Imm) + 1)})
	case k >= kir.PushConstant && k <= kir.LaneID:
		e.set(op.Results[0], []uint32{e.query(op)})
	case k == kir.Add || k == kir.Sub || k == kir.Mul || kir.IsIntBinary(k) || kir.IsFloatBinary(k):
		e.lanewise(op, rt, func(i int) uint32 {
			a, b := e.lane(op.Args[0], i), e.lane(op.Args[1], i)
			if rt.Elem.IsInt() {
				return e.intBinary(k, rt.Elem, a, b)
			}
			return e.floatBinary(k, rt.Elem, a, b)
		})
	case kir.IsUnary(k):
		e.lanewise(op, rt, func(i int) uint32 {
			if rt.Elem.IsInt() {
				return e.intUnary(k, rt.Elem, e.lane(op.Args[0], i))
			}
			return e.floatUnary(k, rt.Elem, e.lane(op.Args[0], i))
		})
	case k == kir.IsNaN || k == kir.IsInf || k == kir.IsFinite:
		s := e.k.Types[op.Args[0]].Elem
		e.lanewise(op, rt, func(i int) uint32 { return e.classify(k, s, e.lane(op.Args[0], i)) })
	case k == kir.FMA:
		e.lanewise(op, rt, func(i int) uint32 {
			return e.fma(rt.Elem, e.lane(op.Args[0], i), e.lane(op.Args[1], i), e.lane(op.Args[2], i))
		})
	case k == kir.Select:
		t := e.reg(rt.Elem)
		e.lanewise(op, rt, func(i int) uint32 {
			return e.val(t, opSelect, e.lane(op.Args[0], i), e.lane(op.Args[1], i), e.lane(op.Args[2], i))
		})
	case k == kir.CmpI || k == kir.CmpF:
		s := e.k.Types[op.Args[0]].Elem
		e.lanewise(op, rt, func(i int) uint32 {
			a, b := e.lane(op.Args[0], i), e.lane(op.Args[1], i)
			if k == kir.CmpI {
				return e.cmpInt(kir.Pred(op.Imm), s, a, b)
			}
			return e.cmpFloat(kir.Pred(op.Imm), s, a, b)
		})
	case kir.IsCast(k):
		from := e.k.Types[op.Args[0]].Elem
		e.lanewise(op, rt, func(i int) uint32 { return e.convert(k, from, rt.Elem, e.lane(op.Args[0], i)) })
	case k >= kir.Broadcast && k <= kir.Reduce:
		e.vector(op, rt)
	case k == kir.Load || k == kir.LoadStrided || k == kir.LoadShared:
		e.load(op, rt)
	case k == kir.Store || k == kir.StoreStrided || k == kir.StoreShared:
		e.store(op)
	case k == kir.AtomicRMW:
		e.atomicRMW(op)
	case k == kir.Barrier:
		e.barrier(op.Imm == kir.BarrierBindings)
	case k == kir.SubgroupReduce:
		e.set(op.Results[0], []uint32{e.subgroupReduce(kir.ReduceKind(op.Imm), rt.Elem, e.lane(op.Args[0], 0))})
	case k == kir.SubgroupShuffle:
		e.subgroupShuffle(op, rt)
	default:
		e.failf(status.Unimplemented, "op %d: %s is not implemented by the SPIR-V target", e.opNo, k)
	}
}

// lanewise defines op's result lane by lane with f.
func (e *emitter) lanewise(op *kir.Op, rt kir.Type, f func(i int) uint32) {
	out := make([]uint32, rt.Width())
	for i := range out {
		out[i] = f(i)
	}
	e.set(op.Results[0], out)
}
