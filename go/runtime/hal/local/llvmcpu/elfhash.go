package llvmcpu

import "debug/elf"

// hashTables checks the symbol hash tables the loader looks names up in
// (DT_GNU_HASH, DT_HASH; at least one) and returns the number of dynamic
// symbols they cover: every bucket and chain stays inside the tables and
// the symbol table, and every chain ends, so no lookup (dlsym, symbol
// binding) reads outside them, divides by zero or loops.
func (o *object) hashTables(tags map[elf.DynTag]uint64) (uint64, error) {
	gnuAddr, hasGNU := tags[elf.DT_GNU_HASH]
	sysvAddr, hasSysV := tags[elf.DT_HASH]
	if !hasGNU && !hasSysV {
		return 0, objErr("no DT_GNU_HASH or DT_HASH symbol hash table")
	}
	var nsyms uint64
	if hasGNU {
		n, err := o.gnuHash(gnuAddr)
		if err != nil {
			return 0, err
		}
		nsyms = n
	}
	if hasSysV {
		n, err := o.sysvHash(sysvAddr)
		if err != nil {
			return 0, err
		}
		if n < nsyms {
			return 0, objErr("DT_HASH covers %d symbols, DT_GNU_HASH %d", n, nsyms)
		}
		nsyms = n
	}
	if nsyms == 0 {
		return 0, objErr("an empty symbol table")
	}
	return nsyms, nil
}

// gnuHash checks a DT_GNU_HASH table and returns the number of symbols
// it implies (one past its last chain's end).
func (o *object) gnuHash(addr uint64) (uint64, error) {
	off, err := o.table("DT_GNU_HASH", addr, 16, false)
	if err != nil {
		return 0, err
	}
	nbuckets, symoffset := uint64(o.u32(off)), uint64(o.u32(off+4))
	bloom, shift := uint64(o.u32(off+8)), o.u32(off+12)
	if nbuckets == 0 || nbuckets > maxSymbols || symoffset == 0 || symoffset > maxSymbols ||
		bloom == 0 || bloom > maxSymbols || bloom&(bloom-1) != 0 || shift >= 64 {
		return 0, objErr("DT_GNU_HASH header (%d buckets, symbol offset %d, bloom %d words, shift %d)", nbuckets, symoffset, bloom, shift)
	}
	head := 16 + 8*bloom + 4*nbuckets
	off, err = o.table("DT_GNU_HASH", addr, head, false)
	if err != nil {
		return 0, err
	}
	last := uint64(0)
	for i := uint64(0); i < nbuckets; i++ {
		b := uint64(o.u32(off + 16 + 8*bloom + 4*i))
		if b != 0 && b < symoffset {
			return 0, objErr("DT_GNU_HASH bucket %d starts at symbol %d, below the offset %d", i, b, symoffset)
		}
		last = max(last, b)
	}
	if last == 0 {
		return symoffset, nil
	}
	// The chain from the last bucket's first symbol must end (an entry
	// with its low bit set) inside the table; every other chain then ends
	// before it does.
	for j := last; ; j++ {
		if j-symoffset >= maxSymbols {
			return 0, objErr("DT_GNU_HASH chain does not end")
		}
		e, err := o.table("DT_GNU_HASH chain", addr+head+4*(j-symoffset), 4, false)
		if err != nil {
			return 0, err
		}
		if o.u32(e)&1 != 0 {
			return j + 1, nil
		}
	}
}

// sysvHash checks a DT_HASH table and returns its symbol count (nchain).
func (o *object) sysvHash(addr uint64) (uint64, error) {
	off, err := o.table("DT_HASH", addr, 8, false)
	if err != nil {
		return 0, err
	}
	nbucket, nchain := uint64(o.u32(off)), uint64(o.u32(off+4))
	if nbucket == 0 || nbucket > maxSymbols || nchain == 0 || nchain > maxSymbols {
		return 0, objErr("DT_HASH has %d buckets and %d chains", nbucket, nchain)
	}
	off, err = o.table("DT_HASH", addr, 8+4*(nbucket+nchain), false)
	if err != nil {
		return 0, err
	}
	chain := off + 8 + 4*nbucket
	// Every symbol is on at most one chain and every chain ends at 0:
	// walking all buckets visits each symbol at most once.
	seen := make([]bool, nchain)
	for i := uint64(0); i < nbucket; i++ {
		for j := uint64(o.u32(off + 8 + 4*i)); j != 0; j = uint64(o.u32(chain + 4*j)) {
			if j >= nchain || seen[j] {
				return 0, objErr("DT_HASH chain of bucket %d leaves the table or loops", i)
			}
			seen[j] = true
		}
	}
	return nchain, nil
}
