package hugepage

import "unsafe"

// Size is the huge page size assumed for alignment.
const Size = 2 << 20

// MinBytes is the smallest buffer Alloc aligns: below it, padding a
// buffer to whole huge pages would more than quadruple the memory it
// touches. (A model's larger activations are a few hundred kilobytes to
// a few megabytes; its weights, megabytes.)
const MinBytes = 512 << 10

// Alloc returns n zeroed bytes. When n is at least MinBytes the buffer
// starts on a Size boundary and the whole huge pages it touches belong to
// it: it is carved out of an allocation of n rounded up to Size plus
// Size-1 bytes, which lives as long as the buffer does; that span is
// advised for huge pages. Smaller buffers are plain allocations.
func Alloc(n int) []byte {
	if n < MinBytes {
		return make([]byte, n)
	}
	span := (n + Size - 1) &^ (Size - 1)
	raw := make([]byte, span+Size-1)
	addr := uintptr(unsafe.Pointer(unsafe.SliceData(raw)))
	off := int((Size - addr%Size) % Size)
	advise(raw[off : off+span])
	return raw[off : off+n : off+n]
}
