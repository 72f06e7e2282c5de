package vulkan

import (
	"bytes"
	_ "embed"
	"encoding/binary"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/hal/cts"
	"github.com/gree-ml/gree/go/schemas/spirv"
	"github.com/gree-ml/gree/go/status"
)

// axpbModule is testdata/axpb.spvasm assembled (TestAxpbAssembles).
//
//go:embed testdata/axpb.spv
var axpbModule []byte

// axpb returns an executable of the axpb test kernel: out[i] = in[i]*a+b
// with a, b its push constants.
func axpb() []byte {
	return encode(spirv.Entry{Name: "axpb", WorkgroupSize: [3]int{64, 1, 1}, NumPushConstants: 2,
		Bindings: []spirv.Access{spirv.Read, spirv.Write}, Capabilities: []string{"Shader"}, SPIRV: axpbModule})
}

func encode(entries ...spirv.Entry) []byte {
	data, err := spirv.Encode(&spirv.Executable{Target: "test", Entries: entries})
	if err != nil {
		panic(err)
	}
	return data
}

// scaleEntry is the conformance suite's SPIR-V scale kernel's entry.
func scaleEntry(t *testing.T) spirv.Entry {
	x, err := spirv.Decode(cts.ScaleSPIRV())
	if err != nil {
		t.Fatal(err)
	}
	return x.Entries[0]
}

func TestAxpbAssembles(t *testing.T) {
	as, err := exec.LookPath("spirv-as")
	if err != nil {
		t.Skip("spirv-as is not installed (apt-get install spirv-tools)")
	}
	out := filepath.Join(t.TempDir(), "axpb.spv")
	if msg, err := exec.Command(as, "--target-env", "vulkan1.1", "testdata/axpb.spvasm", "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("spirv-as: %v\n%s", err, msg)
	}
	got, _ := os.ReadFile(out)
	if !bytes.Equal(got, axpbModule) {
		t.Error("testdata/axpb.spv is not testdata/axpb.spvasm assembled")
	}
}

// testDevice creates the first device with the named features left off,
// or skips where there is no Vulkan device.
func testDevice(t *testing.T, disabled ...string) *device {
	t.Helper()
	opts := currentOptions()
	opts.disabled = map[string]bool{}
	for _, f := range disabled {
		opts.disabled[f] = true
	}
	d := realDriver(t, opts)
	devices, _ := d.QueryAvailableDevices()
	if len(devices) == 0 {
		t.Skip("no Vulkan devices")
	}
	dev, err := d.CreateDevice(devices[0].ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	return dev.(*device)
}

func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func wantError(t *testing.T, what string, err error, code status.Code, parts ...string) {
	t.Helper()
	if status.CodeOf(err) != code {
		t.Errorf("%s: %v, want %s", what, err, code)
		return
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %q lacks %q", what, err, p)
		}
	}
}

func buffer(t *testing.T, dev hal.Device, typ hal.MemoryType, n int64) *hal.Buffer {
	t.Helper()
	b, err := dev.Allocator().Allocate(hal.BufferParams{Type: typ, Usage: hal.BufferUsageDefault}, n)
	must(t, "allocate", err)
	t.Cleanup(func() {
		if !b.Released() {
			b.Release()
		}
	})
	return b
}

// run records with rec into a one-shot command buffer, executes it with
// table and waits.
func run(t *testing.T, dev hal.Device, table []hal.BufferRef, rec func(cb *hal.CommandBuffer) error) error {
	t.Helper()
	cb, err := hal.NewCommandBuffer(hal.CommandBufferOneShot, hal.CommandCategoryAny, len(table))
	must(t, "command buffer", err)
	defer cb.Release()
	must(t, "begin", cb.Begin())
	if err := rec(cb); err != nil {
		return err
	}
	must(t, "end", cb.End())
	s, err := dev.CreateSemaphore(0)
	must(t, "semaphore", err)
	if err := dev.QueueExecute(nil, hal.SemaphoreList{{Semaphore: s, Value: 1}}, cb, table); err != nil {
		return err
	}
	return s.Wait(1, time.Now().Add(30*time.Second))
}

func read(t *testing.T, dev hal.Device, b *hal.Buffer) []byte {
	t.Helper()
	data, err := hal.ReadBuffer(dev, b, 0, b.ByteLength())
	must(t, "read", err)
	return data
}

