package hal

import (
	"fmt"
	"strings"
)

// MemoryType is IREE's iree_hal_memory_type_t: where an allocation lives
// and who can see it (same bits).
type MemoryType uint32

// Memory type bits and their usual combinations.
const (
	MemoryTypeNone          MemoryType = 0
	MemoryTypeOptimal       MemoryType = 1 << 0
	MemoryTypeHostVisible   MemoryType = 1 << 1
	MemoryTypeHostCoherent  MemoryType = 1 << 2
	MemoryTypeHostCached    MemoryType = 1 << 3
	MemoryTypeHostLocal     MemoryType = MemoryTypeHostVisible | MemoryTypeHostCoherent | 1<<6
	MemoryTypeDeviceVisible MemoryType = 1 << 4
	MemoryTypeDeviceLocal   MemoryType = MemoryTypeDeviceVisible | 1<<5
	// MemoryTypeOptimalForHost and MemoryTypeOptimalForDevice let the
	// allocator choose; they are only used when allocating.
	MemoryTypeOptimalForHost   = MemoryTypeOptimal | MemoryTypeHostLocal
	MemoryTypeOptimalForDevice = MemoryTypeOptimal | MemoryTypeDeviceLocal
)

// MemoryAccess is IREE's iree_hal_memory_access_t.
type MemoryAccess uint32

// Memory access bits.
const (
	MemoryAccessNone         MemoryAccess = 0
	MemoryAccessRead         MemoryAccess = 1 << 0
	MemoryAccessWrite        MemoryAccess = 1 << 1
	MemoryAccessDiscard      MemoryAccess = 1 << 2
	MemoryAccessDiscardWrite              = MemoryAccessWrite | MemoryAccessDiscard
	MemoryAccessMayAlias     MemoryAccess = 1 << 3
	MemoryAccessUnaligned    MemoryAccess = 1 << 4
	MemoryAccessAny          MemoryAccess = 1 << 5
	MemoryAccessAll                       = MemoryAccessRead | MemoryAccessWrite | MemoryAccessDiscard
)

// BufferUsage is IREE's iree_hal_buffer_usage_t: what a buffer may be used
// for (same bits).
type BufferUsage uint32

// Buffer usage bits and their usual combinations.
const (
	BufferUsageNone                         BufferUsage = 0
	BufferUsageTransferSource               BufferUsage = 1 << 0
	BufferUsageTransferTarget               BufferUsage = 1 << 1
	BufferUsageTransfer                                 = BufferUsageTransferSource | BufferUsageTransferTarget
	BufferUsageDispatchIndirectParameters   BufferUsage = 1 << 8
	BufferUsageDispatchUniformRead          BufferUsage = 1 << 9
	BufferUsageDispatchStorageRead          BufferUsage = 1 << 10
	BufferUsageDispatchStorageWrite         BufferUsage = 1 << 11
	BufferUsageDispatchStorage                          = BufferUsageDispatchStorageRead | BufferUsageDispatchStorageWrite
	BufferUsageDispatchImageRead            BufferUsage = 1 << 12
	BufferUsageDispatchImageWrite           BufferUsage = 1 << 13
	BufferUsageDispatchImage                            = BufferUsageDispatchImageRead | BufferUsageDispatchImageWrite
	BufferUsageDispatch                                 = BufferUsageDispatchIndirectParameters | BufferUsageDispatchUniformRead | BufferUsageDispatchStorage | BufferUsageDispatchImage
	BufferUsageSharingExport                BufferUsage = 1 << 16
	BufferUsageSharingReplicate             BufferUsage = 1 << 17
	BufferUsageSharingConcurrent            BufferUsage = 1 << 18
	BufferUsageSharingImmutable             BufferUsage = 1 << 19
	BufferUsageMappingScoped                BufferUsage = 1 << 24
	BufferUsageMappingPersistent            BufferUsage = 1 << 25
	BufferUsageMappingOptional              BufferUsage = 1 << 26
	BufferUsageMappingAccessRandom          BufferUsage = 1 << 27
	BufferUsageMappingAccessSequentialWrite BufferUsage = 1 << 28
	BufferUsageMapping                                  = BufferUsageMappingScoped | BufferUsageMappingAccessRandom
	BufferUsageDefault                                  = BufferUsageTransfer | BufferUsageDispatchStorage
)

// BufferCompatibility is IREE's iree_hal_buffer_compatibility_t: what an
// allocator can do with buffers of given parameters.
type BufferCompatibility uint32

// Buffer compatibility bits.
const (
	BufferCompatibilityNone          BufferCompatibility = 0
	BufferCompatibilityAllocatable   BufferCompatibility = 1 << 0
	BufferCompatibilityImportable    BufferCompatibility = 1 << 1
	BufferCompatibilityExportable    BufferCompatibility = 1 << 2
	BufferCompatibilityQueueTransfer BufferCompatibility = 1 << 10
	BufferCompatibilityQueueDispatch BufferCompatibility = 1 << 11
)

