package hal

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/status"
)

// deviceOnly is storage the host cannot see (a GPU's memory).
type deviceOnly struct{ freed int }

func (d *deviceOnly) Bytes() []byte { return nil }
func (d *deviceOnly) Free()         { d.freed++ }

func TestMapRefusesDeviceLocalMemory(t *testing.T) {
	s := &deviceOnly{}
	b := NewBuffer(s, 64, BufferParams{Type: MemoryTypeDeviceLocal, Usage: BufferUsageDefault | BufferUsageMapping}, "gpu0")
	_, err := b.Map(0, 64, MemoryAccessRead)
	if status.CodeOf(err) != status.PermissionDenied || !strings.Contains(err.Error(), "not host-visible") || !strings.Contains(err.Error(), "DEVICE_LOCAL") {
		t.Fatalf("mapping device-local memory: %v", err)
	}
	if b.HostBytes() != nil {
		t.Fatal("device memory has host bytes")
	}
	if _, err := ReadBuffer(nil, b, 0, 4); status.CodeOf(err) != status.PermissionDenied {
		t.Fatalf("reading device memory without a device: %v", err)
	}
	if err := b.Release(); err != nil || s.freed != 1 {
		t.Fatalf("release: %v, storage freed %d times", err, s.freed)
	}
	if err := b.Release(); status.CodeOf(err) != status.FailedPrecondition || !strings.Contains(err.Error(), "released twice") {
		t.Fatalf("double release: %v", err)
	}
	if s.freed != 1 {
		t.Fatalf("storage freed %d times", s.freed)
	}
}

func TestMapChecksUsageAndAccess(t *testing.T) {
	h := NewHeapAllocator()
	b, err := h.Import(BufferParams{Type: MemoryTypeHostLocal, Usage: BufferUsageTransfer, Access: MemoryAccessRead}, make([]byte, 16), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Map(0, 16, MemoryAccessWrite); status.CodeOf(err) != status.PermissionDenied {
		t.Fatalf("writing through a read-only mapping: %v", err)
	}
	if _, err := b.Map(0, 16, MemoryAccessRead); err != nil {
		t.Fatalf("reading a read-only host buffer: %v", err)
	}
	raw := NewBuffer(&hostStorage{b: make([]byte, 8)}, 8, BufferParams{Type: MemoryTypeHostLocal, Usage: BufferUsageTransfer}, nil)
	if _, err := raw.Map(0, 8, MemoryAccessRead); status.CodeOf(err) != status.PermissionDenied || !strings.Contains(err.Error(), "without MAPPING usage") {
		t.Fatalf("mapping a buffer without MAPPING usage: %v", err)
	}
}

func TestBitfieldsFormatAsIREE(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{(MemoryTypeDeviceLocal | MemoryTypeHostVisible).String(), "DEVICE_LOCAL|HOST_VISIBLE"},
		{MemoryTypeHostLocal.String(), "HOST_LOCAL"},
		{(BufferUsageDefault | BufferUsageMapping | BufferUsageMappingPersistent).String(), "TRANSFER|DISPATCH_STORAGE|MAPPING|MAPPING_PERSISTENT"},
		{(BufferUsageTransfer | BufferUsageMapping | BufferUsageMappingPersistent).String(), "TRANSFER|MAPPING|MAPPING_PERSISTENT"},
		{MemoryAccessAll.String(), "ALL"},
		{(MemoryAccessRead | 1<<9).String(), "READ|200h"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestHeapBuffersAreMappableAndCounted(t *testing.T) {
	h := NewHeapAllocator()
	b, err := h.Allocate(BufferParams{Type: MemoryTypeDeviceLocal, Usage: BufferUsageDefault}, 13)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != "13 bytes (at offset 0 into 13), memory_type=DEVICE_LOCAL|HOST_VISIBLE, allowed_access=ALL, allowed_usage=TRANSFER|DISPATCH_STORAGE|MAPPING|MAPPING_PERSISTENT" {
		t.Errorf("heap buffer: %s", got)
	}
	s := h.Statistics()
	if s.DeviceBytesAllocated != 13 || s.DeviceBytesPeak != 13 {
		t.Errorf("statistics %+v", s)
	}
	b.Release()
	if s := h.Statistics(); s.DeviceBytesFreed != 13 || !strings.Contains(s.Format(), "DEVICE_LOCAL:           13B peak") {
		t.Errorf("statistics after release %+v:\n%s", s, s.Format())
	}
}

// A borrowed buffer sees its lender's bytes at its offset, owns no
// reference of its own, passes the references Retain adds on to the
// lender, and is unusable once the lender is released.
func TestBorrowedBufferFollowsItsLender(t *testing.T) {
	s := &hostStorage{b: make([]byte, 64)}
	for i := range s.b {
		s.b[i] = byte(i)
	}
	lender := NewBuffer(s, 64, BufferParams{Type: MemoryTypeHostLocal, Usage: BufferUsageDefault}, nil)
	b, err := lender.Borrow(16, 32)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.HostBytes(); len(got) != 32 || got[0] != 16 || got[31] != 47 || b.ByteOffset() != 16 {
		t.Fatalf("borrowed bytes %v at offset %d", got, b.ByteOffset())
	}
	if _, err := lender.Borrow(48, 32); status.CodeOf(err) != status.OutOfRange {
		t.Fatalf("borrowing past the end: %v", err)
	}
	// A retain (a command buffer's) holds the lender until released.
	if err := b.Retain(); err != nil {
		t.Fatal(err)
	}
	if err := lender.Release(); err != nil {
		t.Fatal(err)
	}
	if lender.Released() || b.Released() {
		t.Fatal("the lender went while a retained borrow still used it")
	}
	if err := b.Release(); err != nil {
		t.Fatal(err)
	}
	if !lender.Released() || !b.Released() {
		t.Fatalf("lender released %v, borrow released %v after the last retain", lender.Released(), b.Released())
	}
	if err := b.Retain(); status.CodeOf(err) != status.FailedPrecondition {
		t.Fatalf("retaining a borrow of a released lender: %v", err)
	}
	// The borrow's own reference owns nothing: dropping it keeps the lender.
	l2 := NewBuffer(&hostStorage{b: make([]byte, 8)}, 8, BufferParams{Type: MemoryTypeHostLocal, Usage: BufferUsageDefault}, nil)
	b2, err := l2.Borrow(0, 8)
	if err != nil {
		t.Fatal(err)
	}
	if err := b2.Release(); err != nil || l2.Released() {
		t.Fatalf("dropping a borrow's own reference: %v, lender released %v", err, l2.Released())
	}
	if err := l2.Release(); err != nil {
		t.Fatalf("releasing the lender after its borrow: %v", err)
	}
}