func TestRealFeaturesAndLimits(t *testing.T) {
	dev := testDevice(t)
	t.Logf("%s: features %s", dev.describe(), dev.features)
	l := dev.limits
	t.Logf("limits %+v", l)
	if l.maxPushConstantsSize < 128 || l.maxStorageBufferRange < 1<<27 || l.minStorageBufferOffsetAlignment == 0 ||
		l.maxComputeWorkGroupCount[0] < 65535 || l.maxComputeWorkGroupInvocations < 128 || l.subgroupSize == 0 {
		t.Errorf("limits below Vulkan's minimums: %+v", l)
	}
	if !dev.features.timelineSemaphore {
		t.Log("no timeline semaphores: host semaphores")
	}
	off := testDevice(t, "shaderInt64", "timelineSemaphore", "pushDescriptor")
	if off.features.shaderInt64 || off.features.timelineSemaphore || off.features.pushDescriptor {
		t.Errorf("disabled features are enabled: %s", off.features)
	}
	if _, ok := mustSemaphore(t, off).(*hal.HostSemaphore); !ok {
		t.Error("a device without timeline semaphores made a native semaphore")
	}
}

func mustSemaphore(t *testing.T, dev hal.Device) hal.Semaphore {
	s, err := dev.CreateSemaphore(0)
	must(t, "semaphore", err)
	return s
}

// TestConformanceFallbacks runs the conformance suite with host semaphores
// and descriptor pools instead of timelines and push descriptors.
func TestConformanceFallbacks(t *testing.T) {
	opts := currentOptions()
	opts.disabled = map[string]bool{"timelineSemaphore": true, "pushDescriptor": true, "externalMemoryHost": true}
	cts.Run(t, hal.Factory{Name: Name, FullName: Factory.FullName, Create: func() (hal.Driver, error) {
		d, err := create(libvulkan, opts)
		if err != nil {
			return nil, err
		}
		return d, nil
	}})
}

// TestConformanceValidated runs the conformance suite with the validation
// layer on (where installed): a validation error fails the operation it
// happened in.
func TestConformanceValidated(t *testing.T) {
	opts := currentOptions()
	opts.validationLayers = true
	opts.debugVerbosity = 1
	d := realDriver(t, opts)
	if len(d.layers) == 0 {
		t.Skipf("%s is not installed", validationLayer)
	}
	d.Close()
	cts.Run(t, hal.Factory{Name: Name, FullName: Factory.FullName, Create: func() (hal.Driver, error) {
		d, err := create(libvulkan, opts)
		if err != nil {
			return nil, err
		}
		return d, nil
	}})
}

func TestRealValidationErrorsSurface(t *testing.T) {
	if os.Getenv("GREE_VULKAN_VALIDATION_CHILD") == "1" {
		t.Skip("TestNoValidationErrors's child must report no validation error")
	}
	opts := currentOptions()
	opts.validationLayers = true
	var logged []string
	saved := debugLog
	debugLog = func(msg string) { logged = append(logged, msg) }
	defer func() { debugLog = saved }()
	d := realDriver(t, opts)
	if len(d.layers) == 0 || d.messenger == 0 {
		t.Skipf("%s is not installed", validationLayer)
	}
	devices, _ := d.QueryAvailableDevices()
	if len(devices) == 0 {
		t.Skip("no Vulkan devices")
	}
	hd, err := d.CreateDevice(devices[0].ID, nil)
	must(t, "device", err)
	defer hd.Close()
	dev := hd.(*device)
	mark := d.validationMark()
	// A buffer of 0 bytes breaks VUID-VkBufferCreateInfo-size-00912.
	info := &bufferCreateInfo{sType: sTypeBufferCreateInfo, size: 0, usage: bufferUsageStorageBuffer}
	var b uint64
	if dev.vk.CreateBuffer(dev.handle, info, nil, &b) == vkSuccess && b != 0 {
		dev.vk.DestroyBuffer(dev.handle, b, nil)
	}
	err = d.validationSince(mark)
	wantError(t, "a misuse of Vulkan", err, status.Internal, "VUID-VkBufferCreateInfo-size")
	if len(logged) == 0 || !strings.Contains(logged[0], "[error]") {
		t.Errorf("the error was not printed: %q", logged)
	}
}

