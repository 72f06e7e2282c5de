package module

// VersionParameters is the format version of a module with parameter
// constants (Constant.Parameter set: weights loaded from a parameter file
// when a context is created, not stored in the module). It adds a
// parameters section after the executables (and includes every field of
// VersionVariants); this package writes it only when a module has
// parameter constants, so modules without them still load in older
// runtimes.
const VersionParameters = 3

// ParameterRef names the parameter that supplies a constant's bytes: a
// key in a scope ("" is IREE's global scope), as in
// #flow.parameter.named<"scope"::"key">.
type ParameterRef struct {
	Scope, Key string
}

// String formats the reference as IREE prints it: "scope::key", or the
// key alone in the global scope.
func (p ParameterRef) String() string {
	if p.Scope == "" {
		return p.Key
	}
	return p.Scope + "::" + p.Key
}

// HasParameters reports whether any constant is a parameter reference.
func (m *Module) HasParameters() bool {
	for i := range m.Constants {
		if m.Constants[i].Parameter != nil {
			return true
		}
	}
	return false
}

// ByteLength returns the dense byte size of the constant's shape and
// element type (for a parameter, the bytes its parameter must have), or
// -1 when the shape or element type is invalid.
func (c *Constant) ByteLength() int64 {
	n := int64(1)
	for _, d := range c.Shape {
		if d < 0 || (d > 0 && n > (1<<48)/d) {
			return -1
		}
		n *= d
	}
	bits := int64(c.ElementType & 0xff)
	if bits == 0 {
		return -1
	}
	return n * ((bits + 7) / 8)
}

// writeParameters writes the parameters section:
//
//	parameters := n:uv (constant:uv scope:str key:str)*
func (w *writer) parameters(m *Module) {
	n := 0
	for i := range m.Constants {
		if m.Constants[i].Parameter != nil {
			n++
		}
	}
	w.uv(uint64(n))
	for i := range m.Constants {
		if p := m.Constants[i].Parameter; p != nil {
			w.uv(uint64(i))
			w.str(p.Scope)
			w.str(p.Key)
		}
	}
}

// parameters reads the parameters section into m's constants.
func (r *reader) parameters(m *Module) {
	r.at = "parameters"
	n := r.count(3)
	for i := 0; i < n && r.err == nil; i++ {
		ci := r.uv()
		scope, key := r.str(), r.str()
		if r.err != nil {
			return
		}
		if ci >= uint64(len(m.Constants)) {
			r.fail("parameter %d names constant %d of %d", i, ci, len(m.Constants))
			return
		}
		c := &m.Constants[ci]
		if c.Parameter != nil {
			r.fail("constant %d has two parameters", ci)
			return
		}
		c.Parameter = &ParameterRef{Scope: scope, Key: key}
	}
}
