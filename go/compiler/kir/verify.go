package kir

import (
	"fmt"

	"github.com/gree-ml/gree/go/status"
)

// Verify checks that k is well formed: the interface is consistent
// (binding accesses, push-constant indices, grid, workgroup size), every
// value is defined exactly once before its uses and used only in its scope,
// every op has the operand and result types its comment in ops.go gives,
// immediates (dimensions, lanes, predicates, reduction kinds) are in range,
// and every For/If region ends in a Yield of the right types. It also
// checks the thread-level contract of the package documentation: tile ops
// (Contract, DWConv) only in one-thread workgroups, and Barrier,
// SubgroupReduce and SubgroupShuffle only in uniform control flow. The
// error is an INVALID_ARGUMENT status naming the kernel and the op.
func Verify(k *Kernel) error {
	if k == nil {
		return status.New(status.InvalidArgument, "kir: nil kernel")
	}
	v := &verifier{k: k, defined: make([]bool, len(k.Types)), scope: make([]bool, len(k.Types))}
	if err := v.header(); err != nil {
		return err
	}
	if k.Body == nil {
		return v.errf(nil, "has no body")
	}
	if err := v.block(k.Body, nil, true); err != nil {
		return err
	}
	return v.uniform()
}

type verifier struct {
	k       *Kernel
	defined []bool // defined somewhere already
	scope   []bool // visible at the current point
	n       int    // ops seen, for messages
	threads int    // threads per workgroup
}

func (v *verifier) errf(op *Op, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if op != nil {
		return status.Errorf(status.InvalidArgument, "kir: kernel @%s: op #%d (%s): %s", v.k.Name, v.n, op.Kind, msg)
	}
	return status.Errorf(status.InvalidArgument, "kir: kernel @%s: %s", v.k.Name, msg)
}

func validScalar(s Scalar) bool { return s >= I1 && s <= F64 }

func (v *verifier) header() error {
	k := v.k
	for i, b := range k.Bindings {
		if !validScalar(b.Elem) {
			return v.errf(nil, "binding %d has invalid element type %s", i, b.Elem)
		}
		if b.Access == 0 || b.Access&^ReadWrite != 0 {
			return v.errf(nil, "binding %d has invalid access %d", i, b.Access)
		}
	}
	if k.NumPushConstants < 0 {
		return v.errf(nil, "negative push-constant count %d", k.NumPushConstants)
	}
	for d, g := range k.Grid {
		if g.Static < 0 || g.Tile < 1 {
			return v.errf(nil, "grid dimension %d: static %d must be >= 0 and tile %d >= 1", d, g.Static, g.Tile)
		}
		for _, pc := range g.PushConstants {
			if pc < 0 || pc >= k.NumPushConstants {
				return v.errf(nil, "grid dimension %d uses push constant %d of %d", d, pc, k.NumPushConstants)
			}
		}
	}
	v.threads = 1
	for d, n := range k.WorkgroupSize {
		if n < 1 {
			return v.errf(nil, "workgroup size %v: dimension %d must be >= 1", k.WorkgroupSize, d)
		}
		v.threads = min(v.threads, 1<<40) * min(n, 1<<20) // no overflow
	}
	if sg := k.SubgroupSize; sg < 0 || sg > 1024 || sg&(sg-1) != 0 {
		return v.errf(nil, "subgroup size %d must be 0 (the default) or a power of two up to 1024", sg)
	}
	for i, s := range k.Shared {
		if !validScalar(s.Elem) || s.Count < 0 {
			return v.errf(nil, "shared allocation %d has invalid type %s or count %d", i, s.Elem, s.Count)
		}
	}
	for i, t := range k.Types {
		if !validScalar(t.Elem) || t.Lanes < 0 {
			return v.errf(nil, "value %%%d has invalid type %s", i, t)
		}
	}
	return nil
}

// use checks that val is visible here and returns its type.
func (v *verifier) use(op *Op, val Value) (Type, error) {
	if val < 0 || int(val) >= len(v.k.Types) {
		return Type{}, v.errf(op, "uses value %%%d, which does not exist", val)
	}
	if !v.scope[val] {
		if v.defined[val] {
			return Type{}, v.errf(op, "uses %%%d outside the region that defines it", val)
		}
		return Type{}, v.errf(op, "uses %%%d before its definition", val)
	}
	return v.k.Types[val], nil
}

func (v *verifier) def(op *Op, val Value) error {
	if val < 0 || int(val) >= len(v.k.Types) {
		return v.errf(op, "defines value %%%d, which has no type", val)
	}
	if v.defined[val] {
		return v.errf(op, "defines %%%d a second time", val)
	}
	v.defined[val] = true
	v.scope[val] = true
	return nil
}

