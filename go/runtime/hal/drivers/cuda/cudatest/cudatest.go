// Package cudatest builds the fake libcuda (testdata/fake_libcuda.c: two
// GPUs whose device memory is host memory) that the cuda driver's tests
// run on, and runs the kernels launched on it on the PTX simulator
// (go/internal/ptxsim). Other packages use it for end-to-end
// tests of the tools on machines without a GPU: build the fake with Open,
// point the driver at it with GREE_LIBCUDA (cuda.LibraryEnv), and the
// programs the tools run compute on the simulator.
package cudatest

import (
	_ "embed"
	"os"
	"path/filepath"
	"testing"

	"github.com/gree-ml/gree/go/internal/dylib"
	"github.com/gree-ml/gree/go/runtime/hal/gpuinfo/gputest"
)

//go:embed testdata/fake_libcuda.c
var fakeSource []byte

//go:embed testdata/fake_libcuda_exec.h
var fakeExecSource []byte

//go:embed testdata/fake_libcuda_graph.h
var fakeGraphSource []byte

// Control reaches into the fake library: its state and counters.
type Control struct {
	SetInitResult     func(r int32)                             `sym:"fake_set_init_result"`
	Retained          func(dev int32) int32                     `sym:"fake_retained"`
	InitCalls         func() int32                              `sym:"fake_init_calls"`
	SetAttribute      func(dev, attr, value int32)              `sym:"fake_set_attribute"`
	Attribute         func(dev, attr int32) int32               `sym:"fake_attribute"`
	SetMemLimit       func(bytes int64)                         `sym:"fake_set_mem_limit"`
	LiveDeviceAllocs  func() int64                              `sym:"fake_live_device_allocs"`
	LiveHostAllocs    func() int64                              `sym:"fake_live_host_allocs"`
	LiveStreams       func() int64                              `sym:"fake_live_streams"`
	LiveEvents        func() int64                              `sym:"fake_live_events"`
	LiveModules       func() int64                              `sym:"fake_live_modules"`
	AsyncAllocs       func() int32                              `sym:"fake_async_allocs"`
	ContextCalls      func() int32                              `sym:"fake_context_calls"`
	SetFuncMaxThreads func(n int32)                             `sym:"fake_set_func_max_threads"`
	SetLaunchHook     func(hook uintptr)                        `sym:"fake_set_launch_hook"`
	Launches          func() int32                              `sym:"fake_launches"`
	LastDim           func(i int32) uint32                      `sym:"fake_last_dim"`
	LastParam         func(i int32) uint64                      `sym:"fake_last_param"`
	LastNParams       func() int32                              `sym:"fake_last_nparams"`
	LastEntry         func() string                             `sym:"fake_last_entry"`
	Allocations       func(bases, sizes *uint64, n int32) int32 `sym:"fake_allocations"`
	LiveGraphs        func() int64                              `sym:"fake_live_graphs"`
	LiveGraphExecs    func() int64                              `sym:"fake_live_graph_execs"`
	GraphLaunches     func() int64                              `sym:"fake_graph_launches"`
	EventRecords      func() int64                              `sym:"fake_event_records"`
}

// Build compiles the fake library into a fresh temporary directory (so
// each call's library has its own state) and returns its path. flags go
// to the C compiler (-DFAKE_NO_EXEC builds one that only enumerates). It
// skips the test when no C compiler is installed.
func Build(t testing.TB, flags ...string) string {
	t.Helper()
	src := t.TempDir()
	for name, data := range map[string][]byte{"fake_libcuda.c": fakeSource, "fake_libcuda_exec.h": fakeExecSource, "fake_libcuda_graph.h": fakeGraphSource} {
		if err := os.WriteFile(filepath.Join(src, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return gputest.BuildSharedLibrary(t, filepath.Join(src, "fake_libcuda.c"), t.TempDir(), "libfakecuda.so", flags...)
}

// Open builds the fake library, loads it and returns its path and its
// controls, with a launch hook that runs every launched kernel's PTX on
// the simulator (Simulate). The driver loading the same path uses this
// very instance (the dynamic loader returns the library already loaded).
func Open(t testing.TB) (string, *Control) {
	t.Helper()
	path := Build(t)
	lib, err := dylib.Open(dylib.Spec{What: "fake libcuda", Candidates: []string{path}})
	if err != nil {
		t.Fatal(err)
	}
	var ctl Control
	if err := lib.Bind(&ctl); err != nil {
		t.Fatal(err)
	}
	ctl.SetLaunchHook(launchHook(ctl.Allocations))
	return path, &ctl
}
