package compiler

import (
	"sort"
	"sync"
)

// Target is a registered target backend, e.g. "vmvx" or "llvm-cpu".
type Target struct {
	// Name is the backend name used with --iree-hal-target-backends.
	Name string
	// Device is the device the legacy backend flag maps to ("local", "cuda").
	Device string
	// Available, when set, reports whether the backend can compile in
	// this process (e.g. llvm-cpu needs LLVM at run time); an unavailable
	// backend is not listed, and using it is an error naming what to
	// install.
	Available func() error
}

var (
	mu      sync.Mutex
	targets = map[string]Target{}
)

// RegisterTarget adds a backend. Only backends that compile end to end are
// registered.
func RegisterTarget(t Target) {
	mu.Lock()
	defer mu.Unlock()
	targets[t.Name] = t
}

// Targets returns the registered backends sorted by name, as
// --iree-hal-list-target-backends prints them.
func Targets() []Target {
	mu.Lock()
	defer mu.Unlock()
	var out []Target
	for _, t := range targets {
		if t.Available == nil || t.Available() == nil {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// TargetNames returns the sorted backend names.
func TargetNames() []string {
	var names []string
	for _, t := range Targets() {
		names = append(names, t.Name)
	}
	return names
}

// TargetUnavailable returns the reason a registered backend cannot
// compile here, or nil (also for names that are not registered).
func TargetUnavailable(name string) error {
	mu.Lock()
	t, ok := targets[name]
	mu.Unlock()
	if !ok || t.Available == nil {
		return nil
	}
	return t.Available()
}
