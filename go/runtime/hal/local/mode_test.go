package local

import (
	"testing"
	"time"
)

func TestModeChooserPicksTheFasterWay(t *testing.T) {
	for _, tc := range []struct {
		name          string
		alone, shared time.Duration // per dispatch of 100 workgroups
		want          bool
		every         int // how often the slower way is tried
	}{
		{"sharing clearly faster", 1000 * time.Microsecond, 600 * time.Microsecond, true, exploreRare},
		{"sharing slightly faster", 1000 * time.Microsecond, 800 * time.Microsecond, true, exploreEvery},
		{"alone faster", 1000 * time.Microsecond, 1500 * time.Microsecond, false, exploreEvery},
	} {
		var m modeChooser
		if !m.parallel(100, 2) {
			t.Fatalf("%s: the first dispatch should measure sharing", tc.name)
		}
		m.record(true, tc.shared, 100)
		if m.parallel(100, 2) {
			t.Fatalf("%s: the second dispatch should measure running alone", tc.name)
		}
		m.record(false, tc.alone, 100)
		// The cold phase: each way once more, alternating.
		for i := 0; i < 2*(coldRuns-1); i++ {
			p := m.parallel(100, 2)
			if p != (i%2 == 0) {
				t.Fatalf("%s: cold run %d shared=%v, want the ways to alternate", tc.name, i, p)
			}
			if p {
				m.record(true, tc.shared, 100)
			} else {
				m.record(false, tc.alone, 100)
			}
		}
		other := 0
		n := 2 * exploreRare
		for i := 0; i < n; i++ {
			p := m.parallel(100, 2)
			if p != tc.want {
				other++
			}
			if p {
				m.record(true, tc.shared, 100)
			} else {
				m.record(false, tc.alone, 100)
			}
		}
		if want := n / tc.every; other != want {
			t.Errorf("%s: the slower way ran %d times in %d dispatches, want %d (every %dth)", tc.name, other, n, want, tc.every)
		}
	}
}

func TestModeChooserFollowsChanges(t *testing.T) {
	var m modeChooser
	m.record(true, 500*time.Microsecond, 100)
	m.record(false, 1000*time.Microsecond, 100)
	// The machine gets busy: sharing now takes 3 ms.
	shared := 0
	for i := 0; i < 4*exploreEvery; i++ {
		if m.parallel(100, 2) {
			shared++
			m.record(true, 3*time.Millisecond, 100)
		} else {
			m.record(false, 1000*time.Microsecond, 100)
		}
	}
	if shared > 6 {
		t.Errorf("sharing chosen %d times of %d after it became slower", shared, 4*exploreEvery)
	}
}

func TestModeChooserTinyDispatchesRunAlone(t *testing.T) {
	var m modeChooser
	m.record(false, 5*time.Microsecond, 4)
	if m.parallel(4, 2) {
		t.Errorf("a 5 us dispatch was shared")
	}
	var s modeChooser
	s.record(true, 4*time.Microsecond, 4) // at most 8 us alone
	if s.parallel(4, 2) {
		t.Errorf("a dispatch of at most 8 us alone was shared")
	}
}

func TestModeChooserForgetsColdRuns(t *testing.T) {
	// The first sharing run meets cold caches and is slower than running
	// alone; the next ones are twice as fast: sharing must win at once.
	var m modeChooser
	m.parallel(100, 2)
	m.record(true, 3*time.Millisecond, 100)
	m.parallel(100, 2)
	m.record(false, 1*time.Millisecond, 100)
	for i := 0; i < 2*(coldRuns-1); i++ {
		if m.parallel(100, 2) {
			m.record(true, 500*time.Microsecond, 100)
		} else {
			m.record(false, 1*time.Millisecond, 100)
		}
	}
	for i := 0; i < 10; i++ {
		if !m.parallel(100, 2) {
			t.Fatalf("dispatch %d after the cold runs ran alone; sharing is twice as fast", i)
		}
		m.record(true, 500*time.Microsecond, 100)
	}
}

func TestModeChooserRidesOutABurst(t *testing.T) {
	// Sharing takes 0.55 ms, running alone 1 ms; one shared run loses
	// its core for 5 ms (a burst of load elsewhere): the next dispatches
	// must still be shared.
	var m modeChooser
	for i := 0; i < 2*coldRuns; i++ {
		if m.parallel(100, 2) {
			m.record(true, 550*time.Microsecond, 100)
		} else {
			m.record(false, 1000*time.Microsecond, 100)
		}
	}
	m.record(true, 5500*time.Microsecond, 100)
	for i := 0; i < exploreEvery-1; i++ {
		if !m.parallel(100, 2) {
			t.Fatalf("dispatch %d after one slow shared run ran alone", i)
		}
		m.record(true, 550*time.Microsecond, 100)
	}
}
