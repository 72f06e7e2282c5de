package cuda

import (
	"sync"
	"unsafe"
)

// Submissions and host transfers need small pinned host blocks (staging
// for updates and status words, the host side of hal's staging copies)
// and device blocks (status words) all the time; allocating each with
// cuMemHostAlloc or cuMemAlloc, and freeing it with calls that synchronize
// the device, would cost more than the work. A device keeps up to
// maxCachedBlocks blocks of each kind of at most maxCachedBlock bytes
// for reuse; larger ones, and those past the limit, are freed at once.
// Blocks are at least minBlock bytes.
const (
	maxCachedBlocks = 8
	maxCachedBlock  = 16 << 20
	minBlock        = 64 << 10
)

// blockPool is a device's cache of free blocks.
type blockPool struct {
	mu   sync.Mutex
	host [][]byte // pinned host blocks (len = capacity)
	dev  []devBlock
}

// devBlock is device memory.
type devBlock struct {
	ptr  uint64
	size int64
}

// hostBlock returns a pinned block of at least n bytes. It must be called
// with the context current (on the worker).
func (v *device) hostBlock(n int64) ([]byte, error) {
	p := &v.pool
	p.mu.Lock()
	for i, b := range p.host {
		if int64(len(b)) >= n {
			p.host = append(p.host[:i], p.host[i+1:]...)
			p.mu.Unlock()
			return b, nil
		}
	}
	p.mu.Unlock()
	size := max(n, minBlock)
	var ptr unsafe.Pointer
	if err := v.cu.check(v.cu.MemHostAlloc(&ptr, uintptr(size), memHostAllocPortable|memHostAllocDeviceMap), "cuMemHostAlloc"); err != nil {
		return nil, err
	}
	return unsafe.Slice((*byte)(ptr), size), nil
}

// putHostBlock gives a block back: cached, or freed on the worker. It
// must not be called on the worker.
func (v *device) putHostBlock(b []byte) {
	p := &v.pool
	p.mu.Lock()
	if len(p.host) < maxCachedBlocks && len(b) <= maxCachedBlock {
		p.host = append(p.host, b)
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	v.w.do(func() error {
		return v.cu.check(v.cu.MemFreeHost(unsafe.Pointer(unsafe.SliceData(b))), "cuMemFreeHost")
	})
}

// devBlock returns device memory of at least n bytes (on the worker).
func (v *device) devBlock(n int64) (devBlock, error) {
	p := &v.pool
	p.mu.Lock()
	for i, b := range p.dev {
		if b.size >= n {
			p.dev = append(p.dev[:i], p.dev[i+1:]...)
			p.mu.Unlock()
			return b, nil
		}
	}
	p.mu.Unlock()
	b := devBlock{size: max(n, minBlock)}
	if r := v.cu.MemAlloc(&b.ptr, uintptr(b.size)); r != cudaSuccess {
		return devBlock{}, v.allocError(r, "cuMemAlloc_v2")
	}
	return b, nil
}

// putDevBlock gives device memory back: cached, or freed on the worker
// (not to be called on the worker).
func (v *device) putDevBlock(b devBlock) {
	p := &v.pool
	p.mu.Lock()
	if len(p.dev) < maxCachedBlocks && b.size <= maxCachedBlock {
		p.dev = append(p.dev, b)
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	v.w.do(func() error { return v.cu.check(v.cu.MemFree(b.ptr), "cuMemFree_v2") })
}

// freePool frees the cached blocks (on the worker).
func (v *device) freePool() {
	p := &v.pool
	p.mu.Lock()
	host, dev := p.host, p.dev
	p.host, p.dev = nil, nil
	p.mu.Unlock()
	for _, b := range host {
		v.cu.MemFreeHost(unsafe.Pointer(unsafe.SliceData(b)))
	}
	for _, b := range dev {
		v.cu.MemFree(b.ptr)
	}
}

// trimPool frees the cached blocks (not on the worker).
func (v *device) trimPool() error {
	return v.w.do(func() error {
		v.freePool()
		return nil
	})
}
