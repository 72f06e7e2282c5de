package spirv_test

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"

	schema "github.com/gree-ml/gree/go/schemas/spirv"
)

// A minimal Vulkan compute runner for the differential tests: it loads
// libvulkan.so.1 at run time (purego, no headers), takes the first
// physical device (lavapipe where no GPU is present), enables every
// feature it has and runs one dispatch of a module on host-visible
// buffers. The structs mirror vulkan_core.h on 64-bit Linux.

// vkAPI is the commands the runner calls.
type vkAPI struct {
	CreateInstance                         func(info *vkInstanceCreateInfo, alloc unsafe.Pointer, inst *uintptr) int32
	EnumeratePhysicalDevices               func(inst uintptr, n *uint32, pds *uintptr) int32
	GetPhysicalDeviceFeatures2             func(pd uintptr, f *vkFeatures)
	GetPhysicalDeviceQueueFamilyProperties func(pd uintptr, n *uint32, props *vkQueueFamily)
	GetPhysicalDeviceMemoryProperties      func(pd uintptr, props *vkMemoryProperties)
	CreateDevice                           func(pd uintptr, info *vkDeviceCreateInfo, alloc unsafe.Pointer, dev *uintptr) int32
	GetDeviceQueue                         func(dev uintptr, family, index uint32, q *uintptr)
	CreateBuffer                           func(dev uintptr, info *vkBufferCreateInfo, alloc unsafe.Pointer, b *uint64) int32
	DestroyBuffer                          func(dev uintptr, b uint64, alloc unsafe.Pointer)
	GetBufferMemoryRequirements            func(dev uintptr, b uint64, req *vkMemoryRequirements)
	AllocateMemory                         func(dev uintptr, info *vkMemoryAllocateInfo, alloc unsafe.Pointer, m *uint64) int32
	FreeMemory                             func(dev uintptr, m uint64, alloc unsafe.Pointer)
	BindBufferMemory                       func(dev uintptr, b, m, off uint64) int32
	MapMemory                              func(dev uintptr, m, off, size uint64, flags uint32, p *unsafe.Pointer) int32
	UnmapMemory                            func(dev uintptr, m uint64)
	CreateShaderModule                     func(dev uintptr, info *vkShaderModuleCreateInfo, alloc unsafe.Pointer, m *uint64) int32
	DestroyShaderModule                    func(dev uintptr, m uint64, alloc unsafe.Pointer)
	CreateDescriptorSetLayout              func(dev uintptr, info *vkSetLayoutCreateInfo, alloc unsafe.Pointer, l *uint64) int32
	DestroyDescriptorSetLayout             func(dev uintptr, l uint64, alloc unsafe.Pointer)
	CreatePipelineLayout                   func(dev uintptr, info *vkPipelineLayoutCreateInfo, alloc unsafe.Pointer, l *uint64) int32
	DestroyPipelineLayout                  func(dev uintptr, l uint64, alloc unsafe.Pointer)
	CreateComputePipelines                 func(dev uintptr, cache uint64, n uint32, info *vkComputePipelineCreateInfo, alloc unsafe.Pointer, p *uint64) int32
	DestroyPipeline                        func(dev uintptr, p uint64, alloc unsafe.Pointer)
	CreateDescriptorPool                   func(dev uintptr, info *vkPoolCreateInfo, alloc unsafe.Pointer, p *uint64) int32
	DestroyDescriptorPool                  func(dev uintptr, p uint64, alloc unsafe.Pointer)
	AllocateDescriptorSets                 func(dev uintptr, info *vkSetAllocateInfo, sets *uint64) int32
	UpdateDescriptorSets                   func(dev uintptr, n uint32, writes *vkWriteSet, copies uint32, c unsafe.Pointer)
	CreateCommandPool                      func(dev uintptr, info *vkCommandPoolCreateInfo, alloc unsafe.Pointer, p *uint64) int32
	DestroyCommandPool                     func(dev uintptr, p uint64, alloc unsafe.Pointer)
	AllocateCommandBuffers                 func(dev uintptr, info *vkCommandBufferAllocateInfo, cbs *uintptr) int32
	BeginCommandBuffer                     func(cb uintptr, info *vkBeginInfo) int32
	EndCommandBuffer                       func(cb uintptr) int32
	CmdBindPipeline                        func(cb uintptr, point uint32, p uint64)
	CmdBindDescriptorSets                  func(cb uintptr, point uint32, layout uint64, first, n uint32, sets *uint64, dyn uint32, offs unsafe.Pointer)
	CmdPushConstants                       func(cb uintptr, layout uint64, stages, off, size uint32, data unsafe.Pointer)
	CmdDispatch                            func(cb uintptr, x, y, z uint32)
	QueueSubmit                            func(q uintptr, n uint32, info *vkSubmitInfo, fence uint64) int32
	QueueWaitIdle                          func(q uintptr) int32
}

