package kir

import (
	"fmt"
	"sync"

	"github.com/gree-ml/gree/go/status"
)

// MaxSubgroupSize is the subgroup size of the reference interpreter: a
// workgroup's threads, numbered x fastest, form subgroups of
// min(MaxSubgroupSize, threads in the workgroup) consecutive threads; the
// last subgroup may be partial.
const MaxSubgroupSize = 32

// Run executes k, the reference semantics every emitter is tested against.
// It verifies k, then runs every workgroup of grid in order (x fastest,
// then y, then z) on bindings, little-endian byte buffers holding elements
// of each binding's type (i1 as one byte 0 or 1, f16 and bf16 as 2 bytes).
//
// Semantics beyond the comments in ops.go, chosen to be deterministic:
//   - integers wrap; division and remainder by zero give 0; signed
//     division of the minimum by -1 wraps; shifts read the amount as
//     unsigned, and an amount of at least the bit width gives 0 (shl, shru)
//     or the sign fill (shrs);
//   - float ops round to nearest even in the element type; f16 and bf16
//     arithmetic is f32 arithmetic (operands extended, the f32 result
//     rounded to the narrow type), and so are sitofp/uitofp to them;
//     truncf rounds once, directly; transcendental functions are Go's math
//     functions in float64 rounded to the type; fma rounds once (f32, f64);
//   - NaN results have unspecified sign and payload;
//   - fptosi/fptoui truncate and saturate to the integer range, NaN gives 0;
//   - Reduce combines lanes in order, lane 0 first, rounding every step;
//   - Contract accumulates in C's element type, for each C element in order
//     of k, with a separate multiply and add; other implementations may
//     reorder and fuse float contractions;
//   - DWConv adds each window's products to +0 in order of (ci, i, j), with a
//     separate multiply and add; other implementations may reorder and
//     fuse them;
//   - a For loop ends when its induction variable reaches hi or the
//     increment overflows; a step that is not positive is an error;
//   - loads and stores outside a buffer or shared allocation, and tiles
//     outside their operands, are OUT_OF_RANGE errors naming the op and
//     the binding or allocation.
//
// Kernels with more than one thread per workgroup run each thread on its
// own goroutine; Barrier waits for all threads of the workgroup, and the
// subgroup ops for all threads of the subgroup (Kernel.SubgroupSize, see
// MaxSubgroupSize), all at the same op; a barrier also orders every
// memory access, shared or not (more than the contract of the package
// documentation requires). Verify rejects synchronizing ops in divergent
// control flow; should the threads of a group still fail to meet at one
// op, that is a FAILED_PRECONDITION error, not a deadlock or a value.
// SubgroupShuffle reads lane (i mod the subgroup's threads).
func Run(k *Kernel, grid [3]int64, pushConstants []int64, bindings [][]byte) error {
	if err := Verify(k); err != nil {
		return err
	}
	return run(k, grid, pushConstants, bindings)
}

// run is Run without verification: k must be well formed (Verify's
// structural checks), but may break the thread-level contract, which the
// run then reports as an error where it can (tests use it to hold Run
// and the targets' interpreters to the same dynamic checks).
func run(k *Kernel, grid [3]int64, pushConstants []int64, bindings [][]byte) error {
	if len(pushConstants) < k.NumPushConstants {
		return status.Errorf(status.InvalidArgument, "kir: run @%s: %d push constants given, kernel needs %d", k.Name, len(pushConstants), k.NumPushConstants)
	}
	if len(bindings) != len(k.Bindings) {
		return status.Errorf(status.InvalidArgument, "kir: run @%s: %d bindings given, kernel has %d", k.Name, len(bindings), len(k.Bindings))
	}
	for d, n := range grid {
		if n < 0 {
			return status.Errorf(status.InvalidArgument, "kir: run @%s: grid dimension %d is %d", k.Name, d, n)
		}
	}
	m := &machine{k: k, grid: grid, pcs: pushConstants, bindings: bindings, atomics: hasKind(k.Body, AtomicRMW)}
	for z := int64(0); z < grid[2]; z++ {
		for y := int64(0); y < grid[1]; y++ {
			for x := int64(0); x < grid[0]; x++ {
				m.wg = [3]int64{x, y, z}
				if err := m.workgroup(); err != nil {
					return fmt.Errorf("kir: run @%s workgroup (%d, %d, %d): %w", k.Name, x, y, z, err)
				}
			}
		}
	}
	return nil
}

