package vm

import (
	"math/bits"
	"slices"
	"sort"

	"github.com/gree-ml/gree/go/schemas/module"
)

// insertDiscards adds discard instructions to a finished function so that
// the interpreter can recycle a buffer as soon as its value is dead: a
// backward liveness analysis over the function's basic blocks finds, for
// each ref register, the instructions after which its value is never read
// again, and a discard of those registers is placed right after them. A
// register that dies on a branch (the value copied into a block argument,
// or live on one successor only) is discarded at the start of the
// successor where it is dead. Argument registers belong to the caller and
// are never discarded; returned values are read by the return itself.
// Registers that only hold module constants are not discarded either:
// the device never recycles a constant's storage.
func insertDiscards(f *module.Function) {
	lv := newLiveness(f)
	if lv.n == 0 {
		return
	}
	code := f.Code
	after := make([][]int32, len(code))
	before := make([][]int32, len(code))
	live := lv.newSet()
	touched := lv.newSet()
	// The registers live after each instruction, for discardKinds (one
	// block only).
	var liveAfter []bitset
	if len(lv.blocks) == 1 {
		liveAfter = make([]bitset, len(code))
	}
	for bi, b := range lv.blocks {
		copy(live, lv.liveOut[bi])
		for pc := b.end - 1; pc >= b.start; pc-- {
			in := &code[pc]
			clear(touched)
			lv.addRegs(touched, in.Src)
			lv.addRegs(touched, in.Dst)
			switch in.Op {
			case module.OpBranch, module.OpCondBranch:
				// Registers this jump reads or writes, or that are live
				// after it, die at the start of a target that does not
				// need them.
				touched.or(live)
				for _, t := range successors(in, pc, len(code)) {
					before[t] = lv.appendDead(before[t], touched, lv.liveIn[lv.blockOf[t]])
				}
			case module.OpReturn, module.OpFail:
			default:
				after[pc] = lv.appendDead(nil, touched, live)
				if in.Op == module.OpClone && slices.Contains(after[pc], in.Src[0]) && in.Src[0] != in.Dst[0] {
					in.Sub = module.CloneMayMove
				}
				if liveAfter != nil && len(after[pc]) > 0 {
					liveAfter[pc] = append(bitset(nil), live...)
				}
			}
			lv.removeRegs(live, in.Dst)
			lv.addRegs(live, in.Src)
		}
	}
	var kinds [][]uint8
	if liveAfter != nil {
		kinds = lv.discardKinds(after, liveAfter)
	}
	out := make([]module.Instr, 0, len(code)+len(code)/2)
	newPC := make([]int32, len(code))
	for pc := range code {
		newPC[pc] = int32(len(out))
		if len(before[pc]) > 0 {
			out = append(out, discardOf(before[pc]))
		}
		out = append(out, code[pc])
		if len(after[pc]) == 0 {
			continue
		}
		if kinds == nil {
			out = append(out, discardOf(after[pc]))
			continue
		}
		// One discard per kind, in the order scan, release, keep.
		for k := module.DiscardScan; k <= module.DiscardKeep; k++ {
			var rs []int32
			for i, r := range after[pc] {
				if kinds[pc][i] == k {
					rs = append(rs, r)
				}
			}
			if len(rs) > 0 {
				d := discardOf(rs)
				d.Sub = k
				out = append(out, d)
			}
		}
	}
	retargetBranches(out, newPC)
	f.Code = out
}

