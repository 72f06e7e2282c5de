// Package irpa is IREE's parameter archive format (.irpa): the layout
// constants and a Writer that builds archives. It sits in go/schemas
// because both sides use it: the compiler writes archives
// (--iree-parameter-export, --iree-parameter-splat) and the runtime reads
// them (go/runtime/io/params) and writes them (iree-create-parameters,
// iree-convert-parameters).
//
// Layout (all integers little-endian, structures packed). A file holds one
// or more archives linked by next_header_offset; every offset in an
// archive is relative to its header.
//
//	header prefix (32 bytes): u32 magic "IRPA", u16 version_major (0),
//	  u16 version_minor (0), u64 header_size (88 for v0),
//	  u64 next_header_offset (0: none), u64 flags
//	v0 header (88 bytes): prefix, u64 entry_count, then three (u64 offset,
//	  u64 length) ranges: entry segment, metadata segment, storage segment
//	entry header (60 bytes): u64 entry_size, u32 type, u64 flags,
//	  name (offset, length) and metadata (offset, length) in the metadata
//	  segment, u64 minimum_alignment; entries are 16-byte aligned
//	splat entry (85): header, u64 length, u8 pattern[16], u8 pattern_length
//	data entry (76): header, storage (offset, length) in the storage segment
//	external entry (92): header, path (metadata ref), range (offset, length)
package irpa
