package local

import (
	"sync/atomic"
	"time"
)

// modeChooser decides, for one entry point on a device with workers,
// whether a dispatch runs on the caller alone or is shared with the
// workers, by which has been faster per workgroup: on an idle machine
// sharing wins for all but tiny dispatches; on one whose cores are taken
// by other processes a worker may lose its core in the middle of a chunk
// and the dispatch waits for it, and running alone wins. Every
// exploreEvery-th dispatch tries the other way, so the choice follows the
// machine's load.
type modeChooser struct {
	alone, shared   atomic.Int64 // running means of ns per workgroup (0: not measured)
	aloneN, sharedN atomic.Int32 // samples recorded (saturating at coldRuns)
	runs            atomic.Uint32
}

const (
	// inlineBelow is the estimated single-thread time under which a
	// dispatch always runs on the caller: waking a worker costs a few
	// microseconds.
	inlineBelow = 20 * time.Microsecond
	// exploreEvery is how often the slower way is tried again; when
	// sharing is the faster way by a clear margin (its time at most
	// clearMargin of running alone's), running alone is tried only every
	// exploreRare-th dispatch: each try costs the difference (MobileNetV2's
	// larger dispatches take 1.8-1.9 times as long alone), and a machine
	// getting busy shows in the shared times themselves, which are
	// measured on every dispatch.
	exploreEvery = 16
	exploreRare  = 256
	clearMargin  = 0.7
	// coldRuns is how many first samples of each way replace the running
	// mean instead of entering it: the first runs of a dispatch meet cold
	// caches and buffers, and a sharing run measured cold made MobileNetV2
	// run alone for the first second of a benchmark. The two ways
	// alternate until both have that many samples.
	coldRuns = 2
	// maxStep bounds one sample's weight in a running mean (see record).
	maxStep = 2
)

// parallel reports whether a dispatch of total workgroups should be
// shared among workers.
func (m *modeChooser) parallel(total, workers int64) bool {
	alone, shared := m.alone.Load(), m.shared.Load()
	serial := alone
	if serial == 0 {
		serial = shared * workers // at most this
	}
	if serial != 0 && time.Duration(serial*total) < inlineBelow {
		return false
	}
	n := m.runs.Add(1)
	switch {
	case shared == 0:
		return true
	case alone == 0:
		return false
	case m.sharedN.Load() < coldRuns || m.aloneN.Load() < coldRuns:
		return m.sharedN.Load() <= m.aloneN.Load()
	case shared < alone && float64(shared) <= clearMargin*float64(alone):
		return n%exploreRare != 0
	case n%exploreEvery == 0:
		return shared >= alone
	default:
		return shared < alone
	}
}

// record adds a dispatch's wall time to the running mean of its way.
func (m *modeChooser) record(parallel bool, d time.Duration, total int64) {
	v, cnt := &m.alone, &m.aloneN
	if parallel {
		v, cnt = &m.shared, &m.sharedN
	}
	x := max(int64(d)/total, 1)
	if c := cnt.Load(); c < coldRuns {
		cnt.Store(c + 1)
	} else if old := v.Load(); old != 0 {
		// A sample counts for at most twice the mean: a run that lost
		// its core for a moment (a burst of load on a shared machine)
		// would otherwise outweigh the next dozen normal ones and send
		// the dispatch the other way for many runs, while load that
		// lasts still moves the mean, by up to a quarter per run.
		x = (3*old + min(x, maxStep*old)) / 4
	}
	v.Store(x)
}
