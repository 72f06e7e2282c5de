package allocators

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

// Fill patterns of the debug allocator: red zones around every buffer,
// and the memory of released buffers (in quarantine). IREE's debug
// allocator scribbles 0xCD too.
const (
	GuardByte  = 0xCD
	PoisonByte = 0xDD
)

// RedZone is the bytes guarded before and after every buffer (a multiple
// of every device's binding alignment, so that buffers stay aligned).
const RedZone = 256

// Quarantine bounds: the released buffers kept poisoned before their
// memory is given back.
const (
	DefaultQuarantineBytes = 64 << 20
	DefaultQuarantineCount = 256
)

// Debug checks how buffers are used (IREE's debug allocator, which gree
// extends with checks): every buffer has a red zone before and after it,
// filled with GuardByte; when a buffer is released its red zones are
// checked (an underrun or overrun by a kernel or native code is
// reported), its memory is filled with PoisonByte and it stays in
// quarantine until DefaultQuarantineBytes or DefaultQuarantineCount are
// exceeded, when the poison is checked (a write after release is
// reported) before the memory is given back. Buffers are zeroed, as
// every gree allocator returns them. Use through the buffer API after
// release is FAILED_PRECONDITION in any case; Debug finds writes that
// bypass it. Reports go to the Report writer (stderr) at once, and Trim
// returns them (DATA_LOSS) once.
type Debug struct {
	base hal.Allocator
	dev  hal.Device
	// Report receives one line per violation (nil: none written).
	Report io.Writer

	mu         sync.Mutex
	serial     int64
	quarantine []*guarded
	qBytes     int64
	maxBytes   int64
	maxCount   int
	found      []string // violations not yet returned by Trim
	total      int      // violations found so far
	closed     bool
	// settling counts released buffers of device-only memory being
	// checked and poisoned on a goroutine of their own (see released);
	// settled is signalled when it drops.
	settling int
	settled  *sync.Cond
}

var _ hal.Allocator = (*Debug)(nil)

// guarded is one allocation: the root the wrapped allocator returned and
// the buffer's place in it.
type guarded struct {
	root   *hal.Buffer
	size   int64
	serial int64
	desc   string
}

// NewDebug wraps base. dev, when not nil, reaches memory the host cannot
// map through its queue; without it such buffers are not guarded.
func NewDebug(dev hal.Device, base hal.Allocator) *Debug {
	d := &Debug{base: base, dev: dev, Report: os.Stderr, maxBytes: DefaultQuarantineBytes, maxCount: DefaultQuarantineCount}
	d.settled = sync.NewCond(&d.mu)
	return d
}

// SetQuarantine bounds the quarantine (bytes and buffers; 0 keeps no
// released buffer).
func (d *Debug) SetQuarantine(bytes int64, count int) {
	d.mu.Lock()
	d.maxBytes, d.maxCount = bytes, count
	d.mu.Unlock()
	d.evict(false)
}

// QueryCompatibility is the wrapped allocator's.
func (d *Debug) QueryCompatibility(params hal.BufferParams, size int64) (hal.BufferCompatibility, hal.BufferParams) {
	return d.base.QueryCompatibility(params, size)
}

// Import is the wrapped allocator's (imported memory is not guarded).
func (d *Debug) Import(params hal.BufferParams, data []byte, release func()) (*hal.Buffer, error) {
	return d.base.Import(params, data, release)
}

// Statistics are the wrapped allocator's (red zones and quarantined
// buffers included).
func (d *Debug) Statistics() hal.AllocatorStatistics { return d.base.Statistics() }

// Allocate returns a zeroed buffer of size bytes between two red zones.
func (d *Debug) Allocate(params hal.BufferParams, size int64) (*hal.Buffer, error) {
	if size < 0 {
		return d.base.Allocate(params, size)
	}
	root, err := d.base.Allocate(params, size+2*RedZone)
	if err != nil {
		return nil, err
	}
	if !hostOrDevice(d.dev, root) {
		root.Release()
		return d.base.Allocate(params, size)
	}
	if err := d.guard(root, size); err != nil {
		root.Release()
		return nil, err
	}
	d.mu.Lock()
	d.serial++
	g := &guarded{root: root, size: size, serial: d.serial}
	d.mu.Unlock()
	g.desc = fmt.Sprintf("buffer #%d of %d bytes (memory_type=%s, allowed_usage=%s)", g.serial, size, root.MemoryType(), root.AllowedUsage())
	b, err := hal.NewLease(root, RedZone, size, func(*hal.Buffer) { d.released(g) })
	if err != nil {
		root.Release()
		return nil, err
	}
	return b, nil
}

// guard fills the red zones of a new allocation.
func (d *Debug) guard(root *hal.Buffer, size int64) error {
	if err := fill(d.dev, root, 0, RedZone, GuardByte); err != nil {
		return err
	}
	return fill(d.dev, root, RedZone+size, RedZone, GuardByte)
}

