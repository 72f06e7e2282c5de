package allocators

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/hal/drivers/localsync"
	"github.com/gree-ml/gree/go/status"
)

func TestParsePools(t *testing.T) {
	pools, err := ParsePools("device_local=1gib;2gib;8, host_local;transfer=*;*;32,*=4k")
	if err != nil {
		t.Fatal(err)
	}
	want := []PoolConfig{
		{Type: hal.MemoryTypeDeviceLocal, MaxAllocationSize: 1 << 30, MaxCapacity: 2 << 30, MaxFreeCount: 8},
		{Type: hal.MemoryTypeHostLocal, Usage: hal.BufferUsageTransfer, MaxFreeCount: 32},
		{MaxAllocationSize: 4096},
	}
	if len(pools) != len(want) {
		t.Fatalf("%+v", pools)
	}
	for i := range want {
		if pools[i] != want[i] {
			t.Errorf("pool %d: %+v, want %+v", i, pools[i], want[i])
		}
	}
	for spec, msg := range map[string]string{
		"=1;2;3":            "names no heap",
		"device_lokal=1":    "unknown memory type 'device_lokal'",
		"*;transfr=1":       "unknown buffer usage 'transfr'",
		"*=1;2;3;4":         "at most 3",
		"*=big":             "max allocation size 'big'",
		"*=1;2;-3":          "invalid free count '-3'",
		"host_local=1;1x;2": "max capacity '1x'",
	} {
		if _, err := ParsePools(spec); status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: %v, want %q", spec, err, msg)
		}
	}
}

func TestWrapSpecs(t *testing.T) {
	base := hal.NewHeapAllocator()
	if a, err := Wrap(nil, base, "caching"); err != nil || a.(*Caching).pools[0].cfg != (PoolConfig{MaxFreeCount: DefaultFreeCount}) {
		t.Errorf("caching: %v", err)
	}
	if a, err := Wrap(nil, base, "caching:device_local=1mib"); err != nil || a.(*Caching).pools[0].cfg.MaxAllocationSize != 1<<20 {
		t.Errorf("caching with pools: %v", err)
	}
	if _, err := Wrap(nil, base, "debug"); err != nil {
		t.Error(err)
	}
	for spec, msg := range map[string]string{
		"pooling":        "unrecognized allocator 'pooling' in spec 'pooling' (known: caching, debug)",
		"debug:x=1":      "the debug allocator takes no configuration",
		"caching:nope=1": "allocator spec 'caching:nope=1'",
		"":               "unrecognized allocator ''",
	} {
		if _, err := Wrap(nil, base, spec); status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: %v, want %q", spec, err, msg)
		}
	}
}

func TestConfigureDevice(t *testing.T) {
	drv, _ := localsync.Factory.Create()
	dev, err := drv.CreateDeviceByPath("", nil)
	if err != nil {
		t.Fatal(err)
	}
	own := dev.Allocator()
	if err := Configure(dev, []string{"bogus"}); err == nil || dev.Allocator() != own {
		t.Fatalf("a bad spec: %v; the allocator changed", err)
	}
	if err := Configure(dev, []string{"debug", "caching"}); err != nil {
		t.Fatal(err)
	}
	c, ok := dev.Allocator().(*Caching)
	if !ok {
		t.Fatalf("device allocator %T, want the caching one (the last spec wraps the others)", dev.Allocator())
	}
	if _, ok := c.base.(*Debug); !ok {
		t.Fatalf("caching wraps %T, want the debug allocator", c.base)
	}
	// Pooled memory goes back to the device's own allocator when the
	// device closes.
	b, err := dev.Allocator().Allocate(devParams, 5000)
	if err != nil {
		t.Fatal(err)
	}
	b.Release()
	if c.CacheStatistics().FreeCount != 1 {
		t.Fatal("not pooled")
	}
	dev.Close()
	if s := own.Statistics(); s.DeviceBytesAllocated != s.DeviceBytesFreed || s.DeviceBytesAllocated == 0 {
		t.Errorf("the device's allocator after close: %+v", s)
	}
}
