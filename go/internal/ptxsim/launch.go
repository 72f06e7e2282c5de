package ptxsim

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/gree-ml/gree/go/status"
)

// MaxThreadsPerBlock is the largest block Launch accepts (CUDA's limit).
const MaxThreadsPerBlock = 1024

// worker simulates blocks one after another; each goroutine of a launch
// owns one.
type worker struct {
	e        *entry
	mem      Memory
	grid     [3]int
	block    [3]int
	ctaid    [3]int
	threads  []thread
	regs     []uint64
	template []uint64
	shared   []byte
	maxLoops int64
	executed int64
}

// Launch runs entry over grid×block threads with the given parameter
// values (one per declared .param) against mem. Blocks may run
// concurrently on several goroutines. The first error stops the launch;
// memory may then be partially updated.
func (m *Module) Launch(entryName string, grid, block [3]int, params []uint64, mem Memory) error {
	e, ok := m.byName[entryName]
	if !ok {
		return status.Errorf(status.NotFound, "no entry %q in the module", entryName)
	}
	if len(params) != len(e.params) {
		return status.Errorf(status.InvalidArgument, "entry %s takes %d parameters, got %d", e.name, len(e.params), len(params))
	}
	if mem == nil {
		return status.Errorf(status.InvalidArgument, "launch of %s without memory", e.name)
	}
	nblocks, nthreads := 1, 1
	for i := 0; i < 3; i++ {
		if grid[i] < 1 || block[i] < 1 {
			return status.Errorf(status.InvalidArgument, "launch of %s: bad dimensions grid %v block %v", e.name, grid, block)
		}
		nblocks *= grid[i]
		nthreads *= block[i]
		if nblocks > 1<<40 || nthreads > MaxThreadsPerBlock {
			return status.Errorf(status.InvalidArgument, "launch of %s: block %v has more than %d threads (or the grid is too large)", e.name, block, MaxThreadsPerBlock)
		}
	}
	tmpl := append([]uint64(nil), e.template...)
	for i, s := range e.params {
		tmpl[s] = params[i]
	}
	maxLoops := m.MaxStepsPerThread
	if maxLoops <= 0 {
		maxLoops = DefaultMaxStepsPerThread
	}
	nw := min(runtime.GOMAXPROCS(0), nblocks)
	var (
		next     atomic.Int64
		stop     atomic.Bool
		mu       sync.Mutex
		firstErr error
		errBlock = nblocks
		wg       sync.WaitGroup
	)
	for i := 0; i < nw; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &worker{e: e, mem: mem, grid: grid, block: block, template: tmpl, maxLoops: maxLoops,
				threads: make([]thread, nthreads), regs: make([]uint64, nthreads*e.nregs),
				shared: make([]byte, e.sharedSize)}
			fail := func(b int, err error) {
				mu.Lock()
				if b < errBlock {
					firstErr, errBlock = err, b
				}
				mu.Unlock()
				stop.Store(true)
			}
			b := 0
			// A wild host pointer faults instead of crashing the process;
			// any other panic becomes an INTERNAL error.
			defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
			defer func() {
				m.executed.Add(w.executed)
				if p := recover(); p != nil {
					err := status.FromPanic(p, "ptxsim launch of "+e.name)
					if f, ok := p.(interface{ Addr() uintptr }); ok {
						err = status.Errorf(status.OutOfRange, "memory fault at address %#x in %s block %v", f.Addr(), e.name, w.ctaid)
					}
					fail(b, err)
				}
			}()
			for !stop.Load() {
				b = int(next.Add(1) - 1)
				if b >= nblocks {
					return
				}
				if err := w.runBlock(b); err != nil {
					fail(b, err)
				}
			}
		}()
	}
	wg.Wait()
	return firstErr
}

// Executed returns the number of instructions (including ones whose
// guard was false) the module's launches have executed so far.
func (m *Module) Executed() int64 { return m.executed.Load() }

func (w *worker) runBlock(b int) error {
	gx, gy := w.grid[0], w.grid[1]
	w.ctaid = [3]int{b % gx, b / gx % gy, b / (gx * gy)}
	for i := range w.shared {
		w.shared[i] = 0xCD
	}
	bx, by := w.block[0], w.block[1]
	n := len(w.threads)
	nr := w.e.nregs
	for i := range w.threads {
		t := &w.threads[i]
		t.regs = w.regs[i*nr : (i+1)*nr : (i+1)*nr]
		copy(t.regs, w.template)
		t.pc, t.state, t.loops = 0, stRun, 0
		tid := [3]int{i % bx, i / bx % by, i / (bx * by)}
		for _, s := range w.e.specials {
			var v int
			switch k := s.kind; {
			case k <= spTidZ:
				v = tid[k-spTidX]
			case k <= spNtidZ:
				v = w.block[k-spNtidX]
			case k <= spCtaidZ:
				v = w.ctaid[k-spCtaidX]
			case k <= spNctaidZ:
				v = w.grid[k-spNctaidX]
			case k == spLaneid:
				v = i % 32
			case k == spWarpid:
				v = i / 32
			case k == spNwarpid:
				v = (n + 31) / 32
			case k == spWarpSize:
				v = 32
			}
			t.regs[s.slot] = uint64(v)
		}
	}
	for {
		for i := range w.threads {
			if w.threads[i].state == stRun {
				if err := w.run(&w.threads[i]); err != nil {
					return err
				}
			}
		}
		var nDone, nBar, nWarp int
		for i := range w.threads {
			switch w.threads[i].state {
			case stDone:
				nDone++
			case stBar:
				nBar++
			case stWarp:
				nWarp++
			}
		}
		if nDone == n {
			return nil
		}
		if nWarp > 0 {
			progressed, err := w.resolveWarps()
			if err != nil {
				return err
			}
			if progressed {
				continue
			}
		}
		if nBar == n {
			for i := range w.threads {
				w.threads[i].state = stRun
				w.threads[i].pc++
			}
			continue
		}
		return w.deadlock(nDone, nBar, nWarp)
	}
}

func (w *worker) deadlock(nDone, nBar, nWarp int) error {
	desc := ""
	seen := map[int32]int{}
	for i := range w.threads {
		t := &w.threads[i]
		if t.state == stBar || t.state == stWarp {
			if _, ok := seen[t.pc]; !ok {
				seen[t.pc] = i
				in := &w.e.code[t.pc]
				desc += fmt.Sprintf("; thread %d waits at line %d", i, in.line)
			}
		}
	}
	return status.Errorf(status.FailedPrecondition,
		"deadlock in %s block %v: %d threads at bar.sync, %d at warp-synchronous instructions, %d exited%s",
		w.e.name, w.ctaid, nBar, nWarp, nDone, desc)
}

func (w *worker) where(t *thread, in *inst) string {
	i := 0
	if t != nil && len(w.threads) > 0 {
		for k := range w.threads {
			if &w.threads[k] == t {
				i = k
				break
			}
		}
	}
	bx, by := w.block[0], w.block[1]
	return fmt.Sprintf("line %d (entry %s, block %v, thread [%d %d %d])", in.line, w.e.name, w.ctaid,
		i%bx, i/bx%by, i/(bx*by))
}

func (w *worker) errf(t *thread, in *inst, code status.Code, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	return status.Errorf(code, "%s at %s", msg, w.where(t, in))
}

func (w *worker) wrap(t *thread, in *inst, err error) error {
	msg := err.Error()
	var se *status.Error
	if errors.As(err, &se) {
		msg = se.Msg
	}
	return &status.Error{Code: status.CodeOf(err), Msg: msg + " at " + w.where(t, in), Err: err}
}
