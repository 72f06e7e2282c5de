package local

import (
	"fmt"
	"io"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// DispatchProfile accumulates the wall time of every dispatch the local
// devices run while it is enabled, by entry point name. It is what
// iree-benchmark-module --print_dispatch_statistics prints.
type DispatchProfile struct {
	mu   sync.Mutex
	rows map[string]*profileRow
}

type profileRow struct {
	name  string
	count int64
	total time.Duration
	min   time.Duration
	wgs   int64 // workgroups of the last dispatch
}

// profile is the profile being recorded, nil when none: every dispatch
// reads it, so it is an atomic pointer rather than a locked variable.
var profile atomic.Pointer[DispatchProfile]

// EnableDispatchProfile starts recording dispatch times in a new profile
// and returns it; DisableDispatchProfile stops recording.
func EnableDispatchProfile() *DispatchProfile {
	p := &DispatchProfile{rows: map[string]*profileRow{}}
	profile.Store(p)
	return p
}

// DisableDispatchProfile stops recording.
func DisableDispatchProfile() { profile.Store(nil) }

func (p *DispatchProfile) add(name string, d time.Duration, wgs int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.rows[name]
	if r == nil {
		r = &profileRow{name: name, min: d}
		p.rows[name] = r
	}
	r.count++
	r.wgs = wgs
	r.total += d
	r.min = min(r.min, d)
}

// Write prints the entry points by total time, largest first, with their
// share of the total, workgroup count and fastest run; the last line sums
// the totals and the fastest runs (a steadier figure on a busy machine).
func (p *DispatchProfile) Write(w io.Writer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	rows := make([]*profileRow, 0, len(p.rows))
	var all time.Duration
	for _, r := range p.rows {
		rows = append(rows, r)
		all += r.total
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].total > rows[j].total })
	fmt.Fprintf(w, "%-56s %8s %12s %12s %7s %10s %10s\n", "dispatch", "count", "total ms", "mean us", "share", "workgroups", "min us")
	var mins time.Duration
	for _, r := range rows {
		fmt.Fprintf(w, "%-56s %8d %12.3f %12.1f %6.1f%% %10d %10.1f\n", r.name, r.count, r.total.Seconds()*1e3,
			r.total.Seconds()*1e6/float64(r.count), 100*r.total.Seconds()/all.Seconds(), r.wgs, r.min.Seconds()*1e6)
		mins += r.min
	}
	fmt.Fprintf(w, "%-56s %8s %12.3f %12s %7s %10s %10.1f\n", "all dispatches", "", all.Seconds()*1e3, "", "", "", mins.Seconds()*1e6)
}
