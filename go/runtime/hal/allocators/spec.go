package allocators

import (
	"slices"
	"strconv"
	"strings"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

// Known lists the allocator names a spec may start with.
var Known = []string{"caching", "debug"}

// Configure wraps dev's allocator in the allocators specs name, in order
// (the first wraps the device's own), and makes the result the device's
// allocator (IREE's iree_hal_configure_allocator_from_specs, behind
// --device_allocator). It must be called right after the device is
// created. No specs: nothing changes.
func Configure(dev hal.Device, specs []string) error {
	if len(specs) == 0 {
		return nil
	}
	r, ok := dev.(hal.AllocatorReplacer)
	if !ok {
		return status.Errorf(status.Unimplemented, "device %s cannot replace its allocator, so allocator specs (%s) cannot apply to it", dev.ID(), strings.Join(specs, ", "))
	}
	a := dev.Allocator()
	for _, spec := range specs {
		var err error
		if a, err = Wrap(dev, a, spec); err != nil {
			return err
		}
	}
	return r.ReplaceAllocator(a)
}

// Wrap returns base wrapped in the allocator spec names:
// "caching[:<pools>]" or "debug".
func Wrap(dev hal.Device, base hal.Allocator, spec string) (hal.Allocator, error) {
	name, config, _ := strings.Cut(strings.TrimSpace(spec), ":")
	switch name {
	case "caching":
		pools, err := ParsePools(config)
		if err != nil {
			return nil, status.Annotate(err, "allocator spec '%s'", spec)
		}
		return NewCaching(dev, base, pools...), nil
	case "debug":
		if config != "" {
			return nil, status.Errorf(status.InvalidArgument, "allocator spec '%s': the debug allocator takes no configuration", spec)
		}
		return NewDebug(dev, base), nil
	}
	return nil, status.Errorf(status.InvalidArgument, "unrecognized allocator '%s' in spec '%s' (known: %s)", name, spec, strings.Join(Known, ", "))
}

// ParsePools parses a caching allocator's configuration as IREE's
// iree_hal_caching_allocator_create_from_spec: comma-separated
// "<heap>=<max allocation size>;<max capacity>;<max free count>" entries,
// each optional field empty or "*" for no bound, sizes in bytes or with
// K/M/G/T suffixes (kib, mib, gib spellings too). A heap is a memory type
// ("device_local", "host_local", "host_visible|device_visible", "*" for
// any) optionally followed by ";" and buffer usage bits ("transfer",
// "dispatch_storage", …). "" is one unbounded pool for every allocation.
func ParsePools(config string) ([]PoolConfig, error) {
	if strings.TrimSpace(config) == "" {
		return nil, nil
	}
	var pools []PoolConfig
	for _, pair := range strings.Split(config, ",") {
		heap, limits, _ := strings.Cut(pair, "=")
		// The heap key may itself hold a ';' (memory type;usage): the
		// limits are what follows the '='.
		heap = strings.TrimSpace(heap)
		if heap == "" {
			return nil, status.Errorf(status.InvalidArgument, "pool '%s' names no heap (want <heap>=<max size>;<capacity>;<count>)", pair)
		}
		var cfg PoolConfig
		typ, usage, _ := strings.Cut(heap, ";")
		t, err := parseBits(typ, memoryTypes, "memory type")
		if err != nil {
			return nil, err
		}
		u, err := parseBits(usage, bufferUsages, "buffer usage")
		if err != nil {
			return nil, err
		}
		cfg.Type, cfg.Usage = hal.MemoryType(t), hal.BufferUsage(u)
		fields := strings.Split(limits, ";")
		if len(fields) > 3 {
			return nil, status.Errorf(status.InvalidArgument, "pool '%s' has %d limits; at most 3: <max size>;<capacity>;<count>", pair, len(fields))
		}
		for i, f := range fields {
			f = strings.TrimSpace(f)
			if f == "" || f == "*" {
				continue
			}
			switch i {
			case 0, 1:
				n, err := hal.ParseByteSize(f)
				if err != nil {
					return nil, status.Errorf(status.InvalidArgument, "pool '%s': %s '%s': %v", pair, []string{"max allocation size", "max capacity"}[i], f, err)
				}
				if i == 0 {
					cfg.MaxAllocationSize = n
				} else {
					cfg.MaxCapacity = n
				}
			case 2:
				n, err := strconv.Atoi(f)
				if err != nil || n <= 0 {
					return nil, status.Errorf(status.InvalidArgument, "pool '%s': invalid free count '%s' (a positive integer)", pair, f)
				}
				cfg.MaxFreeCount = n
			}
		}
		pools = append(pools, cfg)
	}
	return pools, nil
}

var memoryTypes = map[string]uint32{
	"optimal": uint32(hal.MemoryTypeOptimal), "host_visible": uint32(hal.MemoryTypeHostVisible),
	"host_coherent": uint32(hal.MemoryTypeHostCoherent), "host_cached": uint32(hal.MemoryTypeHostCached),
	"host_local": uint32(hal.MemoryTypeHostLocal), "device_visible": uint32(hal.MemoryTypeDeviceVisible),
	"device_local": uint32(hal.MemoryTypeDeviceLocal),
}

var bufferUsages = map[string]uint32{
	"transfer_source": uint32(hal.BufferUsageTransferSource), "transfer_target": uint32(hal.BufferUsageTransferTarget),
	"transfer": uint32(hal.BufferUsageTransfer), "dispatch_storage_read": uint32(hal.BufferUsageDispatchStorageRead),
	"dispatch_storage_write": uint32(hal.BufferUsageDispatchStorageWrite), "dispatch_storage": uint32(hal.BufferUsageDispatchStorage),
	"dispatch": uint32(hal.BufferUsageDispatch), "mapping": uint32(hal.BufferUsageMapping),
}

// parseBits parses '|'-separated names of table (any case); "" and "*"
// are 0.
func parseBits(s string, table map[string]uint32, what string) (uint32, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "*" {
		return 0, nil
	}
	var v uint32
	for _, part := range strings.Split(s, "|") {
		bits, ok := table[strings.ToLower(strings.TrimSpace(part))]
		if !ok {
			names := make([]string, 0, len(table))
			for n := range table {
				names = append(names, n)
			}
			return 0, status.Errorf(status.InvalidArgument, "unknown %s '%s' in heap '%s' (known: %s)", what, part, s, strings.Join(slices.Sorted(slices.Values(names)), ", "))
		}
		v |= bits
	}
	return v, nil
}
