package vmvx

import "github.com/gree-ml/gree/go/status"

// runThreads runs the threads of a workgroup in turn until all are done,
// performing subgroup operations and releasing barriers when every thread
// of the group has reached them.
func (st *State) runThreads(p *program) error {
	ts := st.threads[:p.threads]
	for {
		for i := range ts {
			t := &ts[i]
			if t.done || t.parked {
				continue
			}
			parked, err := t.exec()
			if err != nil {
				return err
			}
			t.parked, t.done = parked, !parked
		}
		released, finished, err := st.release(p, ts)
		if err != nil {
			return err
		}
		if finished {
			return nil
		}
		if !released {
			return status.Errorf(status.FailedPrecondition, "vmvx: entry %q: barrier or subgroup operation not reached by every thread of its group", p.entry.Name)
		}
	}
}

// release performs every subgroup operation all of whose threads wait at
// it, or else releases a barrier all threads wait at (the same barrier
// instruction: threads at different barriers diverged). It reports
// whether it released any thread and whether all threads are done.
func (st *State) release(p *program, ts []thread) (released, finished bool, err error) {
	allDone, allBarrier := true, true
	for i := range ts {
		t := &ts[i]
		if !t.done {
			allDone = false
		}
		if t.done || p.code[t.pc].op != xBarrier || t.pc != ts[0].pc {
			allBarrier = false
		}
	}
	if allDone {
		return false, true, nil
	}
	sg := p.sgSize
	for g := 0; g*sg < len(ts); g++ {
		members := ts[g*sg : min((g+1)*sg, len(ts))]
		pc, ok := -1, true
		for i := range members {
			t := &members[i]
			if t.done || !t.parked {
				ok = false
				break
			}
			if op := p.code[t.pc].op; op == xBarrier || pc >= 0 && t.pc != pc {
				ok = false
				break
			}
			pc = t.pc
		}
		if !ok {
			continue
		}
		if err := st.subgroupOp(&p.code[pc], members); err != nil {
			return false, false, err
		}
		for i := range members {
			members[i].parked = false
			members[i].pc++
		}
		released = true
	}
	if !released && allBarrier {
		for i := range ts {
			ts[i].parked = false
			ts[i].pc++
		}
		released = true
	}
	return released, false, nil
}

// subgroupOp performs a subgroup reduce or shuffle for members, all
// waiting at in.
func (st *State) subgroupOp(in *inst, members []thread) error {
	if in.op == xSubgroupShuffle {
		vals := st.gather[:len(members)]
		for i := range members {
			vals[i] = *ptr[uint64](&members[i], in.a)
		}
		n := int64(len(members))
		for i := range members {
			lane := *ptr[int64](&members[i], in.b)
			*ptr[uint64](&members[i], in.d) = vals[(lane%n+n)%n]
		}
		return nil
	}
	// Reduce: gather the scalars into lanes of member 0's scratch area and
	// run the prepared reduction there, then hand out the result.
	t0 := &members[0]
	sub := in.sub[0]
	if len(members) != t0.run.prog.sgSize {
		sub = in.sub[1]
	}
	es := sub.size
	for i := range members {
		copy(regBytes(t0, sub.a+uint32(i*es), es), regBytes(&members[i], in.a, es))
	}
	if err := sub.fn(t0, sub); err != nil {
		return err
	}
	r := *ptr[uint64](t0, in.d)
	for i := range members {
		*ptr[uint64](&members[i], in.d) = r
	}
	return nil
}
