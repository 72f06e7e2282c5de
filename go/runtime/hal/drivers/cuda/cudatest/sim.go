package cudatest

import (
	"sort"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/gree-ml/gree/go/internal/ptxsim"
	"github.com/gree-ml/gree/go/status"
)

// The fake libcuda hands every launch to a hook; this one runs the
// kernel's PTX on the PTX simulator (go/internal/ptxsim) over
// the host memory the fake's device pointers are, so dispatches compute
// what the kernels compute on a GPU. Every access is checked against the
// fake's live allocations first: one outside them fails the launch (as
// CUDA_ERROR_LAUNCH_FAILED, with the simulator's error kept for the test)
// instead of corrupting the test process.

var (
	simMu      sync.Mutex
	simModules = map[string]*ptxsim.Module{} // by PTX text
	simErrors  []error                       // launches the simulator failed
)

// launchHook returns the C function pointer of a hook for the fake whose
// allocations allocs lists.
func launchHook(allocs func(bases, sizes *uint64, n int32) int32) uintptr {
	return purego.NewCallback(func(ptx, entry uintptr, gx, gy, gz, bx, by, bz uint32, params uintptr, nparams int32) int32 {
		var vals []uint64
		if nparams > 0 {
			vals = append(vals, unsafe.Slice((*uint64)(hostPointer(uint64(params))), nparams)...)
		}
		bases, sizes := make([]uint64, 4096), make([]uint64, 4096)
		n := allocs(&bases[0], &sizes[0], int32(len(bases)))
		mem := newCheckedMemory(bases[:n], sizes[:n])
		err := simulate(goString(ptx), goString(entry), [3]int{int(gx), int(gy), int(gz)}, [3]int{int(bx), int(by), int(bz)}, vals, mem)
		if err != nil {
			simMu.Lock()
			simErrors = append(simErrors, err)
			simMu.Unlock()
			return launchFailed
		}
		return 0
	})
}

// simulate runs entry of the PTX module text on the simulator.
func simulate(text, entry string, grid, block [3]int, params []uint64, mem ptxsim.Memory) error {
	simMu.Lock()
	m := simModules[text]
	simMu.Unlock()
	if m == nil {
		var err error
		if m, err = ptxsim.Load(text); err != nil {
			return err
		}
		simMu.Lock()
		simModules[text] = m
		simMu.Unlock()
	}
	return m.Launch(entry, grid, block, params, mem)
}

// launchFailed is CUDA_ERROR_LAUNCH_FAILED, what a launch the simulator
// failed returns.
const launchFailed = 719

// SimulatorErrors returns (and forgets) the errors of the launches the
// simulator failed.
func SimulatorErrors() []error {
	simMu.Lock()
	defer simMu.Unlock()
	errs := simErrors
	simErrors = nil
	return errs
}

// checkedMemory is host memory limited to a set of allocations.
type checkedMemory struct {
	ranges [][2]uint64 // [base, end), sorted
	host   ptxsim.Memory
}

func newCheckedMemory(bases, sizes []uint64) *checkedMemory {
	m := &checkedMemory{host: ptxsim.NewHostMemory()}
	for i := range bases {
		m.ranges = append(m.ranges, [2]uint64{bases[i], bases[i] + sizes[i]})
	}
	sort.Slice(m.ranges, func(i, j int) bool { return m.ranges[i][0] < m.ranges[j][0] })
	return m
}

func (m *checkedMemory) check(addr uint64, size int) error {
	i := sort.Search(len(m.ranges), func(i int) bool { return m.ranges[i][0] > addr }) - 1
	if i < 0 || addr+uint64(size) > m.ranges[i][1] {
		return status.Errorf(status.OutOfRange, "access of %d bytes at %#x is outside every allocation (an illegal address on a GPU)", size, addr)
	}
	return nil
}

func (m *checkedMemory) Load(addr uint64, size int) (uint64, error) {
	if err := m.check(addr, size); err != nil {
		return 0, err
	}
	return m.host.Load(addr, size)
}

func (m *checkedMemory) Store(addr uint64, size int, v uint64) error {
	if err := m.check(addr, size); err != nil {
		return err
	}
	return m.host.Store(addr, size, v)
}

func (m *checkedMemory) Atomic(addr uint64, size int, f func(uint64) uint64) (uint64, error) {
	if err := m.check(addr, size); err != nil {
		return 0, err
	}
	return m.host.Atomic(addr, size, f)
}

// hostPointer converts an address of the fake (host memory) to a pointer.
func hostPointer(addr uint64) unsafe.Pointer {
	p := uintptr(addr)
	return *(*unsafe.Pointer)(unsafe.Pointer(&p))
}

// goString reads a C string.
func goString(p uintptr) string {
	var b []byte
	for i := uintptr(0); ; i++ {
		c := *(*byte)(hostPointer(uint64(p + i)))
		if c == 0 {
			return string(b)
		}
		b = append(b, c)
	}
}