// discardKinds classifies the registers each instruction's discard
// (after[pc]) lists, in a function of one block whose live registers
// after each discarding instruction are liveAfter[pc]. Registers that may
// share storage form a class: an alloc or a clone starts one, a reshape
// or a move joins its source's, and any other definition (a call's result,
// a global, a constant, an argument) is of no class. A class escapes when
// one of its registers is passed to a call, stored to a global, returned,
// selected or read by any instruction other than those that only read
// its data (dispatch, load, store, dim, trace, clone, copy) or alias it (reshape,
// move). A register of a class that does not escape is DiscardKeep when
// another register of its class is live after the discard, else
// DiscardRelease; the others stay DiscardScan.
func (lv *liveness) discardKinds(after [][]int32, liveAfter []bitset) [][]uint8 {
	code := lv.f.Code
	cls := make([]int, len(lv.f.Regs)) // class + 1 of each register's value; 0: none
	define := func(pc int, in *module.Instr) {
		for _, d := range in.Dst {
			if lv.f.Regs[d] != module.KindRef {
				continue
			}
			switch in.Op {
			case module.OpAlloc, module.OpClone:
				cls[d] = pc + 1
			case module.OpReshape, module.OpMove, module.OpSubview:
				cls[d] = cls[in.Src[0]]
			default:
				cls[d] = 0
			}
		}
	}
	escaped := map[int]bool{}
	for pc := range code {
		in := &code[pc]
		switch in.Op {
		case module.OpDispatch, module.OpLoad, module.OpStore, module.OpDim, module.OpTrace, module.OpClone, module.OpReshape, module.OpMove, module.OpDiscard, module.OpCopy, module.OpSubview:
		default:
			for _, r := range in.Src {
				if lv.f.Regs[r] == module.KindRef {
					escaped[cls[r]] = true
				}
			}
		}
		define(pc, in)
	}
	clear(cls)
	kinds := make([][]uint8, len(code))
	for pc := range code {
		define(pc, &code[pc])
		if len(after[pc]) == 0 {
			continue
		}
		kinds[pc] = make([]uint8, len(after[pc]))
		for i, r := range after[pc] {
			c := cls[r]
			if c == 0 || escaped[c] {
				continue
			}
			kinds[pc][i] = module.DiscardRelease
			if lv.anyOfClass(liveAfter[pc], cls, c) {
				kinds[pc][i] = module.DiscardKeep
			}
		}
	}
	return kinds
}

// anyOfClass reports whether a register of set (registers live after a
// discard, so none of the discarded ones) has class c.
func (lv *liveness) anyOfClass(set bitset, cls []int, c int) bool {
	for w, x := range set {
		for ; x != 0; x &= x - 1 {
			if cls[lv.regs[w*64+bits.TrailingZeros64(x)]] == c {
				return true
			}
		}
	}
	return false
}

// discardOf returns a discard of regs in ascending order.
func discardOf(regs []int32) module.Instr {
	sort.Slice(regs, func(i, j int) bool { return regs[i] < regs[j] })
	return module.Instr{Op: module.OpDiscard, Src: regs}
}

// successors returns the instructions control may reach after pc.
func successors(in *module.Instr, pc, n int) []int {
	switch in.Op {
	case module.OpBranch:
		return []int{int(in.Index)}
	case module.OpCondBranch:
		return []int{int(in.Index), int(in.Index2)}
	case module.OpReturn, module.OpFail:
		return nil
	}
	if pc+1 < n {
		return []int{pc + 1}
	}
	return nil
}

// bitset is a set of tracked registers (by dense index).
type bitset []uint64

func (s bitset) or(o bitset) {
	for i := range s {
		s[i] |= o[i]
	}
}

// block is the instruction range [start, end) of a basic block.
type block struct{ start, end int }

// liveness holds the live-in and live-out sets of a function's basic
// blocks, over the ref registers that are not arguments.
type liveness struct {
	f       *module.Function
	index   []int32 // register → dense index, or -1 when untracked
	regs    []int32 // dense index → register
	n       int
	blocks  []block
	blockOf []int // instruction → block (only leaders are looked up)
	liveIn  []bitset
	liveOut []bitset
}

