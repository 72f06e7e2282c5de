package allocators

import (
	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

// Reading and writing a root buffer's bytes, on the host when the host
// sees them, else through the device's queue (memory only the device
// sees: a GPU's device-local memory).

// hostOrDevice reports whether fill and read can reach b's memory.
func hostOrDevice(dev hal.Device, b *hal.Buffer) bool {
	return b.HostBytes() != nil || dev != nil
}

// fill sets [off, off+n) of b to pattern and returns once it is done.
func fill(dev hal.Device, b *hal.Buffer, off, n int64, pattern byte) error {
	if n <= 0 {
		return nil
	}
	if m := b.HostBytes(); m != nil {
		s := m[off : off+n]
		if pattern == 0 {
			clear(s)
		} else {
			for i := range s {
				s[i] = pattern
			}
		}
		return nil
	}
	if dev == nil {
		return status.Errorf(status.FailedPrecondition, "cannot fill device memory without its device")
	}
	sem, err := dev.CreateSemaphore(0)
	if err != nil {
		return err
	}
	signal := hal.SemaphoreList{{Semaphore: sem, Value: 1}}
	if err := hal.QueueFill(dev, nil, signal, hal.BufferRef{Buffer: b, Offset: off, Length: n}, []byte{pattern}); err != nil {
		return err
	}
	return signal.Wait(hal.NoDeadline)
}

// read returns [off, off+n) of b: a view of host memory, or a copy read
// back from the device.
func read(dev hal.Device, b *hal.Buffer, off, n int64) ([]byte, error) {
	if m := b.HostBytes(); m != nil {
		return m[off : off+n], nil
	}
	if dev == nil {
		return nil, status.Errorf(status.FailedPrecondition, "cannot read device memory without its device")
	}
	dst := make([]byte, n)
	if err := hal.ReadBufferInto(dev, b, off, dst); err != nil {
		return nil, err
	}
	return dst, nil
}

// firstNot returns the index of the first byte of s that is not want, or
// -1.
func firstNot(s []byte, want byte) int {
	for i, c := range s {
		if c != want {
			return i
		}
	}
	return -1
}
