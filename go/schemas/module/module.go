package module

// Magic starts every module file.
const Magic = "GREEVMFB"

// Version is the format version of a module whose executables have no
// variants: every runtime since format 1 reads it.
const Version = 1

// VersionVariants is the format version of a module with executable
// variants (Executable.Variant > 0: several targets in one module). It
// adds one field per executable; this package reads both versions and
// writes VersionVariants only when a module has variants.
const VersionVariants = 2

// Alignment of constants and executables inside the file.
const Alignment = 64

// Kind is the kind of a register, argument or result.
type Kind uint8

// Register kinds. I32 also carries i1, i8 and i16 values (as IREE's VM
// does); Ref holds a buffer view, a list or null.
const (
	KindI32 Kind = iota + 1
	KindI64
	KindF32
	KindF64
	KindRef
)

// CConv returns the calling-convention character of a kind (as in
// IREE's cconv strings: i, I, f, F, r).
func (k Kind) CConv() byte {
	switch k {
	case KindI32:
		return 'i'
	case KindI64:
		return 'I'
	case KindF32:
		return 'f'
	case KindF64:
		return 'F'
	}
	return 'r'
}

// Module is a decoded module file.
type Module struct {
	Name        string
	Version     uint32
	Attrs       []Attr // module-level metadata (target, compiler version)
	Functions   []Function
	Exports     []Export
	Imports     []Import
	Globals     []Global
	Constants   []Constant
	Executables []Executable
	// Signature is the file's signature block (nil: unsigned). Decode
	// does not verify it; VerifySignature does.
	Signature *Signature
}

// Attr is one key/value metadata pair.
type Attr struct{ Key, Value string }

// Function is one host function: its signature, register file and code.
type Function struct {
	Name       string
	Args       []Kind
	Results    []Kind
	Regs       []Kind // the kind of every register; args occupy 0..len(Args)-1
	Code       []Instr
	Reflection []Attr // e.g. iree.abi.declaration
	// ArgTypes gives, per argument, the tensor type a Ref argument must
	// have (ElementType 0 for primitives); the runtime checks calls
	// against it.
	ArgTypes []TensorType
}

// TensorType is an element type and dimensions; -1 is a dynamic dimension.
type TensorType struct {
	ElementType uint32
	Dims        []int64
}

// ReflectionValue returns the reflection attribute key's value ("" when
// absent).
func (f *Function) ReflectionValue(key string) string {
	for _, a := range f.Reflection {
		if a.Key == key {
			return a.Value
		}
	}
	return ""
}

// CConv returns IREE's calling-convention string, e.g. "0rr_r".
func (f *Function) CConv() string {
	b := []byte{'0'}
	for _, k := range f.Args {
		b = append(b, k.CConv())
	}
	b = append(b, '_')
	for _, k := range f.Results {
		b = append(b, k.CConv())
	}
	return string(b)
}

// Export names a function callable from outside.
type Export struct {
	Name     string
	Function int
}

// Import is a function of another module (e.g. check.expect_eq).
type Import struct {
	Module, Name string
	Args         []Kind
	Results      []Kind
	Optional     bool
}

// Global is a module-level variable.
type Global struct {
	Name    string
	Kind    Kind
	Mutable bool
	// Init is the constant index initializing a Ref global, or -1 (null).
	Init int32
	// InitScalar initializes a primitive global (bits of I or F).
	InitI int64
	InitF float64
}

// Constant is an immutable tensor stored in the file.
type Constant struct {
	ElementType uint32 // IREE element-type word
	Shape       []int64
	Data        []byte // aliases the file image after Decode
	// Parameter, when set, names the parameter file entry that supplies
	// the constant's bytes when a context loads the module; Data is then
	// empty (the module holds no weights). See VersionParameters.
	Parameter *ParameterRef
}

// Executable is one target's compiled kernels.
type Executable struct {
	Format  string   // e.g. "vmvx-bytecode"
	Entries []string // kernel names, in entry order
	Data    []byte   // aliases the file image after Decode
	// Variant is 0 for an executable that starts a group: the kernels of
	// one logical executable compiled for the first (preferred) target.
	// An executable with Variant k > 0 is the k-th alternative of the
	// group started by the nearest preceding executable with Variant 0:
	// the same entries compiled for another target. A runtime prepares
	// the first variant of each group its device loads (see Groups);
	// dispatches name the group's first executable.
	Variant uint32
}

// ConstantRegisters reports, per register, whether it only ever holds a
// module constant: it is written, and every write of it is a constant, or
// a reshape or move of a register that itself only holds constants. A
// constant's storage is the module's, which no device recycles, so such
// registers need no discard, and a discard need not look in them for
// other references to a buffer.
func (f *Function) ConstantRegisters() []bool {
	fromConst := make([]bool, len(f.Regs))
	valid := func(r int32) bool { return r >= 0 && int(r) < len(f.Regs) }
	for _, in := range f.Code {
		for _, d := range in.Dst {
			if valid(d) {
				fromConst[d] = true
			}
		}
	}
	for r := range f.Args {
		if r < len(fromConst) {
			fromConst[r] = false
		}
	}
	for changed := true; changed; {
		changed = false
		for _, in := range f.Code {
			ok := in.Op == OpConstant ||
				((in.Op == OpReshape || in.Op == OpMove) && len(in.Src) > 0 && valid(in.Src[0]) && fromConst[in.Src[0]])
			for _, d := range in.Dst {
				if valid(d) && fromConst[d] && !ok {
					fromConst[d], changed = false, true
				}
			}
		}
	}
	return fromConst
}