// released checks a released buffer's red zones, poisons it and puts it
// in quarantine. A buffer of memory only the device sees is settled on a
// goroutine of its own: the release may come from the device's queue
// itself (the completion of work that used the buffer), which cannot wait
// for the transfers that check and poison it.
func (d *Debug) released(g *guarded) {
	if g.root.Released() { // deallocated on a queue: nothing left to check
		g.root.Release()
		return
	}
	if g.root.HostBytes() != nil {
		d.settle(g)
		return
	}
	d.mu.Lock()
	d.settling++
	d.mu.Unlock()
	go func() {
		d.settle(g)
		d.mu.Lock()
		d.settling--
		d.settled.Broadcast()
		d.mu.Unlock()
	}()
}

// waitSettled waits for the released buffers being settled.
func (d *Debug) waitSettled() {
	d.mu.Lock()
	for d.settling > 0 {
		d.settled.Wait()
	}
	d.mu.Unlock()
}

// settle is released's work.
func (d *Debug) settle(g *guarded) {
	d.checkZones(g)
	d.mu.Lock()
	closed := d.closed
	d.mu.Unlock()
	if closed || fill(d.dev, g.root, RedZone, g.size, PoisonByte) != nil {
		g.root.Release()
		return
	}
	d.mu.Lock()
	d.quarantine = append(d.quarantine, g)
	d.qBytes += g.size
	d.mu.Unlock()
	d.evict(false)
}

// checkZones reports writes into g's red zones.
func (d *Debug) checkZones(g *guarded) {
	before, err := read(d.dev, g.root, 0, RedZone)
	if err != nil {
		d.violation("%s: its red zones could not be read back: %v", g.desc, err)
		return
	}
	if i := firstNot(before, GuardByte); i >= 0 {
		d.violation("%s: written %d bytes before its start (underrun): byte 0x%02x where the guard 0x%02x was", g.desc, RedZone-int64(i), before[i], GuardByte)
		fill(d.dev, g.root, 0, RedZone, GuardByte) // reported once
	}
	after, err := read(d.dev, g.root, RedZone+g.size, RedZone)
	if err != nil {
		d.violation("%s: its red zones could not be read back: %v", g.desc, err)
		return
	}
	if i := lastNot(after, GuardByte); i >= 0 {
		d.violation("%s: written up to %d bytes past its end (overrun): byte 0x%02x where the guard 0x%02x was", g.desc, i+1, after[i], GuardByte)
		fill(d.dev, g.root, RedZone+g.size, RedZone, GuardByte)
	}
}

// lastNot returns the index of the last byte of s that is not want, or -1.
func lastNot(s []byte, want byte) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] != want {
			return i
		}
	}
	return -1
}

// evict checks and gives back quarantined buffers, oldest first, while
// the quarantine is over its bounds (all of them with all set).
func (d *Debug) evict(all bool) {
	for {
		d.mu.Lock()
		if len(d.quarantine) == 0 || (!all && d.qBytes <= d.maxBytes && len(d.quarantine) <= d.maxCount) {
			d.mu.Unlock()
			return
		}
		g := d.quarantine[0]
		d.quarantine = d.quarantine[1:]
		d.qBytes -= g.size
		d.mu.Unlock()
		d.checkPoison(g)
		g.root.Release()
	}
}

// checkPoison reports writes into a released buffer.
func (d *Debug) checkPoison(g *guarded) {
	if g.root.Released() {
		return
	}
	m, err := read(d.dev, g.root, RedZone, g.size)
	if err != nil {
		d.violation("%s: its memory could not be read back after release: %v", g.desc, err)
		return
	}
	if i := firstNot(m, PoisonByte); i >= 0 {
		d.violation("%s: written after it was released (use after free): byte %d is 0x%02x where the poison 0x%02x was", g.desc, i, m[i], PoisonByte)
	}
	d.checkZones(g)
}

func (d *Debug) violation(format string, a ...any) {
	msg := "debug allocator: " + fmt.Sprintf(format, a...)
	d.mu.Lock()
	d.found = append(d.found, msg)
	d.total++
	w := d.Report
	d.mu.Unlock()
	if w != nil {
		fmt.Fprintf(w, "gree: %s\n", msg)
	}
}

// Violations returns the number of violations found so far.
func (d *Debug) Violations() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.total
}

// Trim checks and gives back every quarantined buffer, trims the wrapped
// allocator, and returns the violations found since the last Trim as a
// DATA_LOSS error (nil when there were none).
func (d *Debug) Trim() error {
	d.waitSettled()
	d.evict(true)
	err := d.base.Trim()
	d.mu.Lock()
	found := d.found
	d.found = nil
	d.mu.Unlock()
	if len(found) > 0 {
		return status.Errorf(status.DataLoss, "%d buffer misuse(s) found: %s", len(found), strings.Join(found, "; "))
	}
	return err
}

// Close checks and gives back the quarantine (the device is closing);
// buffers released later are checked and given back at once.
func (d *Debug) Close() error {
	d.waitSettled()
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	d.evict(true)
	if cl, ok := d.base.(interface{ Close() error }); ok {
		return cl.Close()
	}
	return nil
}

// KeepsReleasedMemory reports true: released buffers stay in quarantine
// (hal.MemoryKeeper).
func (d *Debug) KeepsReleasedMemory() bool { return true }
