package module

import "slices"

// Group is one logical executable: Size consecutive executables starting
// at First, the same kernels compiled for Size targets in the compiler's
// order of preference (IREE's executable variants).
type Group struct {
	First, Size int
}

// Groups returns the module's executable groups in order. A module
// without variants has one group of size 1 per executable.
func (m *Module) Groups() []Group {
	var gs []Group
	for i, e := range m.Executables {
		if e.Variant == 0 || len(gs) == 0 {
			gs = append(gs, Group{First: i, Size: 1})
			continue
		}
		gs[len(gs)-1].Size++
	}
	return gs
}

// VariantCount returns the number of variants of the group that starts
// at executable i (1 for an executable without variants), or 0 when i is
// not the first executable of a group.
func (m *Module) VariantCount(i int) int {
	if i < 0 || i >= len(m.Executables) || m.Executables[i].Variant != 0 {
		return 0
	}
	n := 1
	for j := i + 1; j < len(m.Executables) && m.Executables[j].Variant != 0; j++ {
		n++
	}
	return n
}

// HasVariants reports whether any executable is an alternative variant
// (the module needs format version VersionVariants).
func (m *Module) HasVariants() bool {
	for _, e := range m.Executables {
		if e.Variant != 0 {
			return true
		}
	}
	return false
}

// verifyVariants checks the executable table's groups: a group starts
// with Variant 0, its alternatives count up from 1, and every variant
// has its group's entry points in the same order (a dispatch names an
// entry by ordinal, whichever variant the device runs).
func verifyVariants(m *Module) error {
	for i, e := range m.Executables {
		if e.Variant == 0 {
			continue
		}
		if i == 0 || e.Variant != m.Executables[i-1].Variant+1 {
			return corrupt("executable %d is variant %d, which does not follow variant %d of its group", i, e.Variant, e.Variant-1)
		}
		first := i - int(e.Variant)
		if !slices.Equal(e.Entries, m.Executables[first].Entries) {
			return corrupt("executable %d (%s), variant %d of executable %d, has entry points %v, not its group's %v", i, e.Format, e.Variant, first, e.Entries, m.Executables[first].Entries)
		}
	}
	return nil
}
