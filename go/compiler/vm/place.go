package vm

import (
	"sort"
	"strings"

	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/linalg"
	"github.com/gree-ml/gree/go/schemas/module"
)

// Concatenations in place. A contiguous tensor.concat (linalg.ContiguousConcat)
// is its pieces' bytes one after another, so a piece a dispatch computes
// can be written straight into the concatenation's buffer instead of into
// a buffer of its own that the host program then copies (squeezenet's and
// inception's channel concatenations). And when every piece of a smaller
// concatenation lies in a larger one's buffer, in the same order and
// without gaps, the smaller one is a view of the larger (DenseNet: each
// layer reads the concatenation of all the features before it, a prefix of
// its block's final concatenation, which no copy then builds).
//
// placements plans this per block before the host program is emitted: the
// concatenations of a block, largest first, each take the pieces not yet
// placed elsewhere; the dispatch computing a placed piece binds a view of
// the concatenation's buffer (module.OpSubview), which the host allocates
// when the first such dispatch runs. A value is a view only while nothing
// can write it or keep it beyond the function: every use of a placed
// piece, of a concatenation made a view, and of the reshapes between them
// reads it (a dispatch's input, a concatenation, a reshape, a dimension,
// a check), so the function's discards keep the buffer while any view is
// live (views join their buffer's class, see discardKinds). Pieces go only
// to a concatenation that is not itself a view, so a view's place is
// always in a buffer of its own.

// place is where a value lies in a concatenation's buffer.
type place struct {
	into *ir.Operation // the tensor.concat owning the buffer
	off  int64         // byte offset
}

// placement is a function's plan.
type placement struct {
	// pieces maps dispatch results to where their dispatch writes them.
	pieces map[*ir.Value]place
	// views maps concatenations to the place in another's buffer that
	// holds all their pieces.
	views map[*ir.Operation]place
	// buffers holds, during emission, the register of each owning
	// concatenation's buffer once allocated.
	buffers map[*ir.Operation]int32
}

// viewOps are the host ops that view their first operand's data in place.
var viewOps = map[string]bool{
	"tensor.reshape": true, "tensor.expand_shape": true, "tensor.collapse_shape": true,
	"tensor.cast": true, "flow.tensor.tie_shape": true,
}

// planPlacements plans the in-place concatenations of fn; align is the
// byte alignment a view must start at (a GPU binding's offset alignment),
// 0 to place nothing.
func planPlacements(fn *ir.Operation, refs map[*ir.Operation]DispatchRef, dead map[*ir.Operation]bool, align int64) *placement {
	p := &placement{pieces: map[*ir.Value]place{}, views: map[*ir.Operation]place{}, buffers: map[*ir.Operation]int32{}}
	if align <= 0 {
		return p
	}
	// Uses of each value by the ops of its own block (an op nested in a
	// region counts as its ancestor there); a use elsewhere is nil.
	uses := map[*ir.Value][]*ir.Operation{}
	var concats []*ir.Operation
	fn.Walk(func(op *ir.Operation) bool {
		if op != fn && op.Name == linalg.ConcatName {
			if _, ok := linalg.ContiguousConcat(op); ok {
				concats = append(concats, op)
			}
		}
		for _, v := range op.Operands {
			user := op
			for user != nil && user.Block() != v.ParentBlock() {
				user = user.ParentOp()
			}
			uses[v] = append(uses[v], user)
		}
		return true
	})
	if len(concats) == 0 {
		return p
	}
	readOnly := map[*ir.Value]bool{}
	var reads func(v *ir.Value) bool
	reads = func(v *ir.Value) bool {
		if r, ok := readOnly[v]; ok {
			return r
		}
		readOnly[v] = false // a cycle (none in a block) reads nothing
		ok := true
		for _, u := range uses[v] {
			switch {
			case u == nil:
				ok = false
			case u.Name == "tensor.dim", strings.HasPrefix(u.Name, "check."):
			case u.Name == linalg.ConcatName:
				_, ok = linalg.ContiguousConcat(u)
			case viewOps[u.Name]:
				ok = u.Operands[0] == v && reads(u.Results[0])
			case u.Name == "flow.dispatch.region":
				ok = dead[u] || onlyReads(refs[u], v)
			default:
				ok = false
			}
			if !ok {
				break
			}
		}
		readOnly[v] = ok
		return ok
	}
	// root returns the dispatch result a piece views, if its dispatch
	// can write it in place, else nil.
	root := func(v *ir.Value) *ir.Value {
		v = viewed(v)
		region := v.Owner()
		if region == nil || region.Name != "flow.dispatch.region" || dead[region] {
			return nil
		}
		ref, ok := refs[region]
		if !ok || !bindsValue(ref, v) || readsBinding(ref, v) || !ir.HasStaticShape(v.Type.(*ir.RankedTensorType)) {
			return nil
		}
		return v
	}
	// Largest first: a piece goes to the largest concatenation that has
	// it; program order among equals.
	sort.SliceStable(concats, func(i, j int) bool { return concatBytes(concats[i]) > concatBytes(concats[j]) })
	for _, c := range concats {
		offs := pieceOffsets(c)
		roots := make([]*ir.Value, len(c.Operands))
		for k, v := range c.Operands {
			if r := root(v); r != nil && r.ParentBlock() == c.Block() && reads(r) {
				roots[k] = r
			}
		}
		// A view of a larger concatenation's buffer: every piece placed
		// there, in order, without gaps.
		if pl, ok := p.pieces[roots[0]]; ok && roots[0] != nil && reads(c.Results[0]) {
			view := true
			for k, r := range roots {
				q, ok := p.pieces[r]
				view = view && r != nil && ok && q.into == pl.into && q.off == pl.off+offs[k]
			}
			if view {
				p.views[c] = pl
				continue
			}
		}
		for k, r := range roots {
			if _, placed := p.pieces[r]; r != nil && !placed && offs[k]%align == 0 && !repeated(roots, k) {
				p.pieces[r] = place{into: c, off: offs[k]}
			}
		}
	}
	return p
}