func newLiveness(f *module.Function) *liveness {
	lv := &liveness{f: f, index: make([]int32, len(f.Regs))}
	constant := f.ConstantRegisters()
	for r, k := range f.Regs {
		lv.index[r] = -1
		if k == module.KindRef && r >= len(f.Args) && !constant[r] {
			lv.index[r] = int32(lv.n)
			lv.regs = append(lv.regs, int32(r))
			lv.n++
		}
	}
	if lv.n == 0 || len(f.Code) == 0 {
		lv.n = 0
		return lv
	}
	lv.splitBlocks()
	lv.solve()
	return lv
}

// splitBlocks cuts the code at branch targets and after terminators.
func (lv *liveness) splitBlocks() {
	code := lv.f.Code
	leader := make([]bool, len(code)+1)
	leader[0] = true
	for pc := range code {
		switch code[pc].Op {
		case module.OpBranch, module.OpCondBranch, module.OpReturn, module.OpFail:
			leader[pc+1] = true
			for _, t := range successors(&code[pc], pc, len(code)) {
				leader[t] = true
			}
		}
	}
	lv.blockOf = make([]int, len(code))
	start := 0
	for pc := 1; pc <= len(code); pc++ {
		if leader[pc] || pc == len(code) {
			for i := start; i < pc; i++ {
				lv.blockOf[i] = len(lv.blocks)
			}
			lv.blocks = append(lv.blocks, block{start, pc})
			start = pc
		}
	}
}

// solve iterates the backward dataflow equations to their fixed point:
// liveOut(b) = ∪ liveIn(successors), liveIn(b) = uses(b) ∪ (liveOut(b) − defs(b)).
func (lv *liveness) solve() {
	nb := len(lv.blocks)
	gen, kill := make([]bitset, nb), make([]bitset, nb)
	lv.liveIn, lv.liveOut = make([]bitset, nb), make([]bitset, nb)
	for bi, b := range lv.blocks {
		gen[bi], kill[bi] = lv.newSet(), lv.newSet()
		lv.liveIn[bi], lv.liveOut[bi] = lv.newSet(), lv.newSet()
		for pc := b.end - 1; pc >= b.start; pc-- {
			in := &lv.f.Code[pc]
			lv.removeRegs(gen[bi], in.Dst)
			lv.addRegs(kill[bi], in.Dst)
			lv.addRegs(gen[bi], in.Src)
		}
	}
	last := func(b block) int { return b.end - 1 }
	for changed := true; changed; {
		changed = false
		for bi := nb - 1; bi >= 0; bi-- {
			out := lv.liveOut[bi]
			pc := last(lv.blocks[bi])
			for _, t := range successors(&lv.f.Code[pc], pc, len(lv.f.Code)) {
				out.or(lv.liveIn[lv.blockOf[t]])
			}
			in := lv.liveIn[bi]
			for w := range in {
				x := gen[bi][w] | out[w]&^kill[bi][w]
				if x != in[w] {
					in[w] = x
					changed = true
				}
			}
		}
	}
}

func (lv *liveness) newSet() bitset { return make(bitset, (lv.n+63)/64) }

func (lv *liveness) addRegs(s bitset, rs []int32) {
	for _, r := range rs {
		if i := lv.index[r]; i >= 0 {
			s[i/64] |= 1 << (i % 64)
		}
	}
}

func (lv *liveness) removeRegs(s bitset, rs []int32) {
	for _, r := range rs {
		if i := lv.index[r]; i >= 0 {
			s[i/64] &^= 1 << (i % 64)
		}
	}
}

// appendDead appends the registers of set that are not in live.
func (lv *liveness) appendDead(dst []int32, set, live bitset) []int32 {
	for w := range set {
		x := set[w] &^ live[w]
		for x != 0 {
			b := bits.TrailingZeros64(x)
			x &= x - 1
			r := lv.regs[w*64+b]
			if !contains(dst, r) {
				dst = append(dst, r)
			}
		}
	}
	return dst
}

func contains(rs []int32, r int32) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}
