package hal

import (
	"fmt"
	"strings"
	"sync"

	"github.com/gree-ml/gree/go/status"
)

// Registry holds driver factories in registration order.
type Registry struct {
	mu        sync.Mutex
	factories []Factory
}

// Default is the process-wide registry the tools, the C ABI and Python use.
// drivers.RegisterAll fills it.
var Default = &Registry{}

// Register adds a factory. Registering a name twice keeps both entries, as
// IREE does; lookups prefer the most recent.
func (r *Registry) Register(f Factory) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.factories = append(r.factories, f)
}

// Factories returns the registered factories in registration order, one per
// name (the most recent registration of a repeated name, at its first place).
func (r *Registry) Factories() []Factory {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Factory
	seen := map[string]int{}
	for _, f := range r.factories {
		if i, ok := seen[f.Name]; ok {
			out[i] = f
			continue
		}
		seen[f.Name] = len(out)
		out = append(out, f)
	}
	return out
}

// Names returns the registered driver names in registration order.
func (r *Registry) Names() []string {
	var names []string
	for _, f := range r.Factories() {
		names = append(names, f.Name)
	}
	return names
}

// Lookup returns the factory registered under name.
func (r *Registry) Lookup(name string) (Factory, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.factories) - 1; i >= 0; i-- {
		if r.factories[i].Name == name {
			return r.factories[i], nil
		}
	}
	return Factory{}, status.Errorf(status.NotFound, "no driver '%s' registered; available drivers: %s", name, strings.Join(r.namesLocked(), ", "))
}

func (r *Registry) namesLocked() []string {
	var names []string
	seen := map[string]bool{}
	for _, f := range r.factories {
		if !seen[f.Name] {
			seen[f.Name] = true
			names = append(names, f.Name)
		}
	}
	return names
}

// CreateDriver creates the driver a URI's scheme names ("cuda://0" → cuda).
func (r *Registry) CreateDriver(uri string) (Driver, error) {
	u, err := ParseURI(uri)
	if err != nil {
		return nil, err
	}
	f, err := r.Lookup(u.Driver)
	if err != nil {
		return nil, err
	}
	d, err := safeCreate(f)
	if err != nil {
		return nil, fmt.Errorf("creating driver '%s': %w", f.Name, err)
	}
	return d, nil
}

// safeCreate turns a panic inside a driver's Create into an INTERNAL error.
func safeCreate(f Factory) (d Driver, err error) {
	defer func() {
		if p := recover(); p != nil {
			d, err = nil, status.Errorf(status.Internal, "driver %s panicked while loading: %v", f.Name, p)
		}
	}()
	return f.Create()
}

// CreateDeviceByURI creates a driver from the URI's scheme and the device
// its path names, with its query parameters. The driver stays open for the
// device's lifetime.
func (r *Registry) CreateDeviceByURI(uri string) (Device, error) {
	d, err := r.CreateDriver(uri)
	if err != nil {
		return nil, err
	}
	u, _ := ParseURI(uri)
	return d.CreateDeviceByPath(u.Path, u.Params)
}
