package check

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/tooling/vio"
	"github.com/gree-ml/gree/go/runtime/vm"
	"github.com/gree-ml/gree/go/schemas/module"
)

// Module is the check module; it collects failure messages.
type Module struct {
	mu       sync.Mutex
	failures []string
	// host returns a view the host can read (a copy of a device buffer's
	// contents where the host cannot map it); nil: views are host memory.
	host func(*hal.BufferView) (*hal.BufferView, error)
}

var _ vm.NativeModule = (*Module)(nil)

// New returns a check module with no failures. host, when not nil, gives
// the host-readable view of a buffer view (see Module.host).
func New(host func(*hal.BufferView) (*hal.BufferView, error)) *Module {
	return &Module{host: host}
}

// Name returns "check".
func (m *Module) Name() string { return "check" }

// Failures returns the messages recorded so far and clears them: those of
// check functions called without a call (NativeFunc.Call). Calls through
// a vm.Context record their failures in the call, which returns them as
// its error (vm.CallFailures), so that calls running at once on one
// context each report only their own.
func (m *Module) Failures() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	f := m.failures
	m.failures = nil
	return f
}

func (m *Module) fail(format string, args ...any) {
	m.mu.Lock()
	m.failures = append(m.failures, fmt.Sprintf(format, args...))
	m.mu.Unlock()
}

// failFunc records one failed expectation.
type failFunc func(format string, args ...any)

// Lookup returns the check functions. Called in a call (CallIn), a failed
// expectation is a failure of that call only (vm.Call.Fail: the call
// returns it as its error); called without one (Call), it joins the
// module's list (Failures).
func (m *Module) Lookup(name string) (vm.NativeFunc, bool) {
	fn, ok := m.lookup(name)
	if !ok {
		return vm.NativeFunc{}, false
	}
	body := fn.Call
	fn.NativeFunc.Call = func(a []vm.Value) ([]vm.Value, error) { return body(m.fail, a) }
	fn.NativeFunc.CallIn = func(call *vm.Call, a []vm.Value) ([]vm.Value, error) {
		if call == nil {
			return body(m.fail, a)
		}
		return body(func(format string, args ...any) { call.Fail(fmt.Sprintf(format, args...)) }, a)
	}
	return fn.NativeFunc, true
}

// checkFunc is a check function whose failures go to the failFunc it is
// given.
type checkFunc struct {
	vm.NativeFunc
	Call func(fail failFunc, a []vm.Value) ([]vm.Value, error)
}

func (m *Module) lookup(name string) (checkFunc, bool) {
	r, i, f := module.KindRef, module.KindI32, module.KindF32
	switch name {
	case "expect_true", "expect_false":
		want := name == "expect_true"
		return checkFunc{NativeFunc: vm.NativeFunc{Args: []module.Kind{i}}, Call: func(fail failFunc, a []vm.Value) ([]vm.Value, error) {
			if (a[0].I != 0) != want {
				if want {
					fail("Expected %d to be nonzero.", a[0].I)
				} else {
					fail("Expected %d to be zero.", a[0].I)
				}
			}
			return nil, nil
		}}, true
	case "expect_all_true":
		return checkFunc{NativeFunc: vm.NativeFunc{Args: []module.Kind{r}}, Call: func(fail failFunc, a []vm.Value) ([]vm.Value, error) {
			b, err := m.view(a[0])
			if err != nil {
				return nil, err
			}
			m.allTrue(fail, b)
			return nil, nil
		}}, true
	case "expect_eq":
		return checkFunc{NativeFunc: vm.NativeFunc{Args: []module.Kind{r, r}}, Call: func(fail failFunc, a []vm.Value) ([]vm.Value, error) {
			l, err := m.view(a[0])
			if err != nil {
				return nil, err
			}
			rr, err := m.view(a[1])
			if err != nil {
				return nil, err
			}
			m.eq(fail, l, rr)
			return nil, nil
		}}, true
	case "expect_almost_eq":
		return checkFunc{NativeFunc: vm.NativeFunc{Args: []module.Kind{r, r, f, f}}, Call: func(fail failFunc, a []vm.Value) ([]vm.Value, error) {
			l, err := m.view(a[0])
			if err != nil {
				return nil, err
			}
			rr, err := m.view(a[1])
			if err != nil {
				return nil, err
			}
			m.almostEq(fail, l, rr, a[2].F, a[3].F)
			return nil, nil
		}}, true
	}
	return checkFunc{}, false
}