// vkRunner is one device.
type vkRunner struct {
	api    vkAPI
	dev    uintptr
	queue  uintptr
	family uint32
	mem    vkMemoryProperties
	mu     sync.Mutex
}

var (
	vkOnce sync.Once
	vkDev  *vkRunner
	vkErr  error
)

// vulkan returns the shared runner, or why there is none.
func vulkan() (*vkRunner, error) {
	vkOnce.Do(func() { vkDev, vkErr = newVulkan() })
	return vkDev, vkErr
}

func cstr(s string) *byte { b := append([]byte(s), 0); return &b[0] }

func newVulkan() (*vkRunner, error) {
	lib, err := purego.Dlopen("libvulkan.so.1", purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return nil, fmt.Errorf("libvulkan.so.1: %v", err)
	}
	gipaSym, err := purego.Dlsym(lib, "vkGetInstanceProcAddr")
	if err != nil {
		return nil, err
	}
	var gipa func(inst uintptr, name string) uintptr
	purego.RegisterFunc(&gipa, gipaSym)
	r := &vkRunner{}
	var pin runtime.Pinner
	defer pin.Unpin()
	bind := func(inst uintptr) error {
		v := reflectFields(&r.api)
		for name, fp := range v {
			if (inst == 0) != (name == "CreateInstance") {
				continue
			}
			p := gipa(inst, "vk"+name)
			if p == 0 {
				return fmt.Errorf("vk%s is missing", name)
			}
			purego.RegisterFunc(fp, p)
		}
		return nil
	}
	if err := bind(0); err != nil {
		return nil, err
	}
	app := &vkApplicationInfo{vkBase: vkBase{sType: 0}, apiVersion: 1<<22 | 3<<12}
	pin.Pin(app)
	var inst uintptr
	if res := r.api.CreateInstance(&vkInstanceCreateInfo{vkBase: vkBase{sType: 1}, app: app}, nil, &inst); res != 0 {
		return nil, fmt.Errorf("vkCreateInstance: %d", res)
	}
	if err := bind(inst); err != nil {
		return nil, err
	}
	var n uint32
	r.api.EnumeratePhysicalDevices(inst, &n, nil)
	if n == 0 {
		return nil, fmt.Errorf("no Vulkan device")
	}
	pds := make([]uintptr, n)
	r.api.EnumeratePhysicalDevices(inst, &n, &pds[0])
	pd := pds[0]
	f13 := &vkFeatures{vkBase: vkBase{sType: 53}}
	f12 := &vkFeatures{vkBase: vkBase{sType: 51, pNext: unsafe.Pointer(f13)}}
	f11 := &vkFeatures{vkBase: vkBase{sType: 49, pNext: unsafe.Pointer(f12)}}
	f2 := &vkFeatures{vkBase: vkBase{sType: 1000059000, pNext: unsafe.Pointer(f11)}}
	for _, f := range []*vkFeatures{f11, f12, f13} {
		pin.Pin(f)
	}
	r.api.GetPhysicalDeviceFeatures2(pd, f2)
	f2.bools[0] = 0 // robustBufferAccess off: the module's own checks are under test
	r.api.GetPhysicalDeviceQueueFamilyProperties(pd, &n, nil)
	fams := make([]vkQueueFamily, n)
	r.api.GetPhysicalDeviceQueueFamilyProperties(pd, &n, &fams[0])
	r.family = ^uint32(0)
	for i, fam := range fams {
		if fam.flags&2 != 0 { // VK_QUEUE_COMPUTE_BIT
			r.family = uint32(i)
			break
		}
	}
	if r.family == ^uint32(0) {
		return nil, fmt.Errorf("no compute queue")
	}
	prio := float32(1)
	q := &vkQueueCreateInfo{vkBase: vkBase{sType: 2}, family: r.family, count: 1, priorities: &prio}
	pin.Pin(q)
	pin.Pin(&prio)
	pin.Pin(f2)
	dci := &vkDeviceCreateInfo{vkBase: vkBase{sType: 3, pNext: unsafe.Pointer(f2)}, queueCount: 1, queues: q}
	if res := r.api.CreateDevice(pd, dci, nil, &r.dev); res != 0 {
		return nil, fmt.Errorf("vkCreateDevice: %d", res)
	}
	r.api.GetDeviceQueue(r.dev, r.family, 0, &r.queue)
	r.api.GetPhysicalDeviceMemoryProperties(pd, &r.mem)
	return r, nil
}

