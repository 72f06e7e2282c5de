package spirv

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// module accumulates the sections of one SPIR-V module in the order the
// specification's logical layout requires, allocating result ids and
// deduplicating types and constants.
type module struct {
	version uint32
	bound   uint32 // the last id allocated
	caps    []uint32
	exts    []string
	glsl    uint32 // the GLSL.std.450 import, 0 until used
	entry   uint32
	local   [3]int
	annots  []uint32
	globals []uint32 // types, constants and global variables
	iface   []uint32 // global variables for the entry point's interface
	inputs  []uint32 // the Input variables among them
	funcs   []uint32 // finished functions
	dedup   map[string]uint32
}

func newModule(version uint32) *module {
	return &module{version: version, dedup: map[string]uint32{}}
}

// id allocates a result id.
func (m *module) id() uint32 {
	m.bound++
	return m.bound
}

// inst appends one instruction (opcode and operands) to dst.
func inst(dst []uint32, op uint32, operands ...uint32) []uint32 {
	dst = append(dst, uint32(len(operands)+1)<<16|op)
	return append(dst, operands...)
}

// strWords encodes s as a nul-terminated literal string.
func strWords(s string) []uint32 {
	b := append([]byte(s), 0)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	w := make([]uint32, len(b)/4)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return w
}

// global returns the id of the deduplicated global instruction op with the
// given operands (a type or a constant), declaring it on first use.
func (m *module) global(op uint32, operands ...uint32) uint32 {
	var key strings.Builder
	fmt.Fprint(&key, op)
	for _, o := range operands {
		fmt.Fprint(&key, ",", o)
	}
	if id, ok := m.dedup[key.String()]; ok {
		return id
	}
	id := m.id()
	if op == opTypeVoid || op == opTypeBool || op == opTypeInt || op == opTypeFloat ||
		op == opTypeVector || op == opTypeArray || op == opTypeRuntimeArray || op == opTypeStruct ||
		op == opTypePointer || op == opTypeFunction {
		m.globals = inst(m.globals, op, append([]uint32{id}, operands...)...)
	} else { // constants: result type first, then the id
		m.globals = inst(m.globals, op, append([]uint32{operands[0], id}, operands[1:]...)...)
	}
	m.dedup[key.String()] = id
	return id
}

// decorate records a decoration of target.
func (m *module) decorate(target, dec uint32, lits ...uint32) {
	m.annots = inst(m.annots, opDecorate, append([]uint32{target, dec}, lits...)...)
}

// memberDecorate records a decoration of a struct member.
func (m *module) memberDecorate(target, member, dec uint32, lits ...uint32) {
	m.annots = inst(m.annots, opMemberDecorate, append([]uint32{target, member, dec}, lits...)...)
}

// variable declares a global variable of pointer type ptr in storage
// class sc.
func (m *module) variable(ptr, sc uint32) uint32 {
	id := m.id()
	m.globals = inst(m.globals, opVariable, ptr, id, sc)
	m.iface = append(m.iface, id)
	if sc == scInput {
		m.inputs = append(m.inputs, id)
	}
	return id
}

// Types.

func (m *module) tVoid() uint32                  { return m.global(opTypeVoid) }
func (m *module) tBool() uint32                  { return m.global(opTypeBool) }
func (m *module) tInt(bits int) uint32           { return m.global(opTypeInt, uint32(bits), 0) }
func (m *module) tFloat(bits int) uint32         { return m.global(opTypeFloat, uint32(bits)) }
func (m *module) tVec(elem uint32, n int) uint32 { return m.global(opTypeVector, elem, uint32(n)) }
func (m *module) tPtr(sc, elem uint32) uint32    { return m.global(opTypePointer, sc, elem) }
func (m *module) tFunc(ret uint32, params ...uint32) uint32 {
	return m.global(opTypeFunction, append([]uint32{ret}, params...)...)
}

