package kir

// Uniform control flow (see the package documentation): Barrier,
// SubgroupReduce and SubgroupShuffle may only be nested in Ifs whose
// condition and Fors whose bounds are uniform. The analysis is static
// and conservative: a value is uniform when every thread of the workgroup
// that computes it computes the same value, and it is proved uniform only
// by the rules of uniformResult.

// IsSync reports the ops every thread of a group must reach together:
// Barrier (the workgroup) and the subgroup ops (the subgroup).
func IsSync(k Kind) bool { return k == Barrier || k == SubgroupReduce || k == SubgroupShuffle }

// uniformity is the state of the analysis: uni[v] reports value v uniform.
// Only For block arguments carry state from one pass to the next; every
// other entry is recomputed from its operands.
type uniformity struct {
	k       *Kernel
	uni     []bool
	changed bool
}

// uniformResult reports whether the result of op, whose operands are
// uniform or not as args says, is uniform: ids and sizes of the
// workgroup, push constants and constants are; thread ids, lane ids,
// subgroup op results (a SubgroupReduce is the same across its subgroup
// only, a SubgroupShuffle varies by lane) and every memory load are not;
// any other op's result is uniform when all its operands are.
func uniformResult(op *Op, args func(i int) bool) bool {
	switch op.Kind {
	case ConstInt, ConstFloat, PushConstant, WorkgroupID, WorkgroupCount, WorkgroupSize, SubgroupSize, LaneIota:
		return true
	case ThreadID, LaneID, SubgroupReduce, SubgroupShuffle, Load, LoadStrided, LoadShared:
		return false
	}
	for i := range op.Args {
		if !args(i) {
			return false
		}
	}
	return true
}

// pass computes uni over b and records whether a For block argument lost
// its uniformity (then another pass is needed).
func (u *uniformity) pass(b *Block) {
	for _, op := range b.Ops {
		switch op.Kind {
		case Yield:
		case For:
			body := op.Regions[0]
			bounds := u.uni[op.Args[0]] && u.uni[op.Args[1]] && u.uni[op.Args[2]]
			u.uni[body.Args[0]] = bounds
			for i, a := range body.Args[1:] {
				if !bounds || !u.uni[op.Args[3+i]] {
					u.lower(a)
				}
			}
			u.pass(body)
			yield := body.Ops[len(body.Ops)-1]
			for i, a := range body.Args[1:] {
				if !u.uni[yield.Args[i]] {
					u.lower(a)
				}
			}
			for i, r := range op.Results {
				u.uni[r] = u.uni[body.Args[1+i]]
			}
		case If:
			cond := u.uni[op.Args[0]]
			var ys [2][]Value
			for i, r := range op.Regions {
				u.pass(r)
				if n := len(r.Ops); n > 0 && r.Ops[n-1].Kind == Yield {
					ys[i] = r.Ops[n-1].Args
				}
			}
			for i, r := range op.Results {
				u.uni[r] = cond && u.uni[ys[0][i]] && u.uni[ys[1][i]]
			}
		default:
			uni := uniformResult(op, func(i int) bool { return u.uni[op.Args[i]] })
			for _, r := range op.Results {
				u.uni[r] = uni
			}
		}
	}
}

// lower marks the block argument a non-uniform.
func (u *uniformity) lower(a Value) {
	if u.uni[a] {
		u.uni[a] = false
		u.changed = true
	}
}

// uniform checks, once the kernel is otherwise well formed, that every
// Barrier, SubgroupReduce and SubgroupShuffle is in uniform control flow.
func (v *verifier) uniform() error {
	k := v.k
	u := &uniformity{k: k, uni: make([]bool, len(k.Types))}
	for i := range u.uni {
		u.uni[i] = true // optimistic for For block arguments; passes lower them
	}
	for {
		u.changed = false
		u.pass(k.Body)
		if !u.changed {
			break
		}
	}
	v.n = 0
	return v.syncInUniform(u, k.Body, nil, 0)
}

// syncInUniform walks b numbering ops as block does and rejects a
// synchronizing op nested in divergent, the outermost enclosing If or For
// whose condition or bounds are not uniform (nil when there is none),
// which is op number at.
func (v *verifier) syncInUniform(u *uniformity, b *Block, divergent *Op, at int) error {
	for _, op := range b.Ops {
		v.n++
		n := v.n
		switch {
		case IsSync(op.Kind) && divergent != nil:
			what := "every thread of the workgroup"
			if op.Kind != Barrier {
				what = "every thread of its subgroup"
			}
			cause := "condition"
			if divergent.Kind == For {
				cause = "bounds"
			}
			return v.errf(op, "is nested in op #%d (%s), whose %s may differ between threads (they derive from thread_id, lane_id, a subgroup op or a memory load): %s must reach it together, so it must be in uniform control flow", at, divergent.Kind, cause, what)
		case op.Kind == For:
			d, dat := divergent, at
			if d == nil && !(u.uni[op.Args[0]] && u.uni[op.Args[1]] && u.uni[op.Args[2]]) {
				d, dat = op, n
			}
			if err := v.syncInUniform(u, op.Regions[0], d, dat); err != nil {
				return err
			}
		case op.Kind == If:
			d, dat := divergent, at
			if d == nil && !u.uni[op.Args[0]] {
				d, dat = op, n
			}
			for _, r := range op.Regions {
				if err := v.syncInUniform(u, r, d, dat); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
