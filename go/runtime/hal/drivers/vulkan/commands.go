package vulkan

import (
	"unsafe"

	"github.com/gree-ml/gree/go/runtime/hal"
)

// barrier kinds.
var (
	// Between commands: every compute and transfer write before is
	// visible to every compute and transfer access after.
	fullBarrier = memoryBarrier{sType: sTypeMemoryBarrier,
		srcAccessMask: accessShaderWrite | accessTransferWrite,
		dstAccessMask: accessShaderRead | accessShaderWrite | accessTransferRead | accessTransferWrite}
	// At the end: the writes are visible to the host after the fence.
	hostBarrier = memoryBarrier{sType: sTypeMemoryBarrier,
		srcAccessMask: accessShaderWrite | accessTransferWrite,
		dstAccessMask: accessHostRead}
)

// record translates the submission into a VkCommandBuffer (d.mu held):
// the zero fills of new allocations, a barrier (which also orders the
// commands after earlier submissions), then each command with a full
// barrier between commands, and a barrier making the results visible to
// the host. A submission without commands records nothing.
func (s *submission) record() (err error) {
	d := s.d
	s.zero = d.alloc.takePendingZero()
	if len(s.ops) == 0 && len(s.zero) == 0 {
		return nil
	}
	defer func() {
		if err != nil {
			s.unrecord()
		}
	}()
	info := &commandBufferAllocateInfo{sType: sTypeCommandBufferAllocateInfo, commandPool: d.commandPool, commandBufferCount: 1}
	if err := check(d.vk.AllocateCommandBuffers(d.handle, info, &s.vkcb), "vkAllocateCommandBuffers"); err != nil {
		return err
	}
	cb := s.vkcb
	begin := &commandBufferBeginInfo{sType: sTypeCommandBufferBeginInfo, flags: 0x1 /* ONE_TIME_SUBMIT */}
	if err := check(d.vk.BeginCommandBuffer(cb, begin), "vkBeginCommandBuffer"); err != nil {
		return err
	}
	s.beginTimestamps(cb)
	for _, st := range s.zero {
		d.vk.CmdFillBuffer(cb, st.buffer, 0, wholeSize, 0)
	}
	if err := s.descriptorPool(); err != nil {
		return err
	}
	barrier := fullBarrier
	const stages = stageCompute | stageTransfer
	d.vk.CmdPipelineBarrier(cb, stages, stages, 0, 1, &barrier, 0, nil, 0, nil)
	for i := range s.ops {
		if i > 0 {
			d.vk.CmdPipelineBarrier(cb, stages, stages, 0, 1, &barrier, 0, nil, 0, nil)
		}
		s.stamp(cb, stageTopOfPipe, 2*i)
		if err := s.emit(cb, &s.ops[i]); err != nil {
			return err
		}
		s.stamp(cb, stageBottomOfPipe, 2*i+1)
	}
	last := hostBarrier
	d.vk.CmdPipelineBarrier(cb, stages, stageHost, 0, 1, &last, 0, nil, 0, nil)
	return check(d.vk.EndCommandBuffer(cb), "vkEndCommandBuffer")
}

// unrecord undoes record after a failure (d.mu held): the command buffer
// goes, and the zero fills are left to the next submission.
func (s *submission) unrecord() {
	d := s.d
	if s.vkcb != 0 {
		d.vk.FreeCommandBuffers(d.handle, d.commandPool, 1, &s.vkcb)
		s.vkcb = 0
	}
	d.alloc.restorePendingZero(s.zero)
	s.zero = nil
	s.endTrace()
}

// descriptorPool creates the pool of the descriptor sets of the
// dispatches whose entry points do not push descriptors.
func (s *submission) descriptorPool() error {
	var sets, descriptors uint32
	for i := range s.ops {
		o := &s.ops[i]
		if o.kind != hal.CommandDispatch {
			continue
		}
		p := o.exe.entries[o.entry]
		if n := len(o.bindings) + boolInt(p.reports); !p.pushDescriptors && n > 0 {
			sets++
			descriptors += uint32(n)
		}
	}
	if sets == 0 {
		return nil
	}
	d := s.d
	var m cmem
	defer m.free()
	sizes := []descriptorPoolSize{{typ: descriptorTypeStorageBuffer, descriptorCount: descriptors}}
	info := &descriptorPoolCreateInfo{sType: sTypeDescriptorPoolCreateInfo, maxSets: sets, poolSizeCount: 1, pPoolSizes: pinned(&m, sizes)}
	return check(d.vk.CreateDescriptorPool(d.handle, info, nil, &s.pool), "vkCreateDescriptorPool")
}

