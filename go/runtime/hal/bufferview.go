package hal

// BufferView is a shaped, typed view of a buffer's bytes. On the local
// devices Data is the buffer itself; GPU drivers transfer to and from it.
// Data is dense, row-major, little-endian, with ElementType.ByteSize bytes
// per element.
type BufferView struct {
	Shape []int64
	Type  ElementType
	Data  []byte
}

// ElementCount returns the product of the dimensions (1 for rank 0).
func (bv *BufferView) ElementCount() int64 {
	n := int64(1)
	for _, d := range bv.Shape {
		n *= d
	}
	return n
}

// ByteLength returns the number of bytes the view covers.
func (bv *BufferView) ByteLength() int64 { return bv.ElementCount() * int64(bv.Type.ByteSize()) }

// NewBufferView allocates a zeroed view of the given shape and type.
func NewBufferView(shape []int64, t ElementType) *BufferView {
	bv := &BufferView{Shape: append([]int64(nil), shape...), Type: t}
	bv.Data = make([]byte, bv.ByteLength())
	return bv
}