// buffer is one host-visible storage buffer.
type vkBuffer struct {
	buf, mem uint64
	size     uint64
	ptr      unsafe.Pointer
}

func (r *vkRunner) newBuffer(data []byte, size int) (*vkBuffer, error) {
	b := &vkBuffer{size: uint64(max(size, 4))}
	info := &vkBufferCreateInfo{vkBase: vkBase{sType: 12}, size: b.size, usage: 0x20} // STORAGE_BUFFER
	if res := r.api.CreateBuffer(r.dev, info, nil, &b.buf); res != 0 {
		return nil, fmt.Errorf("vkCreateBuffer: %d", res)
	}
	var req vkMemoryRequirements
	r.api.GetBufferMemoryRequirements(r.dev, b.buf, &req)
	idx := -1
	for i := 0; i < int(r.mem.typeCount); i++ {
		if req.typeBits&(1<<i) != 0 && r.mem.types[i][0]&6 == 6 { // HOST_VISIBLE | HOST_COHERENT
			idx = i
			break
		}
	}
	if idx < 0 {
		return nil, fmt.Errorf("no host-visible memory")
	}
	if res := r.api.AllocateMemory(r.dev, &vkMemoryAllocateInfo{vkBase: vkBase{sType: 5}, size: req.size, typeIndex: uint32(idx)}, nil, &b.mem); res != 0 {
		return nil, fmt.Errorf("vkAllocateMemory: %d", res)
	}
	r.api.BindBufferMemory(r.dev, b.buf, b.mem, 0)
	if res := r.api.MapMemory(r.dev, b.mem, 0, ^uint64(0), 0, &b.ptr); res != 0 {
		return nil, fmt.Errorf("vkMapMemory: %d", res)
	}
	host := unsafe.Slice((*byte)(b.ptr), b.size)
	clear(host)
	copy(host, data)
	return b, nil
}

func (r *vkRunner) freeBuffer(b *vkBuffer) {
	r.api.UnmapMemory(r.dev, b.mem)
	r.api.DestroyBuffer(r.dev, b.buf, nil)
	r.api.FreeMemory(r.dev, b.mem, nil)
}