func TestChooseMemoryType(t *testing.T) {
	// A discrete GPU: device-local, host staging, a ReBAR window.
	var discrete physicalDeviceMemoryProperties
	discrete.memoryTypeCount = 4
	discrete.memoryTypes[0] = memoryType{propertyFlags: memoryPropertyDeviceLocal}
	discrete.memoryTypes[1] = memoryType{propertyFlags: memoryPropertyHostVisible | memoryPropertyHostCoherent}
	discrete.memoryTypes[2] = memoryType{propertyFlags: memoryPropertyHostVisible | memoryPropertyHostCoherent | memoryPropertyHostCached}
	discrete.memoryTypes[3] = memoryType{propertyFlags: memoryPropertyDeviceLocal | memoryPropertyHostVisible | memoryPropertyHostCoherent}
	for _, c := range []struct {
		bits         uint32
		host, device bool
		want         uint32
		ok           bool
	}{
		{0xf, false, true, 0, true},  // device-only: not host-visible
		{0xf, true, false, 2, true},  // staging: host memory, cached
		{0xf, true, true, 3, true},   // mappable device memory: ReBAR
		{0x6, true, true, 2, true},   // no ReBAR allowed: host memory
		{0x1, true, false, 0, false}, // only device memory allowed
		{0x8, false, true, 3, true},
	} {
		got, ok := chooseMemoryType(&discrete, c.bits, c.host, c.device)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("bits %#x host %v device %v: %d %v, want %d %v", c.bits, c.host, c.device, got, ok, c.want, c.ok)
		}
	}
	var lazy physicalDeviceMemoryProperties
	lazy.memoryTypeCount = 2
	lazy.memoryTypes[0] = memoryType{propertyFlags: memoryPropertyDeviceLocal | memoryPropertyLazilyAllocated}
	lazy.memoryTypes[1] = memoryType{propertyFlags: memoryPropertyDeviceLocal | memoryPropertyProtected}
	if _, ok := chooseMemoryType(&lazy, 3, false, true); ok {
		t.Error("chose lazily allocated or protected memory")
	}
}

// TestRealMemoryMapping checks the mapping rules: device memory the host
// sees (lavapipe) is mappable, and with the device treated as a discrete
// GPU's (its device memory not host-visible) device-local buffers are
// not, and go through staging.
func TestRealMemoryMapping(t *testing.T) {
	for _, discrete := range []bool{false, true} {
		var dev *device
		if discrete {
			dev = testDevice(t, "hostVisibleDeviceMemory")
		} else {
			dev = testDevice(t)
		}
		a := dev.Allocator()
		compat, params := a.QueryCompatibility(hal.BufferParams{Type: hal.MemoryTypeDeviceLocal, Usage: hal.BufferUsageDefault}, 64)
		if compat&hal.BufferCompatibilityQueueDispatch == 0 || compat&hal.BufferCompatibilityAllocatable == 0 {
			t.Errorf("discrete %v: compatibility %s", discrete, compat)
		}
		mappable := dev.alloc.deviceLocalMappable()
		if discrete && mappable {
			t.Fatal("the discrete mode maps device memory")
		}
		if got := params.Type&hal.MemoryTypeHostVisible != 0; got != mappable {
			t.Errorf("discrete %v: device-local params %s (mappable %v)", discrete, params.Type, mappable)
		}
		b := buffer(t, dev, hal.MemoryTypeDeviceLocal, 100)
		m, err := b.Map(0, 100, hal.MemoryAccessRead)
		if mappable {
			must(t, "map mappable device memory", err)
			if len(m) != 100 || b.HostBytes() == nil {
				t.Error("mapping gave no bytes")
			}
		} else {
			wantError(t, "map device-local memory on a discrete GPU", err, status.PermissionDenied)
			if b.HostBytes() != nil {
				t.Error("Storage.Bytes of device memory is not nil")
			}
		}
		// Staging through the queue, and zeroing on the device.
		if got := read(t, dev, b); !bytes.Equal(got, make([]byte, 100)) {
			t.Errorf("discrete %v: new memory is not zeroed", discrete)
		}
		data := bytes.Repeat([]byte("gree"), 25)
		must(t, "write", hal.WriteBuffer(nil, b, 0, data))
		if got := read(t, dev, b); !bytes.Equal(got, data) {
			t.Errorf("discrete %v: write then read: %q", discrete, got)
		}
		h := buffer(t, dev, hal.MemoryTypeHostLocal|hal.MemoryTypeDeviceVisible, 16)
		if _, err := h.Map(0, 16, hal.MemoryAccessWrite); err != nil {
			t.Errorf("discrete %v: host-local memory is not mappable: %v", discrete, err)
		}
		// MAPPING usage on a device-local request makes it host-visible.
		mb, err := a.Allocate(hal.BufferParams{Type: hal.MemoryTypeDeviceLocal, Usage: hal.BufferUsageDefault | hal.BufferUsageMapping}, 8)
		must(t, "allocate mappable", err)
		if _, err := mb.Map(0, 8, hal.MemoryAccessRead); err != nil {
			t.Errorf("discrete %v: a buffer allocated with MAPPING usage cannot be mapped: %v", discrete, err)
		}
		mb.Release()
		// MAPPING_OPTIONAL is dropped where device memory is not host-visible.
		_, p := a.QueryCompatibility(hal.BufferParams{Type: hal.MemoryTypeDeviceLocal, Usage: hal.BufferUsageDefault | hal.BufferUsageMapping | hal.BufferUsageMappingOptional}, 8)
		if discrete && p.Usage&hal.BufferUsageMappingScoped != 0 {
			t.Errorf("MAPPING_OPTIONAL kept on a discrete GPU: %s %s", p.Type, p.Usage)
		}
		before := a.Statistics()
		must(t, "release", b.Release())
		if after := a.Statistics(); after.DeviceBytesFreed != before.DeviceBytesFreed+100 {
			t.Errorf("release did not free at once: %+v then %+v", before, after)
		}
	}
}

