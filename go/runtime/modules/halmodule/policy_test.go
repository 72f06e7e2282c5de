package halmodule

import (
	"testing"
	"time"
)

// chooserRun feeds p n invocations whose durations depend on the way
// chosen and returns how many took homes.
func chooserRun(p *policyChooser, n int, recent, homes time.Duration) int {
	took := 0
	for i := 0; i < n; i++ {
		h := p.homes()
		d := recent
		if h {
			d, took = homes, took+1
		}
		p.record(h, d)
	}
	return took
}

func TestPolicyChooserFollowsTheFasterWay(t *testing.T) {
	ms := time.Millisecond
	var p policyChooser
	// Most recent fit faster (cores sharing their cache): homes only
	// in their first tries after the warm-up and the rare ones.
	if took := chooserRun(&p, 640, 4*ms, 4500*time.Microsecond); took > 640/policyExploreRare+policyCold+2 {
		t.Fatalf("homes 12%% slower taken %d times of 640", took)
	}
	// The machine changes (split caches): homes within a few
	// invocations, the most recent fit tried rarely.
	if took := chooserRun(&p, 640, 7*ms, 6*ms); took < 640-640/policyExploreRare-10 {
		t.Fatalf("homes 14%% faster taken only %d times of 640", took)
	}
	// And back.
	if took := chooserRun(&p, 640, 4*ms, 4500*time.Microsecond); took > policyExploreRare+policyExplore {
		t.Fatalf("after the change back homes were still taken %d times of 640", took)
	}
	// Within the margin the most recent fit is kept, tried against
	// homes every policyExplore-th invocation.
	p = policyChooser{}
	if took := chooserRun(&p, 320, 4*ms, 3900*time.Microsecond); took > 320/policyExplore+policyCold+2 || took < 320/policyExplore-1 {
		t.Fatalf("homes 2.5%% faster taken %d times of 320, want about %d", took, 320/policyExplore)
	}
}

func TestPolicyChooserIgnoresOddSlowInvocations(t *testing.T) {
	var p policyChooser
	chooserRun(&p, 64, 4*time.Millisecond, 5*time.Millisecond)
	took := 0
	for i := 0; i < 64; i++ {
		h := p.homes()
		d := 4 * time.Millisecond
		if h {
			took++
			d = 5 * time.Millisecond
		} else if i%8 == 0 || i >= 40 && i < 44 {
			d = 40 * time.Millisecond // bursts of load
		}
		p.record(h, d)
	}
	if took > 2 {
		t.Fatalf("slow invocations (one in eight, then four in a row) sent %d of 64 invocations to homes", took)
	}
}

// held maps the first byte of each allocation invocation held to its
// buffer, for the tests to release later.
var held = map[*byte]any{}

// invocation runs one invocation on c with the given way: it allocates
// sizes, then releases all but the indices in hold, and returns the
// storage of each allocation.
func invocation(c *cache, homes bool, sizes []int, hold map[int]bool) [][]byte {
	// A chooser past its cold samples that found the way wanted
	// faster.
	c.policy = policyChooser{}
	fast, slow := &c.policy.recent, &c.policy.home
	if homes {
		fast, slow = slow, fast
	}
	for i := 0; i < policyWarmup; i++ {
		fast.add(time.Microsecond)
		slow.add(time.Millisecond)
	}
	c.policy.n = 1 // not an exploring invocation
	done := c.invocations()
	defer done()
	var out [][]byte
	var refs []any
	for i, n := range sizes {
		buf, err := c.get(int64(n), false)
		if err != nil {
			panic(err)
		}
		b := buf.HostBytes()
		if b[0] != 0 || b[n-1] != 0 {
			panic("a zeroed allocation was not zeroed")
		}
		b[0], b[n-1] = 9, 9 // the tensor's contents
		out = append(out, b)
		if !hold[i] {
			refs = append(refs, viewOf(buf))
		} else {
			held[&b[0]] = viewOf(buf)
		}
	}
	c.release(refs, nil)
	return out
}