// block checks b; yield holds the types its Yield must carry. The kernel
// body (top) needs no terminator and may end in an empty Yield.
func (v *verifier) block(b *Block, yield []Type, top bool) error {
	var local []Value
	defer func() {
		for _, val := range local {
			v.scope[val] = false
		}
	}()
	for _, a := range b.Args {
		if err := v.def(nil, a); err != nil {
			return err
		}
		local = append(local, a)
	}
	for i, op := range b.Ops {
		v.n++
		if op == nil {
			return v.errf(nil, "op #%d is nil", v.n)
		}
		if op.Kind == Yield {
			if i != len(b.Ops)-1 {
				return v.errf(op, "yield must be the last op of its region")
			}
			if err := v.yield(op, yield, top); err != nil {
				return err
			}
			return nil
		}
		ts := make([]Type, len(op.Args))
		for j, a := range op.Args {
			t, err := v.use(op, a)
			if err != nil {
				return err
			}
			ts[j] = t
		}
		if op.Kind != For && op.Kind != If && len(op.Regions) != 0 {
			return v.errf(op, "has regions but is not for or if")
		}
		if err := v.check(op, ts); err != nil {
			return err
		}
		for _, r := range op.Results {
			if err := v.def(op, r); err != nil {
				return err
			}
			local = append(local, r)
		}
	}
	if !top {
		return v.errf(nil, "region ending after op #%d has no yield", v.n)
	}
	return nil
}

func (v *verifier) yield(op *Op, want []Type, top bool) error {
	if top {
		if len(op.Args) != 0 {
			return v.errf(op, "the kernel body cannot yield values")
		}
		return nil
	}
	if len(op.Args) != len(want) {
		return v.errf(op, "yields %d values, want %d", len(op.Args), len(want))
	}
	for i, a := range op.Args {
		t, err := v.use(op, a)
		if err != nil {
			return err
		}
		if !SameType(t, want[i]) {
			return v.errf(op, "yield %d has type %s, want %s", i, t, want[i])
		}
	}
	return nil
}

// IsIndexType reports whether t is an index type: i64, or i32 (the low
// 32 bits of an index whose value lies in the int32 range).
func IsIndexType(t Type) bool { return SameType(t, S(I64)) || SameType(t, S(I32)) }

// SameType reports whether a and b are the same type (a Lanes of 0 and of
// 1 both mean a scalar).
func SameType(a, b Type) bool { return a.Elem == b.Elem && a.Width() == b.Width() }

func (v *verifier) resultTypes(op *Op) []Type {
	ts := make([]Type, len(op.Results))
	for i, r := range op.Results {
		if r >= 0 && int(r) < len(v.k.Types) {
			ts[i] = v.k.Types[r]
		}
	}
	return ts
}

func (v *verifier) forOp(op *Op, ts []Type) error {
	if len(op.Args) < 3 || len(op.Regions) != 1 || op.Regions[0] == nil {
		return v.errf(op, "needs lo, hi, step and one region")
	}
	for i := 0; i < 3; i++ {
		if !IsIndexType(ts[i]) || !SameType(ts[i], ts[0]) {
			return v.errf(op, "bound %d has type %s, want i64 (or i32 like the others)", i, ts[i])
		}
	}
	inits := ts[3:]
	body := op.Regions[0]
	if len(body.Args) != 1+len(inits) || len(op.Results) != len(inits) {
		return v.errf(op, "has %d inits, %d block arguments and %d results; want n, n+1, n", len(inits), len(body.Args), len(op.Results))
	}
	for i, a := range body.Args {
		if a < 0 || int(a) >= len(v.k.Types) {
			return v.errf(op, "block argument %%%d has no type", a)
		}
		want := ts[0]
		if i > 0 {
			want = inits[i-1]
		}
		if !SameType(v.k.Types[a], want) {
			return v.errf(op, "block argument %%%d has type %s, want %s", a, v.k.Types[a], want)
		}
	}
	rts := v.resultTypes(op)
	for i, t := range rts {
		if !SameType(t, inits[i]) {
			return v.errf(op, "result %d has type %s, want %s", i, t, inits[i])
		}
	}
	return v.block(body, inits, false)
}

func (v *verifier) ifOp(op *Op, ts []Type) error {
	if len(op.Args) != 1 || !SameType(ts[0], S(I1)) {
		return v.errf(op, "needs one i1 condition")
	}
	if len(op.Regions) != 2 || op.Regions[0] == nil || op.Regions[1] == nil {
		return v.errf(op, "needs then and else regions")
	}
	rts := v.resultTypes(op)
	if err := v.block(op.Regions[0], rts, false); err != nil {
		return err
	}
	if len(op.Regions[1].Ops) == 0 && len(op.Regions[1].Args) == 0 && len(rts) == 0 {
		return nil
	}
	return v.block(op.Regions[1], rts, false)
}
