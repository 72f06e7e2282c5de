package halmodule

import (
	"slices"
	"time"
)

// Two ways to recycle buffers, chosen per invocation by which has made
// invocations faster:
//
//   - the most recent fit (cache.fit): the released buffer likeliest to be
//     in cache still; the fewest bytes in use (MobileNetV2: 10.6 MB of
//     activations);
//   - homes: the k-th allocation of an invocation takes the buffer the
//     k-th allocation of the previous invocation released, so that
//     every tensor lives in the same storage each time and its bytes are
//     written by the same worker as last time (MobileNetV2: 26.7 MB).
//
// Where the workers' cores share their last-level cache, the most recent
// fit wins (MobileNetV2 on local-task, two Zen 4 vCPUs: 4.0-4.1 ms
// against 4.2-4.5 with homes always, 4.0-4.2 choosing). Where they do
// not (the same VM when the host has placed its two vCPUs on different
// CCDs), every line one core wrote and the other then writes or reads
// moves between the caches at a quarter of the speed, a buffer recycled
// for another tensor is written by the other core half the time, and
// homes win by far (5.5-5.9 against 6.9-7.2 ms). Which case holds
// changes by the second on that VM, and nothing the guest can read tells
// (its /sys says one shared L3), so the choice is measured: the
// invocations' own durations decide.

// invocations marks the start of an invocation and returns the function
// that marks its end. While it is the only one in progress it follows
// the chosen way (by homes, its allocations get slot numbers) and its
// duration is that way's sample.
func (c *cache) invocations() (done func()) {
	c.mu.Lock()
	c.active++
	c.began++
	began, lone := c.began, c.active == 1
	homes := lone && c.policy.homes()
	c.slot = -1 // also when another begins: slots of two invocations would mix
	if homes {
		c.slot = 0
	}
	c.mu.Unlock()
	t0 := time.Now()
	return func() {
		d := time.Since(t0)
		c.mu.Lock()
		defer c.mu.Unlock()
		c.active--
		if lone && c.began == began {
			c.policy.record(homes, d) // no other invocation overlapped
		}
		if c.active == 0 {
			c.slot = -1
		}
	}
}

// policyChooser picks the way of recycling for an invocation by the
// invocations' durations under each: after policyWarmup invocations by
// the most recent fit it tries homes until they have a sample past
// policyCold ones (the first meet fresh buffers: page faults, cold
// caches), then takes the way whose last few durations have the
// lower minimum (homes only by homesMargin), trying the other every
// policyExplore-th invocation (policyExploreRare-th when it was slower
// by clearMargin). Noise only ever slows an invocation, so the minimum
// ignores bursts of load (a median of the chosen way's last seven let
// four slow ones send MobileNetV2 to homes, 10% slower, for a hundred
// invocations); it falls at the first faster sample when the machine
// gets faster, and rises once all the samples kept are slower.
type policyChooser struct {
	n            uint64
	recent, home durations
}

const (
	// policyWarmup is how many invocations use the most recent fit
	// before homes are tried: a program called a few times never pays
	// for a second set of buffers (new memory, slow to touch at first).
	policyWarmup      = 16
	policyCold        = 2
	policyExplore     = 16
	policyExploreRare = 64
	// clearMargin is how much slower the way not taken must have been
	// for it to be tried only every policyExploreRare-th invocation: a
	// try costs that difference, and the next invocation finds the caches
	// holding the other way's buffers.
	clearMargin = 1.05
	// homesMargin is how much faster homes must have been to be chosen:
	// they hold more bytes, and where they are about as fast the most
	// recent fit keeps the caches for everything else.
	homesMargin = 0.9
)

// durations keeps a way's last samples.
type durations struct {
	seen int // samples recorded, cold ones included
	last [5]time.Duration
}

// add records d, dropping the oldest sample.
func (s *durations) add(d time.Duration) {
	s.seen++
	if s.seen > policyCold {
		s.last[(s.seen-policyCold-1)%len(s.last)] = d
	}
}

// ready reports whether the way has a sample past the cold ones.
func (s *durations) ready() bool { return s.seen > policyCold }

// least returns the least of the samples kept.
func (s *durations) least() time.Duration {
	return slices.Min(s.last[:min(s.seen-policyCold, len(s.last))])
}

// homes reports whether the next invocation recycles by homes.
func (p *policyChooser) homes() bool {
	p.n++
	switch {
	case p.recent.seen < policyWarmup:
		return false
	case !p.home.ready():
		return true // its cold samples and a first measured one
	}
	h, r := float64(p.home.least()), float64(p.recent.least())
	faster := h < homesMargin*r
	explore := uint64(policyExplore)
	if max(h, r) > clearMargin*min(h, r) {
		explore = policyExploreRare
	}
	if p.n%explore == 0 {
		return !faster
	}
	return faster
}

// record adds an invocation's duration to its way's samples.
func (p *policyChooser) record(homes bool, d time.Duration) {
	if homes {
		p.home.add(d)
	} else {
		p.recent.add(d)
	}
}
