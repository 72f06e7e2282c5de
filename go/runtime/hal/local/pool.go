package local

import (
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// pool is a local-task device's persistent workers, as IREE's task
// executor keeps its worker threads: helpers goroutines that wait for a
// dispatch, and the goroutine that dispatches, which works as one more
// worker. After a job a helper spins for a short while (yielding its
// processor) before it parks, so that the next dispatch of an inference,
// a few microseconds later, finds it awake.
type pool struct {
	helpers int
	spin    time.Duration

	busy sync.Mutex // one job at a time; a second dispatcher runs inline
	seq  atomic.Uint64
	cur  atomic.Pointer[job]
	done chan struct{} // the last helper of a job with waiterBit signals here

	wake     []chan struct{} // per helper: a token when it is parked
	sleeping []atomic.Bool   // per helper: parked (or about to be)
	quit     chan struct{}
	exited   sync.WaitGroup
	stopOnce sync.Once
}

// defaultSpin is how long an idle helper polls for the next job before
// it parks. A MobileNet inference runs a dispatch every ~50-300 us, with
// a few microseconds of host work between them.
const defaultSpin = 100 * time.Microsecond

// job.state holds the number of helpers inside the job and two flags:
// closedBit, the job takes no more helpers (no chunk is left), and
// waiterBit, the dispatcher sleeps until the last helper leaves.
const (
	closedBit = 1 << 30
	waiterBit = 1 << 29
)

// job is one dispatch as the pool runs it.
type job struct {
	total, chunk int64
	next         atomic.Int64
	start        func() (run func(first, n int64) error, done func())
	state        atomic.Int32
	errMu        sync.Mutex
	err          error
}

// newPool starts helpers goroutines.
func newPool(helpers int, spin time.Duration) *pool {
	p := &pool{
		helpers:  helpers,
		spin:     spin,
		done:     make(chan struct{}, 1),
		wake:     make([]chan struct{}, helpers),
		sleeping: make([]atomic.Bool, helpers),
		quit:     make(chan struct{}),
	}
	for i := range p.wake {
		p.wake[i] = make(chan struct{}, 1)
	}
	p.exited.Add(helpers)
	for i := 0; i < helpers; i++ {
		go p.helper(i)
	}
	return p
}

// stop ends the helpers and waits for them to exit. No job may be in
// progress or follow.
func (p *pool) stop() {
	p.stopOnce.Do(func() {
		close(p.quit)
		p.exited.Wait()
	})
}

// helper is worker i's loop: wait for a job, work in it, repeat.
func (p *pool) helper(i int) {
	defer p.exited.Done()
	var last uint64
	for {
		s, ok := p.await(i, last)
		if !ok {
			return
		}
		last = s
		if j := p.cur.Load(); j != nil && j.join() {
			j.work()
			if j.state.Add(-1) == closedBit|waiterBit {
				p.done <- struct{}{} // the dispatcher waits for this
			}
		}
	}
}

// await returns the next job sequence number after last, spinning and
// then parking; false when the pool stops.
func (p *pool) await(i int, last uint64) (uint64, bool) {
	if spinUntil(p.spin, func() bool { return p.seq.Load() != last }) {
		return p.seq.Load(), true
	}
	p.sleeping[i].Store(true)
	if s := p.seq.Load(); s != last {
		if !p.sleeping[i].Swap(false) {
			<-p.wake[i] // a dispatcher saw us parked and sent a token
		}
		return s, true
	}
	select {
	case <-p.wake[i]:
		return p.seq.Load(), true
	case <-p.quit:
		return 0, false
	}
}

// spinUntil polls cond for up to d, letting other goroutines run now
// and then; it returns whether cond became true.
func spinUntil(d time.Duration, cond func() bool) bool {
	var deadline time.Time
	for n := 0; ; n++ {
		if cond() {
			return true
		}
		if n&255 == 255 {
			now := time.Now()
			if deadline.IsZero() {
				deadline = now.Add(d)
			} else if now.After(deadline) {
				return false
			}
			// Let other goroutines, then other threads (on a busy
			// machine, perhaps the worker this one waits for) run.
			runtime.Gosched()
			syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
		}
	}
}

// run runs workgroups [0, total) in chunks on the caller and the
// helpers; see runChunks. ok is false when another dispatch holds the
// pool (the caller then runs the job alone).
func (p *pool) run(total, chunk int64, start func() (func(first, n int64) error, func())) error {
	if !p.busy.TryLock() {
		return runInline(total, chunk, start)
	}
	defer p.busy.Unlock()
	j := &job{total: total, chunk: chunk, start: start}
	p.cur.Store(j)
	p.seq.Add(1)
	for i := range p.sleeping {
		if p.sleeping[i].Swap(false) {
			p.wake[i] <- struct{}{}
		}
	}
	j.work()
	// No chunk is left: close the job to late helpers and wait for the
	// ones inside it, which are finishing their last chunk: spin a while,
	// then sleep until the last one signals.
	if j.state.Or(closedBit) != 0 {
		if !spinUntil(p.spin, func() bool { return j.state.Load() == closedBit }) {
			for {
				s := j.state.Load()
				if s == closedBit {
					break
				}
				if j.state.CompareAndSwap(s, s|waiterBit) {
					<-p.done
					break
				}
			}
		}
	}
	p.cur.Store(nil)
	return j.err
}

// join enters a helper into j unless j is closed.
func (j *job) join() bool {
	for {
		s := j.state.Load()
		if s&closedBit != 0 {
			return false
		}
		if j.state.CompareAndSwap(s, s+1) {
			return true
		}
	}
}

// work takes chunks of j until none are left. The first error stops the
// others; a panic becomes an INTERNAL error.
func (j *job) work() {
	defer func() {
		if r := recover(); r != nil {
			j.fail(panicError(r))
		}
	}()
	run, done := j.start()
	defer done()
	for {
		first := j.next.Add(j.chunk) - j.chunk
		if first >= j.total {
			return
		}
		if err := run(first, min(j.chunk, j.total-first)); err != nil {
			j.fail(err)
			return
		}
	}
}

// fail records err (the first one wins) and stops the other workers.
func (j *job) fail(err error) {
	j.errMu.Lock()
	if j.err == nil {
		j.err = err
	}
	j.errMu.Unlock()
	j.next.Store(j.total)
}
