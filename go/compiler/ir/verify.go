package ir

// Verify checks the structural invariants of op and everything nested in
// it, returning a *Diagnostic for the first violation:
//   - parent links (op ↔ block ↔ region) and result/argument numbering;
//   - every operand and result has a type, every operand is defined;
//   - dominance: an operand defined in the same block comes earlier, one
//     defined in another block of the same region is in a dominating block,
//     and values never cross into an isolated-from-above operation;
//   - successors are blocks of the same region, never its entry block;
//   - terminators: registered terminators end their block, and the blocks
//     of registered ops that need terminators end with one;
//   - each registered OpInfo.Verify hook.
func Verify(op *Operation) error {
	v := &verifier{pos: map[*Operation]int{}, doms: map[*Region]*domTree{}}
	return v.op(op)
}

type verifier struct {
	pos  map[*Operation]int
	doms map[*Region]*domTree
}

func (v *verifier) op(op *Operation) error {
	if op.Loc == nil {
		op.Loc = Unknown
	}
	for i, r := range op.Results {
		if r == nil || r.op != op || r.index != i {
			return OpErrorf(op, "result #%d is not linked to its operation", i)
		}
		if r.Type == nil {
			return OpErrorf(op, "result #%d has no type", i)
		}
	}
	info, registered := LookupOp(op.Name)
	for _, r := range op.Regions {
		if r.op != op {
			return OpErrorf(op, "region is not linked to its operation")
		}
		for _, b := range r.Blocks {
			if b.region != r {
				return OpErrorf(op, "block is not linked to its region")
			}
			for i, a := range b.Args {
				if a.block != b || a.index != i || a.Type == nil {
					return OpErrorf(op, "block argument #%d is malformed", i)
				}
			}
			for i, inner := range b.Ops {
				if inner.block != b {
					return OpErrorf(inner, "is not linked to its block")
				}
				v.pos[inner] = i
			}
		}
	}
	for _, r := range op.Regions {
		for _, b := range r.Blocks {
			if err := v.block(op, info, registered, b); err != nil {
				return err
			}
		}
	}
	if registered && info.Verify != nil {
		return info.Verify(op)
	}
	return nil
}

func (v *verifier) block(parent *Operation, info OpInfo, registered bool, b *Block) error {
	needTerm := registered && !info.NoTerminator
	if needTerm && len(b.Ops) == 0 {
		return OpErrorf(parent, "has an empty block: expected at least a terminator")
	}
	for i, inner := range b.Ops {
		innerInfo, innerReg := LookupOp(inner.Name)
		last := i == len(b.Ops)-1
		if innerReg && innerInfo.Terminator && !last {
			return OpErrorf(inner, "must be the last operation in the parent block")
		}
		if last && needTerm && innerReg && !innerInfo.Terminator {
			return OpErrorf(inner, "is not a terminator, but ends a block of '%s' (expected a terminator after it)", parent.Name)
		}
		for j, operand := range inner.Operands {
			if err := v.operand(inner, j, operand); err != nil {
				return err
			}
		}
		for _, s := range inner.Successors {
			if s == nil || s.region != b.region {
				return OpErrorf(inner, "has a successor that is not a block of the same region")
			}
			if s == b.region.Blocks[0] {
				return OpErrorf(inner, "has the entry block of its region as a successor (entry blocks have no predecessors)")
			}
		}
		if err := v.op(inner); err != nil {
			return err
		}
	}
	return nil
}

func (v *verifier) operand(user *Operation, i int, val *Value) error {
	if val == nil || val.Type == nil {
		return OpErrorf(user, "operand #%d is null or untyped", i)
	}
	def := val.ParentBlock()
	if def == nil || def.region == nil {
		return OpErrorf(user, "operand #%d is not defined in any region", i)
	}
	anc := user
	for anc.block == nil || anc.block.region != def.region {
		if anc.block == nil || anc.block.region == nil || anc.block.region.op == nil {
			return OpErrorf(user, "operand #%d does not dominate this use (defined in another scope)", i)
		}
		parent := anc.block.region.op
		if IsIsolatedFromAbove(parent.Name) {
			return OpErrorf(user, "operand #%d uses a value defined outside the isolated region of '%s'", i, parent.Name)
		}
		anc = parent
	}
	if anc.block == def {
		if val.op == nil {
			return nil
		}
		if val.op == anc || v.position(val.op) >= v.position(anc) {
			return OpErrorf(user, "operand #%d does not dominate this use", i)
		}
		return nil
	}
	if !v.dominates(def, anc.block) {
		return OpErrorf(user, "operand #%d does not dominate this use (its block does not dominate)", i)
	}
	return nil
}

func (v *verifier) position(op *Operation) int {
	if p, ok := v.pos[op]; ok {
		return p
	}
	p := op.block.IndexOf(op)
	v.pos[op] = p
	return p
}

// domTree is the immediate-dominator tree of one region's CFG.
type domTree struct {
	index map[*Block]int
	idom  []int // -1: unreachable
}

func (v *verifier) dominates(a, b *Block) bool {
	t := v.doms[a.region]
	if t == nil {
		t = buildDomTree(a.region)
		v.doms[a.region] = t
	}
	ai, bi := t.index[a], t.index[b]
	if t.idom[bi] < 0 {
		return true // uses in unreachable blocks are not checked
	}
	for {
		if bi == ai {
			return true
		}
		if t.idom[bi] == bi {
			return false
		}
		bi = t.idom[bi]
	}
}

// buildDomTree computes immediate dominators (Cooper, Harvey, Kennedy).
func buildDomTree(r *Region) *domTree {
	n := len(r.Blocks)
	t := &domTree{index: make(map[*Block]int, n), idom: make([]int, n)}
	for i, b := range r.Blocks {
		t.index[b] = i
		t.idom[i] = -1
	}
	succs := func(i int) []int {
		var out []int
		for _, op := range r.Blocks[i].Ops {
			for _, s := range op.Successors {
				if j, ok := t.index[s]; ok {
					out = append(out, j)
				}
			}
		}
		return out
	}
	// Iterative DFS for the postorder.
	order := make([]int, n) // postorder number
	visited := make([]bool, n)
	var post []int
	type frame struct{ b, next int }
	stack := []frame{{0, 0}}
	visited[0] = true
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		ss := succs(f.b)
		if f.next < len(ss) {
			s := ss[f.next]
			f.next++
			if !visited[s] {
				visited[s] = true
				stack = append(stack, frame{s, 0})
			}
			continue
		}
		order[f.b] = len(post)
		post = append(post, f.b)
		stack = stack[:len(stack)-1]
	}
	preds := make([][]int, n)
	for i := 0; i < n; i++ {
		if visited[i] {
			for _, s := range succs(i) {
				preds[s] = append(preds[s], i)
			}
		}
	}
	t.idom[0] = 0
	for changed := true; changed; {
		changed = false
		for k := len(post) - 1; k >= 0; k-- {
			b := post[k]
			if b == 0 {
				continue
			}
			newIdom := -1
			for _, p := range preds[b] {
				if t.idom[p] < 0 {
					continue
				}
				if newIdom < 0 {
					newIdom = p
					continue
				}
				x, y := p, newIdom
				for x != y {
					for order[x] < order[y] {
						x = t.idom[x]
					}
					for order[y] < order[x] {
						y = t.idom[y]
					}
				}
				newIdom = x
			}
			if newIdom >= 0 && t.idom[b] != newIdom {
				t.idom[b] = newIdom
				changed = true
			}
		}
	}
	return t
}