// tArray returns an array of n elements (with ArrayStride stride when
// stride > 0: explicitly laid out for a Block).
func (m *module) tArray(elem uint32, n int, stride int) uint32 {
	key := fmt.Sprintf("array %d %d %d", elem, n, stride)
	if id, ok := m.dedup[key]; ok {
		return id
	}
	count := m.constInt(32, uint64(n))
	id := m.id()
	m.globals = inst(m.globals, opTypeArray, id, elem, count)
	if stride > 0 {
		m.decorate(id, decArrayStride, uint32(stride))
	}
	m.dedup[key] = id
	return id
}

// tBlock returns a Block-decorated struct holding one array member
// (runtime when n < 0) of elem with the given stride.
func (m *module) tBlock(elem uint32, n, stride int) uint32 {
	key := fmt.Sprintf("block %d %d %d", elem, n, stride)
	if id, ok := m.dedup[key]; ok {
		return id
	}
	var arr uint32
	if n < 0 {
		arr = m.id()
		m.globals = inst(m.globals, opTypeRuntimeArray, arr, elem)
		m.decorate(arr, decArrayStride, uint32(stride))
	} else {
		arr = m.tArray(elem, n, stride)
	}
	id := m.id()
	m.globals = inst(m.globals, opTypeStruct, id, arr)
	m.decorate(id, decBlock)
	m.memberDecorate(id, 0, decOffset, 0)
	m.dedup[key] = id
	return id
}

// Constants.

// constInt returns an integer constant of the given width holding the low
// bits of x.
func (m *module) constInt(bits int, x uint64) uint32 {
	t := m.tInt(bits)
	if bits == 64 {
		return m.global(opConstant, t, uint32(x), uint32(x>>32))
	}
	if bits < 32 {
		x &= 1<<uint(bits) - 1
	}
	return m.global(opConstant, t, uint32(x))
}

// constFloat returns a float constant of the given width from its bits.
func (m *module) constFloat(bits int, x uint64) uint32 {
	t := m.tFloat(bits)
	if bits == 64 {
		return m.global(opConstant, t, uint32(x), uint32(x>>32))
	}
	return m.global(opConstant, t, uint32(x))
}

// constBool returns true or false.
func (m *module) constBool(b bool) uint32 {
	if b {
		return m.global(opConstantTrue, m.tBool())
	}
	return m.global(opConstantFalse, m.tBool())
}

// need declares capability c.
func (m *module) capability(c uint32) {
	for _, x := range m.caps {
		if x == c {
			return
		}
	}
	m.caps = append(m.caps, c)
}

// extension declares extension name.
func (m *module) extension(name string) {
	for _, x := range m.exts {
		if x == name {
			return
		}
	}
	m.exts = append(m.exts, name)
}

// glslSet returns the GLSL.std.450 import.
func (m *module) glslSet() uint32 {
	if m.glsl == 0 {
		m.glsl = m.id()
	}
	return m.glsl
}

// encode writes the module's binary form.
func (m *module) encode() []byte {
	var w []uint32
	w = append(w, 0x07230203, m.version, 0, m.bound+1, 0)
	for _, c := range m.caps {
		w = inst(w, opCapability, c)
	}
	for _, e := range m.exts {
		w = inst(w, opExtension, strWords(e)...)
	}
	if m.glsl != 0 {
		w = inst(w, opExtInstImport, append([]uint32{m.glsl}, strWords("GLSL.std.450")...)...)
	}
	w = inst(w, opMemoryModel, addressingLogical, memoryModelGLSL450)
	ep := append([]uint32{execModelGLCompute, m.entry}, strWords("main")...)
	if m.version >= 0x00010400 {
		ep = append(ep, m.iface...) // every global the entry point uses
	} else {
		ep = append(ep, m.inputs...)
	}
	w = inst(w, opEntryPoint, ep...)
	w = inst(w, opExecutionMode, m.entry, execModeLocalSize, uint32(m.local[0]), uint32(m.local[1]), uint32(m.local[2]))
	w = append(w, m.annots...)
	w = append(w, m.globals...)
	w = append(w, m.funcs...)
	b := make([]byte, 4*len(w))
	for i, x := range w {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}
