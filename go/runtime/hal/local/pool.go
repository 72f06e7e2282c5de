package local

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// pool is a local-task device's persistent workers, as IREE's task
// executor keeps its worker threads: helpers goroutines that wait for a
// dispatch, and the goroutine that dispatches, which works as one more
// worker. After a job a helper spins for a short while before it sleeps,
// so that the next dispatch of an inference, a few microseconds later,
// finds it awake; sleeping helpers (and a dispatcher waiting for them)
// block in the kernel on a futex word (see parker), which wakes them in
// microseconds, where a goroutine woken through the Go scheduler may wait
// for a thread far longer on a busy machine.
type pool struct {
	helpers  int
	spin     time.Duration
	warmSpin time.Duration // the polling of helpers during warm invocations

	busy     sync.Mutex // one job at a time; a second dispatcher runs inline
	seq      atomic.Uint32
	cur      atomic.Pointer[job]
	sleepers atomic.Int32 // helpers asleep on seq (or about to be)
	warmers  atomic.Int32 // invocations in progress (see warm)
	park     parker
	quit     atomic.Bool
	exited   sync.WaitGroup
	stopOnce sync.Once
}

// defaultSpin is how long an idle helper polls for the next job before
// it sleeps, and how long a dispatcher polls for the helpers still in its
// job. Between two parallel dispatches of MobileNetV2 on llvm-cpu the
// host spends a median 8 us, under 50 us 93% of the time and under 100 us
// 97%; a longer spin mostly burns a core that, on a busy machine, the
// dispatching thread itself may need.
const defaultSpin = 50 * time.Microsecond

// defaultWarmSpin is how long an idle helper polls while an invocation
// is in progress (see warm): long enough to span the host's work between two
// dispatches and a dispatch the caller runs alone, short enough that a
// caller that has stopped dispatching frees the core soon.
const defaultWarmSpin = 2 * time.Millisecond

// job.state holds the number of helpers inside the job and two flags:
// closedBit, the job takes no more helpers (no chunk is left), and
// waiterBit, the dispatcher sleeps until the last helper leaves.
const (
	closedBit = 1 << 30
	waiterBit = 1 << 29
)

// job is one dispatch as the pool runs it.
type job struct {
	total    int64
	minChunk int64 // the smallest chunk handed out
	workers  int64 // the dispatcher and the helpers
	next     atomic.Int64
	start    func() (run func(first, n int64) error, done func())
	state    atomic.Uint32
	errMu    sync.Mutex
	err      error
}

// newPool starts helpers goroutines, which poll for spin after a job
// (for warmSpin while an invocation is warm) before they sleep.
func newPool(helpers int, spin, warmSpin time.Duration) *pool {
	p := &pool{helpers: helpers, spin: spin, warmSpin: warmSpin, park: newParker()}
	p.exited.Add(helpers)
	for i := 0; i < helpers; i++ {
		go p.helper()
	}
	return p
}

// stop ends the helpers and waits for them to exit. No job may be in
// progress or follow.
func (p *pool) stop() {
	p.stopOnce.Do(func() {
		p.quit.Store(true)
		p.seq.Add(1)
		p.park.wake(&p.seq)
		p.exited.Wait()
	})
}

// helper is a worker's loop: wait for a job, work in it, repeat.
func (p *pool) helper() {
	defer p.exited.Done()
	var last uint32 // seq's value when the pool started
	for {
		last = p.await(last)
		if p.quit.Load() {
			return
		}
		if j := p.cur.Load(); j != nil && j.join() {
			j.work()
			if j.state.Add(^uint32(0)) == closedBit|waiterBit {
				p.park.wake(&j.state) // the dispatcher sleeps on this
			}
		}
	}
}

// warm marks an invocation in progress until done is called: idle
// helpers poll for up to p.warmSpin more after p.spin, so that the next
// dispatch of the invocation finds them awake instead of paying for a
// wake-up (measured on MobileNetV2: helpers were asleep at 18% of the
// dispatches and joined 5 us late on average). A sleeping helper is woken
// to start polling.
func (p *pool) warm() (done func()) {
	if p.warmers.Add(1) == 1 && p.sleepers.Load() > 0 {
		p.seq.Add(1) // no job: helpers see cur == nil and poll again
		p.park.wake(&p.seq)
	}
	return func() { p.warmers.Add(-1) }
}

// await returns the job sequence number once it differs from last:
// spinning (longer while an invocation is warm), then asleep.
func (p *pool) await(last uint32) uint32 {
	changed := func() bool { return p.seq.Load() != last }
	if spinUntil(p.spin, changed) || (p.warmers.Load() > 0 && p.pollYielding(p.warmSpin, changed)) {
		return p.seq.Load()
	}
	p.sleepers.Add(1)
	for p.seq.Load() == last {
		p.park.wait(&p.seq, last)
	}
	p.sleepers.Add(-1)
	return p.seq.Load()
}

// pollYielding polls cond for up to d while an invocation is warm,
// yielding the core to other threads between polls; it returns whether
// cond became true.
func (p *pool) pollYielding(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for n := 0; ; n++ {
		if cond() {
			return true
		}
		if n&15 == 15 {
			if p.warmers.Load() == 0 || time.Now().After(deadline) {
				return false
			}
			p.park.yield()
		}
	}
}

// spinUntil polls cond for up to d, letting other goroutines run now and
// then; it returns whether cond became true.
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
			runtime.Gosched() // let other goroutines (the GC's) run
		}
	}
}

// run runs workgroups [0, total) in chunks on the caller and the
// helpers; see runChunks. When another dispatch holds the pool the
// caller runs the job alone.
func (p *pool) run(total, minChunk int64, start func() (func(first, n int64) error, func())) error {
	if !p.busy.TryLock() {
		return runInline(total, start)
	}
	defer p.busy.Unlock()
	j := &job{total: total, minChunk: max(minChunk, 1), workers: int64(p.helpers) + 1, start: start}
	p.cur.Store(j)
	p.seq.Add(1)
	if p.sleepers.Load() > 0 {
		p.park.wake(&p.seq)
	}
	j.work()
	// No chunk is left: close the job to late helpers and wait for the
	// ones inside it, which are finishing their last chunk: spin a while,
	// then sleep until the last one leaves.
	if j.state.Or(closedBit) != 0 {
		if !spinUntil(p.spin, func() bool { return j.state.Load() == closedBit }) {
			for {
				s := j.state.Load()
				if s&^waiterBit == closedBit {
					break
				}
				if s&waiterBit != 0 || j.state.CompareAndSwap(s, s|waiterBit) {
					p.park.wait(&j.state, s|waiterBit)
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

// work takes chunks of j until none are left: guided self-scheduling,
// each chunk a 1/(2*workers) share of the workgroups left (at least
// minChunk), so that chunks are large while much is left and small at the
// end, where workers must finish together. The first error stops the
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
		first := j.next.Load()
		if first >= j.total {
			return
		}
		n := min(max(j.minChunk, (j.total-first)/(2*j.workers)), j.total-first)
		if !j.next.CompareAndSwap(first, first+n) {
			continue
		}
		if err := run(first, n); err != nil {
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
