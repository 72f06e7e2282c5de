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
		out = append(out, t)
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