// TestRealFillsAndUpdates runs fills and updates at every alignment, with
// every pattern size, large updates, and copies, against a host model.
func TestRealFillsAndUpdates(t *testing.T) {
	for _, discrete := range []bool{false, true} {
		var dev *device
		if discrete {
			dev = testDevice(t, "hostVisibleDeviceMemory")
		} else {
			dev = testDevice(t)
		}
		const n = 150_037
		b := buffer(t, dev, hal.MemoryTypeDeviceLocal, n)
		c := buffer(t, dev, hal.MemoryTypeDeviceLocal, n)
		model := make([]byte, n)
		rng := rand.New(rand.NewSource(7))
		err := run(t, dev, nil, func(cb *hal.CommandBuffer) error {
			for i := 0; i < 40; i++ {
				p := []int{1, 2, 4}[i%3]
				off := int64(rng.Intn(64)) / int64(p) * int64(p)
				ln := int64(rng.Intn(40)) / int64(p) * int64(p)
				if i == 39 {
					off, ln = n-13, 13 // to the unaligned end
					p = 1
				}
				pattern := make([]byte, p)
				rng.Read(pattern)
				must(t, "fill", cb.Fill(hal.BufferRef{Buffer: b, Offset: off, Length: ln}, pattern))
				for j := int64(0); j < ln; j++ {
					model[off+j] = pattern[j%int64(p)]
				}
				data := make([]byte, rng.Intn(11))
				rng.Read(data)
				uoff := int64(100 + rng.Intn(60))
				must(t, "update", cb.Update(data, hal.BufferRef{Buffer: b, Offset: uoff}))
				copy(model[uoff:], data)
			}
			// Large updates: aligned past vkCmdUpdateBuffer's 65536 bytes,
			// and unaligned.
			big := make([]byte, 70000)
			rng.Read(big)
			must(t, "large update", cb.Update(big, hal.BufferRef{Buffer: b, Offset: 1000}))
			copy(model[1000:], big)
			must(t, "large unaligned update", cb.Update(big[:65536], hal.BufferRef{Buffer: b, Offset: 80003}))
			copy(model[80003:], big[:65536])
			must(t, "copy", cb.Copy(hal.BufferRef{Buffer: b, Offset: 3, Length: n - 3}, hal.BufferRef{Buffer: c, Offset: 0, Length: n - 3}))
			return nil
		})
		must(t, "execute", err)
		if got := read(t, dev, b); !bytes.Equal(got, model) {
			t.Errorf("discrete %v: fills and updates differ from the model at byte %d", discrete, firstDiff(got, model))
		}
		wantC := append(append([]byte(nil), model[3:]...), 0, 0, 0)
		if got := read(t, dev, c); !bytes.Equal(got, wantC) {
			t.Errorf("discrete %v: an unaligned copy differs at byte %d", discrete, firstDiff(got, wantC))
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func words(v ...uint32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], x)
	}
	return out
}