func (m *Module) view(v vm.Value) (*hal.BufferView, error) {
	b, ok := v.Ref.(*hal.BufferView)
	if !ok || b == nil {
		return nil, fmt.Errorf("check: expected a buffer view, got %s", v)
	}
	if m.host != nil {
		return m.host(b)
	}
	return b, nil
}

func text(b *hal.BufferView) string { return vio.FormatBufferView(b, 1024) }

func (m *Module) allTrue(fail failFunc, b *hal.BufferView) {
	n, data := b.Type.ByteSize(), b.Bytes()
	for i := 0; i+n <= len(data); i += n {
		zero := true
		for _, x := range data[i : i+n] {
			if x != 0 {
				zero = false
			}
		}
		if zero {
			fail("Expected all elements to be true (nonzero).\n  value:\n    %s", text(b))
			return
		}
	}
}

func sameShape(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (m *Module) eq(fail failFunc, l, r *hal.BufferView) {
	var why string
	switch {
	case l.Type != r.Type:
		why = "Element types do not match."
	case !sameShape(l.Shape, r.Shape):
		why = "Shapes do not match."
	case string(l.Bytes()) != string(r.Bytes()):
		why = "Contents does not match."
	default:
		return
	}
	fail("Expected equality of these values. %s\n  lhs:\n    %s\n  rhs:\n    %s", why, text(l), text(r))
}

// floats decodes a float buffer view.
func floats(b *hal.BufferView) ([]float64, bool) {
	n := int(b.ElementCount())
	out := make([]float64, n)
	d := b.Bytes()
	switch b.Type {
	case hal.ElementFloat32:
		for i := range out {
			out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(d[4*i:])))
		}
	case hal.ElementFloat64:
		for i := range out {
			out[i] = math.Float64frombits(binary.LittleEndian.Uint64(d[8*i:]))
		}
	case hal.ElementFloat16:
		for i := range out {
			out[i] = float64(vm.F16ToF32(binary.LittleEndian.Uint16(d[2*i:])))
		}
	case hal.ElementBFloat16:
		for i := range out {
			out[i] = float64(vm.BF16ToF32(binary.LittleEndian.Uint16(d[2*i:])))
		}
	default:
		if t := b.Type; t.ByteSize() == 1 && t.IsFloat() {
			for i := range out {
				v, ok := vio.DecodeSmallFloat(t, uint32(d[i]))
				if !ok {
					return nil, false
				}
				out[i] = v
			}
			return out, true
		}
		return nil, false
	}
	return out, true
}

func (m *Module) almostEq(fail failFunc, l, r *hal.BufferView, atol, rtol float64) {
	var why string
	lf, lok := floats(l)
	rf, _ := floats(r)
	switch {
	case l.Type != r.Type:
		why = "Element types do not match."
	case !sameShape(l.Shape, r.Shape):
		why = "Shapes do not match."
	case !lok:
		why = fmt.Sprintf("Element type %s is not a floating-point type.", l.Type)
	default:
		for i := range lf {
			a, e := lf[i], rf[i]
			if a == e || (math.IsNaN(a) && math.IsNaN(e)) {
				continue
			}
			if !math.IsInf(e, 0) && !math.IsNaN(e) && math.Abs(a-e) <= atol+rtol*math.Abs(e) {
				continue
			}
			why = fmt.Sprintf("Contents does not match to tolerance parameters atol=%g, rtol=%g. The first failure occurs at index %d as the lhs value %g differs from the rhs value %g by %g.", atol, rtol, i, a, e, math.Abs(a-e))
			break
		}
		if why == "" {
			return
		}
	}
	fail("Expected near equality of these values. %s\n  lhs:\n    %s\n  rhs:\n    %s", why, text(l), text(r))
}

// Summary joins failures for a status message.
func Summary(failures []string) string { return strings.Join(failures, "\n") }