func TestHomesGiveEachAllocationItsStorage(t *testing.T) {
	c := testCache() // not poisoning: invocation checks that homes come zeroed
	sizes := []int{1 << 16, 1 << 17, 1 << 16, 1 << 18}
	first := invocation(c, true, sizes, nil)
	for rep := 0; rep < 3; rep++ {
		again := invocation(c, true, sizes, nil)
		for k := range sizes {
			if &again[k][0] != &first[k][0] {
				t.Fatalf("invocation %d: allocation %d did not get its home", rep+2, k)
			}
		}
	}
	// After the last invocation every allocation's storage is its
	// slot's home again.
	if c.homed[0] == nil || c.homed[3] == nil {
		t.Fatal("homes dropped after an invocation by homes")
	}
}

func TestHomesNeverHandOutHeldStorage(t *testing.T) {
	c := testCache()
	c.poison = true
	sizes := []int{1 << 16, 1 << 16}
	first := invocation(c, true, sizes, nil)
	// The caller keeps allocation 1 (a result).
	kept := invocation(c, true, sizes, map[int]bool{1: true})
	kept[1][7] = 42 // poisoned storage must come back zeroed (invocation checks)
	next := invocation(c, true, sizes, nil)
	if &next[1][0] == &kept[1][0] {
		t.Fatal("a held result was handed out again")
	}
	if kept[1][7] != 42 {
		t.Fatal("a held result was overwritten")
	}
	if &next[0][0] != &first[0][0] {
		t.Fatal("allocation 0 lost its home")
	}
	// Once released, the held buffer is recycled (it is nobody's home
	// now, or allocation 1's again).
	c.release([]any{held[&kept[1][0]]}, nil)
	if kept[1][7] != 0xff {
		t.Fatal("released storage not poisoned")
	}
}

func TestOverlappingInvocationsTakeNoSlots(t *testing.T) {
	c := testCache()
	end1 := c.invocations()
	end2 := c.invocations()
	if c.slot != -1 {
		t.Fatalf("two invocations in progress: slot %d", c.slot)
	}
	b, err := c.get(1<<16, false)
	if err != nil {
		t.Fatal(err)
	}
	if e := b.Tag().(*entry); e.home != -1 {
		t.Fatalf("allocation during overlapping invocations got home %d", e.home)
	}
	end2()
	end1()
	if c.policy.recent.seen != 0 || c.policy.home.seen != 0 {
		t.Fatal("overlapping invocations were timed")
	}
}

func TestHomesFollowAChangeOfSize(t *testing.T) {
	c := testCache()
	invocation(c, true, []int{1 << 16}, nil)
	old := c.homed[0]
	big := invocation(c, true, []int{1 << 20}, nil) // a larger input, say
	if &big[0][0] == &old.root.HostBytes()[0] {
		t.Fatal("a 64 KiB home served a 1 MiB allocation")
	}
	if h := c.homed[0]; h == nil || &h.root.HostBytes()[0] != &big[0][0] {
		t.Fatal("the new size's storage did not become the slot's home")
	}
	if l := c.free[1<<16]; len(l) != 1 || l[0].e != old {
		t.Fatal("the old home did not go back to the free lists")
	}
	if again := invocation(c, true, []int{1 << 20}, nil); &again[0][0] != &big[0][0] {
		t.Fatal("the slot's new home was not reused")
	}
}

func TestFewInvocationsNeverTakeHomes(t *testing.T) {
	c := testCache()
	for i := 0; i < policyWarmup; i++ {
		end := c.invocations()
		if c.slot >= 0 {
			t.Fatalf("invocation %d of a program called %d times took homes", i+1, policyWarmup)
		}
		b, err := c.get(1<<16, false)
		if err != nil {
			t.Fatal(err)
		}
		c.release([]any{viewOf(b)}, nil)
		end()
	}
	if len(c.homed) != 0 {
		t.Fatalf("%d homes kept after %d invocations", len(c.homed), policyWarmup)
	}
	end := c.invocations()
	defer end()
	if c.slot < 0 {
		t.Fatal("homes not tried after the warm-up")
	}
}