// BufferParams are the parameters of an allocation.
type BufferParams struct {
	Type   MemoryType
	Access MemoryAccess // MemoryAccessNone means all
	Usage  BufferUsage
}

// bitName is one entry of a bitfield's name table: combined values first,
// as IREE's iree_bitfield_format consumes them.
type bitName struct {
	bits uint32
	name string
}

var memoryTypeNames = []bitName{
	{uint32(MemoryTypeHostLocal), "HOST_LOCAL"},
	{uint32(MemoryTypeDeviceLocal), "DEVICE_LOCAL"},
	{uint32(MemoryTypeOptimal), "OPTIMAL"},
	{uint32(MemoryTypeHostVisible), "HOST_VISIBLE"},
	{uint32(MemoryTypeHostCoherent), "HOST_COHERENT"},
	{uint32(MemoryTypeHostCached), "HOST_CACHED"},
	{uint32(MemoryTypeDeviceVisible), "DEVICE_VISIBLE"},
}

var memoryAccessNames = []bitName{
	{uint32(MemoryAccessAll), "ALL"},
	{uint32(MemoryAccessDiscardWrite), "DISCARD_WRITE"},
	{uint32(MemoryAccessRead), "READ"},
	{uint32(MemoryAccessWrite), "WRITE"},
	{uint32(MemoryAccessDiscard), "DISCARD"},
	{uint32(MemoryAccessMayAlias), "MAY_ALIAS"},
	{uint32(MemoryAccessAny), "ANY"},
}

var bufferUsageNames = []bitName{
	{uint32(BufferUsageTransfer), "TRANSFER"},
	{uint32(BufferUsageDispatch), "DISPATCH"},
	{uint32(BufferUsageDispatchStorage), "DISPATCH_STORAGE"},
	{uint32(BufferUsageDispatchImage), "DISPATCH_IMAGE"},
	{uint32(BufferUsageMapping), "MAPPING"},
	{uint32(BufferUsageTransferSource), "TRANSFER_SOURCE"},
	{uint32(BufferUsageTransferTarget), "TRANSFER_TARGET"},
	{uint32(BufferUsageDispatchIndirectParameters), "DISPATCH_INDIRECT_PARAMETERS"},
	{uint32(BufferUsageDispatchUniformRead), "DISPATCH_UNIFORM_READ"},
	{uint32(BufferUsageDispatchStorageRead), "DISPATCH_STORAGE_READ"},
	{uint32(BufferUsageDispatchStorageWrite), "DISPATCH_STORAGE_WRITE"},
	{uint32(BufferUsageDispatchImageRead), "DISPATCH_IMAGE_READ"},
	{uint32(BufferUsageDispatchImageWrite), "DISPATCH_IMAGE_WRITE"},
	{uint32(BufferUsageSharingExport), "SHARING_EXPORT"},
	{uint32(BufferUsageSharingReplicate), "SHARING_REPLICATE"},
	{uint32(BufferUsageSharingConcurrent), "SHARING_CONCURRENT"},
	{uint32(BufferUsageSharingImmutable), "SHARING_IMMUTABLE"},
	{uint32(BufferUsageMappingScoped), "MAPPING_SCOPED"},
	{uint32(BufferUsageMappingPersistent), "MAPPING_PERSISTENT"},
	{uint32(BufferUsageMappingOptional), "MAPPING_OPTIONAL"},
	{uint32(BufferUsageMappingAccessRandom), "MAPPING_ACCESS_RANDOM"},
	{uint32(BufferUsageMappingAccessSequentialWrite), "MAPPING_ACCESS_SEQUENTIAL_WRITE"},
}

// formatBits spells a bitfield as IREE does: the names of the table's
// entries whose bits are all set, each consuming its bits, joined by '|',
// then any bits left over as "<hex>h"; "NONE" for zero.
func formatBits(v uint32, names []bitName) string {
	if v == 0 {
		return "NONE"
	}
	var parts []string
	left := v
	for _, n := range names {
		if n.bits != 0 && left&n.bits == n.bits {
			parts = append(parts, n.name)
			left &^= n.bits
		}
	}
	if left != 0 {
		parts = append(parts, fmt.Sprintf("%Xh", left))
	}
	return strings.Join(parts, "|")
}

func (t MemoryType) String() string          { return formatBits(uint32(t), memoryTypeNames) }
func (a MemoryAccess) String() string        { return formatBits(uint32(a), memoryAccessNames) }
func (u BufferUsage) String() string         { return formatBits(uint32(u), bufferUsageNames) }
func (c BufferCompatibility) String() string { return fmt.Sprintf("0x%x", uint32(c)) }
