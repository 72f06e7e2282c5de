package halmodule

import (
	"runtime"
	"testing"
	"time"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/vm"
	"github.com/gree-ml/gree/go/schemas/module"
	"github.com/gree-ml/gree/go/status"
)

// TestHandedOutBuffersAreFreedByTheirHolder: the cache keeps no reference
// to a buffer it handed out, so releasing it frees the memory at once;
// given back, it is cached again.
func TestHandedOutBuffersAreFreedByTheirHolder(t *testing.T) {
	settleFinalizers()
	c := testCache()
	const n = 2 << 20
	live := hal.HostBytesLive()
	b, _ := get(t, c, n, false)
	if err := b.Release(); err != nil {
		t.Fatal(err)
	}
	if got := hal.HostBytesLive() - live; got != 0 {
		t.Fatalf("%d bytes still held after the only holder released the buffer", got)
	}
	c.release([]any{viewOf(b)}, nil) // a late give-back of a freed buffer is ignored
	if len(c.free[n]) != 0 {
		t.Fatal("cached a buffer whose memory is gone")
	}
	b2, _ := get(t, c, n, false)
	c.release([]any{viewOf(b2)}, nil)
	if len(c.free[n]) != 1 {
		t.Fatal("a buffer given back is not cached")
	}
	c.close()
	if got := hal.HostBytesLive() - live; got != 0 {
		t.Fatalf("%d bytes still held after the cache was closed", got)
	}
}

// TestDisownLeavesTheBufferToItsHolders: a disowned buffer lives while a
// holder's reference does (a pending command buffer's too); when the last
// goes, its allocation is back in the cache, where the next allocation of
// its size takes it (a caller's next results), and closing the cache
// frees it.
func TestDisownLeavesTheBufferToItsHolders(t *testing.T) {
	settleFinalizers()
	c := testCache()
	const n = 2 << 20
	live := hal.HostBytesLive()
	b, bytes := get(t, c, n, false)
	if err := b.Retain(); err != nil { // a result list's reference
		t.Fatal(err)
	}
	if err := b.Retain(); err != nil { // a command buffer's
		t.Fatal(err)
	}
	in := viewOf(b)
	c.disown([]any{in, in}, nil)
	if b.Released() {
		t.Fatal("disown freed a buffer a holder still holds")
	}
	if c.recyclable(in) {
		t.Fatal("the cache still counts a disowned buffer as its own")
	}
	c.release([]any{in}, nil) // a late give-back by the program is ignored
	b.Release()
	if len(c.free[n]) != 0 || b.Released() {
		t.Fatal("a disowned buffer came back while a command buffer still held it")
	}
	b.Release()
	if len(c.free[n]) != 1 {
		t.Fatal("a disowned buffer did not come back to the cache when its holders released it")
	}
	b2, bytes2 := get(t, c, n, false)
	if &bytes2[0] != &bytes[0] {
		t.Fatal("the next allocation of the size did not take the given-back buffer")
	}
	c.release([]any{viewOf(b2)}, nil)
	c.close()
	if got := hal.HostBytesLive() - live; got != 0 {
		t.Fatalf("%d bytes still held after the cache was closed", got)
	}
}

// TestContextCloseReleasesEverything: closing a context closes the bridge
// (its cached buffers go), drops the globals' buffers and makes later calls
// FAILED_PRECONDITION errors; results already returned stay usable.
func TestContextCloseReleasesEverything(t *testing.T) {
	skipUnderPoison(t)
	settleFinalizers()
	live := hal.HostBytesLive()
	f := newFn("f", nil, []module.Kind{ref})
	a := f.alloc(false)
	tmp := f.alloc(false)
	f.store(a, 42, false)
	f.discard(tmp)
	f.ret(a)
	c := run(t, &module.Module{}, f)
	res := invoke(t, c, "f")
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if element(res[0]) != 42 {
		t.Fatal("a result lost its contents when the context closed")
	}
	if _, err := c.Invoke("m", "f", nil); status.CodeOf(err) != status.FailedPrecondition {
		t.Fatalf("a call after Close: %v, want FAILED_PRECONDITION", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("closing twice: %v", err)
	}
	res[0].Ref.(*hal.BufferView).Buffer.Release()
	if got := hal.HostBytesLive() - live; got != 0 {
		t.Fatalf("%d bytes still held after the context closed and its result was released", got)
	}
	var _ vm.Device = (*Device)(nil)
}

// settleFinalizers lets the finalizers of buffers earlier tests dropped
// run before a test takes its baseline of live host memory, so that their
// frees do not count against it.
func settleFinalizers() {
	for i := 0; i < 3; i++ {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}
