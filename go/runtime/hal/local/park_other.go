//go:build !linux

package local

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// parker puts goroutines to sleep on a 32-bit word and wakes them; off
// Linux, with a condition variable.
type parker struct {
	mu   *sync.Mutex
	cond *sync.Cond
}

func newParker() parker {
	mu := new(sync.Mutex)
	return parker{mu: mu, cond: sync.NewCond(mu)}
}

// wait sleeps while *w == val (or returns at once); spurious returns are
// possible, so callers loop.
func (p parker) wait(w *atomic.Uint32, val uint32) {
	p.mu.Lock()
	if w.Load() == val {
		p.cond.Wait()
	}
	p.mu.Unlock()
}

// wake wakes every goroutine asleep on w.
func (p parker) wake(w *atomic.Uint32) {
	p.mu.Lock()
	p.mu.Unlock()
	p.cond.Broadcast()
}

// yield lets other goroutines run (no portable thread yield).
func (parker) yield() { runtime.Gosched() }