// machine is the state of one workgroup's execution.
type machine struct {
	k        *Kernel
	grid     [3]int64
	pcs      []int64
	bindings [][]byte
	shared   [][]byte
	wg       [3]int64
	threads  int64
	sgSize   int64
	groups   *rendezvous // nil with one thread
	// atomics is set for kernels with AtomicRMW ops, which run under mu,
	// as do their threads' binding loads and stores.
	atomics bool
	mu      sync.Mutex
}

// hasKind reports whether blk or a nested block has an op of kind k.
func hasKind(blk *Block, k Kind) bool {
	for _, op := range blk.Ops {
		if op.Kind == k {
			return true
		}
		for _, r := range op.Regions {
			if hasKind(r, k) {
				return true
			}
		}
	}
	return false
}

// thread is one invocation: its values and ids.
type thread struct {
	m      *machine
	vals   [][]uint64
	tid    [3]int64
	linear int64
}

func (m *machine) workgroup() error {
	m.shared = m.shared[:0]
	for _, s := range m.k.Shared {
		b := make([]byte, s.Count*int64(s.Elem.ByteSize()))
		if s.Scratch {
			for i := range b {
				b[i] = 0xff // all ones: NaN, or −1
			}
		}
		m.shared = append(m.shared, b)
	}
	ws := m.k.WorkgroupSize
	m.threads = int64(ws[0]) * int64(ws[1]) * int64(ws[2])
	sg := int64(m.k.SubgroupSize)
	if sg <= 0 {
		sg = MaxSubgroupSize
	}
	m.sgSize = min(sg, m.threads)
	if m.threads == 1 {
		t := &thread{m: m, vals: make([][]uint64, len(m.k.Types))}
		_, err := t.run(m.k.Body)
		return err
	}
	return m.runThreads()
}

func (t *thread) errf(code status.Code, op *Op, format string, args ...any) error {
	return status.Errorf(code, "%s: %s", op.Kind, fmt.Sprintf(format, args...))
}

// run executes the ops of b and returns the values its Yield carries.
func (t *thread) run(b *Block) ([][]uint64, error) {
	for _, op := range b.Ops {
		switch op.Kind {
		case Yield:
			ys := make([][]uint64, len(op.Args))
			for i, a := range op.Args {
				ys[i] = t.vals[a]
			}
			return ys, nil
		case For:
			if err := t.forOp(op); err != nil {
				return nil, err
			}
		case If:
			r := 1
			if t.vals[op.Args[0]][0]&1 != 0 {
				r = 0
			}
			ys, err := t.run(op.Regions[r])
			if err != nil {
				return nil, err
			}
			for i, res := range op.Results {
				t.vals[res] = ys[i]
			}
		default:
			if err := t.op(op); err != nil {
				return nil, err
			}
		}
	}
	return nil, nil
}

func (t *thread) forOp(op *Op) error {
	lo, hi, step := int64(t.vals[op.Args[0]][0]), int64(t.vals[op.Args[1]][0]), int64(t.vals[op.Args[2]][0])
	if step <= 0 {
		return t.errf(status.InvalidArgument, op, "step %d is not positive", step)
	}
	body := op.Regions[0]
	iters := make([][]uint64, len(op.Args)-3)
	for i, a := range op.Args[3:] {
		iters[i] = t.vals[a]
	}
	for iv := lo; iv < hi; {
		t.vals[body.Args[0]] = []uint64{uint64(iv)}
		for i, v := range iters {
			t.vals[body.Args[i+1]] = v
		}
		ys, err := t.run(body)
		if err != nil {
			return err
		}
		iters = ys
		next := iv + step
		if next < iv || int64(sext(uint64(next), t.m.k.Types[body.Args[0]].Elem.Bits())) != next {
			break
		}
		iv = next
	}
	for i, r := range op.Results {
		t.vals[r] = iters[i]
	}
	return nil
}

// scalar returns the first lane of v as an int64.
func (t *thread) scalar(v Value) int64 { return int64(t.vals[v][0]) }
