package kir

import (
	"fmt"
	"sync"

	"github.com/gree-ml/gree/go/status"
)

// runThreads runs the workgroup's threads on goroutines and waits for all.
func (m *machine) runThreads() error {
	ws := m.k.WorkgroupSize
	r := &rendezvous{m: m, alive: m.threads, groups: map[int64]*meeting{}}
	r.cond = sync.NewCond(&r.mu)
	m.groups = r
	defer func() { m.groups = nil }()
	var wg sync.WaitGroup
	for l := int64(0); l < m.threads; l++ {
		t := &thread{m: m, vals: make([][]uint64, len(m.k.Types)), linear: l}
		t.tid = [3]int64{l % int64(ws[0]), l / int64(ws[0]) % int64(ws[1]), l / int64(ws[0]*ws[1])}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := t.run(m.k.Body)
			r.exit(err)
		}()
	}
	wg.Wait()
	if r.err != nil {
		return r.err
	}
	return r.broken
}

// rendezvous synchronizes the threads of one workgroup: barriers (group
// -1) and subgroup exchanges (group = subgroup index).
type rendezvous struct {
	m       *machine
	mu      sync.Mutex
	cond    *sync.Cond
	alive   int64 // threads still running
	blocked int64 // threads waiting in a meeting
	groups  map[int64]*meeting
	err     error // the first error a thread returned
	broken  error // set when threads can no longer meet
}

// meeting collects one value per member of a group, all at the same op.
type meeting struct {
	op      *Op // the op the members that arrived wait at
	arrived int64
	gen     int64
	vals    [][]uint64
	result  [][]uint64
}

func (r *rendezvous) size(group int64) int64 {
	if group < 0 {
		return r.m.threads
	}
	return min(r.m.sgSize, r.m.threads-group*r.m.sgSize)
}

// meet waits until every member of group has arrived at op and returns the
// values they brought, in member order. A member arriving at another op
// than those waiting breaks the rendezvous: control flow diverged (the
// kernel breaks the uniformity rule Verify checks).
func (r *rendezvous) meet(t *thread, group int64, op *Op, v []uint64) ([][]uint64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.broken != nil {
		return nil, r.broken
	}
	size := r.size(group)
	m := r.groups[group]
	if m == nil {
		m = &meeting{vals: make([][]uint64, size)}
		r.groups[group] = m
	}
	if m.arrived == 0 {
		m.op = op
	} else if m.op != op {
		what := "workgroup"
		if group >= 0 {
			what = fmt.Sprintf("subgroup %d", group)
		}
		r.broken = status.Errorf(status.FailedPrecondition, "%s: thread %d reached a %s while other threads of its %s wait at another op, a %s (divergent control flow)", notReached, t.linear, op.Kind, what, m.op.Kind)
		r.cond.Broadcast()
		return nil, r.broken
	}
	idx := t.linear
	if group >= 0 {
		idx -= group * r.m.sgSize
	}
	m.vals[idx] = v
	m.arrived++
	if m.arrived == size {
		m.result, m.vals = m.vals, make([][]uint64, size)
		r.blocked -= m.arrived - 1 // the waiters are released
		m.arrived = 0
		m.gen++
		r.cond.Broadcast()
		return m.result, nil
	}
	gen := m.gen
	r.blocked++
	r.checkStuck()
	for m.gen == gen && r.broken == nil {
		r.cond.Wait()
	}
	if m.gen == gen {
		return nil, r.broken
	}
	return m.result, nil
}

// notReached begins the error of a barrier or subgroup op that the threads
// of its group do not reach together (vmvx reports the same).
const notReached = "barrier or subgroup operation not reached by every thread of its group"

// checkStuck breaks the rendezvous when every running thread waits: no
// meeting can complete any more (a barrier in divergent control flow).
func (r *rendezvous) checkStuck() {
	if r.alive > 0 && r.blocked == r.alive && r.broken == nil {
		r.broken = status.New(status.FailedPrecondition, notReached)
		r.cond.Broadcast()
	}
}

// exit records that a thread finished, with its error if any.
func (r *rendezvous) exit(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.alive--
	if err != nil && err != r.broken {
		if r.err == nil {
			r.err = err
		}
		if r.broken == nil {
			r.broken = err
			r.cond.Broadcast()
		}
	}
	r.checkStuck()
}
