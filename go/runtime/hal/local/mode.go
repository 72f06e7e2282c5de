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
	alone, shared atomic.Int64 // running means of ns per workgroup (0: not measured)
	runs          atomic.Uint32
}

const (
	// inlineBelow is the estimated single-thread time under which a
	// dispatch always runs on the caller: waking a worker costs a few
	// microseconds.
	inlineBelow = 20 * time.Microsecond
	// exploreEvery is how often the slower way is tried again.
	exploreEvery = 16
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
	case n%exploreEvery == 0:
		return shared >= alone
	default:
		return shared < alone
	}
}

// record adds a dispatch's wall time to the running mean of its way.
func (m *modeChooser) record(parallel bool, d time.Duration, total int64) {
	v := &m.alone
	if parallel {
		v = &m.shared
	}
	x := max(int64(d)/total, 1)
	if old := v.Load(); old != 0 {
		x = (3*old + x) / 4
	}
	v.Store(x)
}