// run dispatches e's module over grid with push constants pcs on
// bindings (updated in place) and returns the status buffer's code (0
// without checks).
func (r *vkRunner) run(e schema.Entry, grid [3]int64, pcs []int64, bindings [][]byte) (int64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var pin runtime.Pinner
	defer pin.Unpin()
	n := len(bindings)
	if e.Reports() {
		n++
	}
	bufs := make([]*vkBuffer, n)
	for i := range bufs {
		var data []byte
		size := schema.StatusBytes
		if i < len(bindings) {
			data, size = bindings[i], len(bindings[i])
		}
		b, err := r.newBuffer(data, size)
		if err != nil {
			return 0, err
		}
		defer r.freeBuffer(b)
		bufs[i] = b
	}
	code := e.SPIRV
	pin.Pin(&code[0])
	var module uint64
	if res := r.api.CreateShaderModule(r.dev, &vkShaderModuleCreateInfo{vkBase: vkBase{sType: 16}, codeSize: uint64(len(code)), code: &code[0]}, nil, &module); res != 0 {
		return 0, fmt.Errorf("vkCreateShaderModule: %d", res)
	}
	defer r.api.DestroyShaderModule(r.dev, module, nil)
	lb := make([]vkSetLayoutBinding, n)
	for i := range lb {
		lb[i] = vkSetLayoutBinding{binding: uint32(i), typ: 7, count: 1, stages: 0x20} // STORAGE_BUFFER, COMPUTE
	}
	pin.Pin(&lb[0])
	var setLayout uint64
	if res := r.api.CreateDescriptorSetLayout(r.dev, &vkSetLayoutCreateInfo{vkBase: vkBase{sType: 32}, count: uint32(n), bindings: &lb[0]}, nil, &setLayout); res != 0 {
		return 0, fmt.Errorf("vkCreateDescriptorSetLayout: %d", res)
	}
	defer r.api.DestroyDescriptorSetLayout(r.dev, setLayout, nil)
	pin.Pin(&setLayout)
	plci := &vkPipelineLayoutCreateInfo{vkBase: vkBase{sType: 30}, setCount: 1, sets: &setLayout}
	pr := &vkPushRange{stages: 0x20, size: uint32(8 * len(pcs))}
	pin.Pin(pr)
	if len(pcs) > 0 {
		plci.rangeCount, plci.ranges = 1, pr
	}
	var layout uint64
	if res := r.api.CreatePipelineLayout(r.dev, plci, nil, &layout); res != 0 {
		return 0, fmt.Errorf("vkCreatePipelineLayout: %d", res)
	}
	defer r.api.DestroyPipelineLayout(r.dev, layout, nil)
	name := cstr("main")
	pin.Pin(name)
	cpci := &vkComputePipelineCreateInfo{vkBase: vkBase{sType: 29},
		stage: vkStageCreateInfo{vkBase: vkBase{sType: 18}, stage: 0x20, module: module, name: name}, layout: layout, baseIndex: -1}
	var pipe uint64
	if res := r.api.CreateComputePipelines(r.dev, 0, 1, cpci, nil, &pipe); res != 0 {
		return 0, fmt.Errorf("vkCreateComputePipelines: %d", res)
	}
	defer r.api.DestroyPipeline(r.dev, pipe, nil)
	ps := &vkPoolSize{typ: 7, count: uint32(n)}
	pin.Pin(ps)
	var pool uint64
	if res := r.api.CreateDescriptorPool(r.dev, &vkPoolCreateInfo{vkBase: vkBase{sType: 33}, maxSets: 1, sizeCount: 1, sizes: ps}, nil, &pool); res != 0 {
		return 0, fmt.Errorf("vkCreateDescriptorPool: %d", res)
	}
	defer r.api.DestroyDescriptorPool(r.dev, pool, nil)
	var set uint64
	if res := r.api.AllocateDescriptorSets(r.dev, &vkSetAllocateInfo{vkBase: vkBase{sType: 34}, pool: pool, count: 1, layouts: &setLayout}, &set); res != 0 {
		return 0, fmt.Errorf("vkAllocateDescriptorSets: %d", res)
	}
	infos := make([]vkBufferInfo, n)
	writes := make([]vkWriteSet, n)
	pin.Pin(&infos[0])
	for i, b := range bufs {
		rng := b.size
		if i < len(bindings) {
			rng = uint64(len(bindings[i]))
		}
		infos[i] = vkBufferInfo{buffer: b.buf, rng: rng}
		writes[i] = vkWriteSet{vkBase: vkBase{sType: 35}, set: set, binding: uint32(i), count: 1, typ: 7, buffers: &infos[i]}
	}
	r.api.UpdateDescriptorSets(r.dev, uint32(n), &writes[0], 0, nil)
	var cpool uint64
	if res := r.api.CreateCommandPool(r.dev, &vkCommandPoolCreateInfo{vkBase: vkBase{sType: 39}, family: r.family}, nil, &cpool); res != 0 {
		return 0, fmt.Errorf("vkCreateCommandPool: %d", res)
	}
	defer r.api.DestroyCommandPool(r.dev, cpool, nil)
	var cb uintptr
	r.api.AllocateCommandBuffers(r.dev, &vkCommandBufferAllocateInfo{vkBase: vkBase{sType: 40}, pool: cpool, count: 1}, &cb)
	r.api.BeginCommandBuffer(cb, &vkBeginInfo{vkBase: vkBase{sType: 42}, flags: 1})
	r.api.CmdBindPipeline(cb, 1, pipe) // COMPUTE
	r.api.CmdBindDescriptorSets(cb, 1, layout, 0, 1, &set, 0, nil)
	if len(pcs) > 0 {
		pc := append([]int64(nil), pcs...)
		pin.Pin(&pc[0])
		r.api.CmdPushConstants(cb, layout, 0x20, 0, uint32(8*len(pc)), unsafe.Pointer(&pc[0]))
	}
	r.api.CmdDispatch(cb, uint32(grid[0]), uint32(grid[1]), uint32(grid[2]))
	r.api.EndCommandBuffer(cb)
	pin.Pin(&cb)
	if res := r.api.QueueSubmit(r.queue, 1, &vkSubmitInfo{vkBase: vkBase{sType: 4}, cmdCount: 1, cmds: &cb}, 0); res != 0 {
		return 0, fmt.Errorf("vkQueueSubmit: %d", res)
	}
	if res := r.api.QueueWaitIdle(r.queue); res != 0 {
		return 0, fmt.Errorf("vkQueueWaitIdle: %d", res)
	}
	for i := range bindings {
		copy(bindings[i], unsafe.Slice((*byte)(bufs[i].ptr), len(bindings[i])))
	}
	if e.Reports() {
		return int64(binary.LittleEndian.Uint64(unsafe.Slice((*byte)(bufs[n-1].ptr), 8))), nil
	}
	return 0, nil
}