// emit records one command.
func (s *submission) emit(cb uintptr, o *op) error {
	d := s.d
	for _, c := range o.copies {
		region := bufferCopy{srcOffset: uint64(c.src), dstOffset: uint64(c.dst.off), size: uint64(c.dst.n)}
		d.vk.CmdCopyBuffer(cb, s.block.s.buffer, c.dst.st.buffer, 1, &region)
	}
	switch o.kind {
	case hal.CommandFill:
		if o.fillN > 0 {
			d.vk.CmdFillBuffer(cb, o.target.st.buffer, uint64(o.fillOff), uint64(o.fillN), o.fillWord)
		}
	case hal.CommandUpdate:
		if o.inline && o.target.n > 0 {
			d.vk.CmdUpdateBuffer(cb, o.target.st.buffer, uint64(o.target.off), uint64(o.target.n), unsafe.Pointer(&o.data[0]))
		}
	case hal.CommandCopy:
		if o.source.n > 0 {
			region := bufferCopy{srcOffset: uint64(o.source.off), dstOffset: uint64(o.target.off), size: uint64(o.source.n)}
			d.vk.CmdCopyBuffer(cb, o.source.st.buffer, o.target.st.buffer, 1, &region)
		}
	case hal.CommandDispatch:
		return s.emitDispatch(cb, o)
	}
	return nil
}

// emitDispatch binds the pipeline, the descriptors (pushed, or a set of
// the submission's pool) and the push constants, and dispatches.
func (s *submission) emitDispatch(cb uintptr, o *op) error {
	d := s.d
	p := o.exe.entries[o.entry]
	var m cmem
	defer m.free()
	d.vk.CmdBindPipeline(cb, pipelineBindPointCompute, o.pipeline)
	n := len(o.bindings) + boolInt(p.reports)
	if n > 0 {
		infos := make([]descriptorBufferInfo, n)
		for j, b := range o.bindings {
			if off := o.nullOffs[j]; off >= 0 {
				infos[j] = descriptorBufferInfo{buffer: s.block.s.buffer, offset: uint64(off), rng: 16}
			} else {
				infos[j] = descriptorBufferInfo{buffer: b.st.buffer, offset: uint64(b.off), rng: uint64(b.wordRange())}
			}
		}
		if p.reports {
			infos[n-1] = descriptorBufferInfo{buffer: s.block.s.buffer, offset: uint64(o.statusOff), rng: 16}
		}
		m.pin(unsafe.Pointer(&infos[0]))
		var set uint64
		if !p.pushDescriptors {
			layouts := []uint64{p.setLayout}
			alloc := &descriptorSetAllocateInfo{sType: sTypeDescriptorSetAllocateInfo, descriptorPool: s.pool, descriptorSetCount: 1, pSetLayouts: pinned(&m, layouts)}
			if err := check(d.vk.AllocateDescriptorSets(d.handle, alloc, &set), "vkAllocateDescriptorSets"); err != nil {
				return err
			}
		}
		writes := make([]writeDescriptorSet, n)
		for j := range writes {
			writes[j] = writeDescriptorSet{sType: sTypeWriteDescriptorSet, dstSet: set, dstBinding: uint32(j), descriptorCount: 1,
				descriptorType: descriptorTypeStorageBuffer, pBufferInfo: unsafe.Pointer(&infos[j])}
		}
		m.pin(unsafe.Pointer(&writes[0]))
		if p.pushDescriptors {
			d.vk.CmdPushDescriptorSetKHR(cb, pipelineBindPointCompute, p.layout, 0, uint32(n), &writes[0])
		} else {
			d.vk.UpdateDescriptorSets(d.handle, uint32(n), &writes[0], 0, nil)
			d.vk.CmdBindDescriptorSets(cb, pipelineBindPointCompute, p.layout, 0, 1, &set, 0, nil)
		}
	}
	if len(o.push) > 0 {
		d.vk.CmdPushConstants(cb, p.layout, shaderStageComputeBit, 0, uint32(8*len(o.push)), unsafe.Pointer(&o.push[0]))
	}
	if o.grid[0] > 0 && o.grid[1] > 0 && o.grid[2] > 0 {
		d.vk.CmdDispatch(cb, o.grid[0], o.grid[1], o.grid[2])
	}
	return nil
}