// viewed follows v back through host views (reshapes, casts) to the
// value whose data it is.
func viewed(v *ir.Value) *ir.Value {
	for v.Owner() != nil && viewOps[v.Owner().Name] {
		v = v.Owner().Operands[0]
	}
	return v
}

// onlyReads reports whether the dispatch ref binds v, if at all, only
// for reading.
func onlyReads(ref DispatchRef, v *ir.Value) bool {
	if ref.Dispatch == nil {
		return false
	}
	for i, b := range ref.Bindings {
		if b != v {
			continue
		}
		for _, k := range append([]*kir.Kernel{ref.Kernel}, ref.Variants...) {
			if k.Bindings[i].Access&kir.Write != 0 {
				return false
			}
		}
	}
	return true
}

// repeated reports whether roots[k] also appears earlier in roots (a
// value concatenated with itself is placed once).
func repeated(roots []*ir.Value, k int) bool {
	for _, r := range roots[:k] {
		if r == roots[k] {
			return true
		}
	}
	return false
}

// concatBytes is the byte size of a contiguous concatenation's result.
func concatBytes(c *ir.Operation) int64 {
	return tensorBytes(c.Results[0].Type.(*ir.RankedTensorType))
}

// tensorBytes is the byte size of a static tensor type.
func tensorBytes(t *ir.RankedTensorType) int64 {
	eb, err := ir.ElementByteSize(t.Elem)
	n, _ := ir.NumElements(t.Dims)
	if err != nil {
		return 0
	}
	return int64(eb) * n
}

// pieceOffsets returns the byte offset of each piece of a contiguous
// concatenation in its result.
func pieceOffsets(c *ir.Operation) []int64 {
	offs := make([]int64, len(c.Operands))
	off := int64(0)
	for k, v := range c.Operands {
		offs[k] = off
		off += tensorBytes(v.Type.(*ir.RankedTensorType))
	}
	return offs
}

// placedBuffer returns the register of the buffer of concatenation c, allocating
// it the first time (uninitialized: its pieces cover every byte).
func (fe *fnEmitter) placedBuffer(c *ir.Operation) (int32, error) {
	if r, ok := fe.place.buffers[c]; ok {
		return r, nil
	}
	rt := c.Results[0].Type.(*ir.RankedTensorType)
	word, ok := ElementTypeWord(rt.Elem)
	if !ok {
		return 0, ir.OpErrorf(c, "concatenates %s elements, which the host program cannot hold", rt.Elem)
	}
	var regs []int32
	for _, x := range rt.Dims {
		regs = append(regs, fe.constI64(x))
	}
	r := fe.newReg(module.KindRef)
	fe.emit(module.Instr{Op: module.OpAlloc, Sub: 1, Dst: []int32{r}, Src: regs, Imm: int64(word)})
	fe.place.buffers[c] = r
	return r, nil
}

// subview emits a view of the static tensor type t at pl and returns its
// register.
func (fe *fnEmitter) subview(pl place, t *ir.RankedTensorType) (int32, error) {
	buf, err := fe.placedBuffer(pl.into)
	if err != nil {
		return 0, err
	}
	src := []int32{buf, fe.constI64(pl.off)}
	for _, x := range t.Dims {
		src = append(src, fe.constI64(x))
	}
	r := fe.newReg(module.KindRef)
	fe.emit(module.Instr{Op: module.OpSubview, Dst: []int32{r}, Src: src})
	return r, nil
}
