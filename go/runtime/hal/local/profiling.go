package local

import (
	"os"
	"sync"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

// profiling is a device's profile in progress: the local devices record
// dispatch statistics (DispatchProfile) and, at the end, write them to
// the profile's file when one is named.
type profiling struct {
	mu   sync.Mutex
	opts *hal.ProfilingOptions
	prof *DispatchProfile
}

var _ hal.Profiler = (*Device)(nil)

// BeginProfiling starts recording dispatch statistics.
func (d *Device) BeginProfiling(opts hal.ProfilingOptions) error {
	p := &d.prof
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.opts != nil {
		return status.New(status.FailedPrecondition, "profiling has already begun on this device (end it first)")
	}
	p.opts = &opts
	p.prof = EnableDispatchProfile()
	return nil
}

// FlushProfiling writes the statistics so far to the profile's file.
func (d *Device) FlushProfiling() error {
	p := &d.prof
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.writeLocked()
}

func (p *profiling) writeLocked() error {
	if p.opts == nil || p.opts.FilePath == "" {
		return nil
	}
	f, err := os.Create(p.opts.FilePath)
	if err != nil {
		return status.Errorf(status.PermissionDenied, "writing the profile: %v", err)
	}
	p.prof.Write(f)
	if err := f.Close(); err != nil {
		return status.Errorf(status.DataLoss, "writing the profile %s: %v", p.opts.FilePath, err)
	}
	return nil
}

// EndProfiling stops recording and writes the profile's file.
func (d *Device) EndProfiling() error {
	p := &d.prof
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.opts == nil {
		return nil
	}
	err := p.writeLocked()
	DisableDispatchProfile()
	p.opts, p.prof = nil, nil
	return err
}
