package vio

import (
	"strings"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/vm"
	"github.com/gree-ml/gree/go/schemas/module"
	"github.com/gree-ml/gree/go/status"
)

// Calling-convention characters of a function's arguments or results.
const (
	CConvI32 = 'i'
	CConvI64 = 'I'
	CConvF32 = 'f'
	CConvF64 = 'F'
	CConvRef = 'r'
)

// ParseInputs parses --input specs into argument values for a function
// whose arguments have the calling convention cconv (one character per
// argument: i, I, f, F for i32, i64, f32, f64 and r for references). Each
// spec is trimmed and dispatched as iree_tooling_parse_variants does:
//
//   - "" fails with "no value specified for input";
//   - "(null)" and "(ignored)" give 0 for a primitive argument and a null
//     reference for r;
//   - "@file.npy" rewinds file and reads one array, "+file.npy" reads the
//     next array of the same open file and "*file.npy" reads all remaining
//     arrays (zero or more arguments); other extensions are UNIMPLEMENTED;
//   - "&spec" is a storage argument, parsed as a tensor spec;
//   - for a primitive argument the spec is a bare number ("5", "-3.14");
//   - otherwise it is a tensor spec (ParseBufferView), which must contain
//     "=" or "x"; "SHAPExTYPE=@file"/"=+file" read raw bytes through the
//     same open files as the .npy forms.
//
// Errors are annotated with "parsing input `<spec>`". Surplus specs fail
// with "function expected fewer input values"; too few values fail as the
// VM's invocation would, naming the expected and passed counts.
func ParseInputs(specs []string, cconv string) ([]vm.Value, error) {
	return ParseInputsFor(specs, cconv, nil)
}

// ParseInputsFor is ParseInputs for a function whose tensor arguments
// have the shapes want (a module function's ArgTypes; -1 is a dynamic
// dimension): a tensor spec whose shape another size is an error before
// its values are read or its buffer allocated, so a typo such as
// 4294967296xf32 for a 4xf32 argument costs nothing.
func ParseInputsFor(specs []string, cconv string, want []module.TensorType) ([]vm.Value, error) {
	values, rest, err := parseVariantsFor(specs, cconv, false, want)
	if err != nil {
		return nil, err
	}
	if rest != "" {
		return nil, status.Errorf(status.InvalidArgument,
			"input list and function mismatch; expected %d arguments but passed %d",
			len(cconv), len(values))
	}
	return values, nil
}

// parseVariants parses specs against cconv and returns the values and the
// calling convention left unconsumed.
func parseVariants(specs []string, cconv string, ignoredIsNull bool) ([]vm.Value, string, error) {
	return parseVariantsFor(specs, cconv, ignoredIsNull, nil)
}

func parseVariantsFor(specs []string, cconv string, ignoredIsNull bool, want []module.TensorType) ([]vm.Value, string, error) {
	p := &variantParser{cconv: cconv, streams: newStreamList(), ignoredIsNull: ignoredIsNull, want: want}
	defer p.streams.close()
	for _, spec := range specs {
		s := cTrim(spec)
		if err := p.parse(s); err != nil {
			return nil, "", annotate(err, "parsing input `"+s+"`")
		}
	}
	return p.values, p.cconv, nil
}

// variantParser holds the state shared by the specs of one list.
type variantParser struct {
	cconv   string
	streams *streamList
	values  []vm.Value
	// ignoredIsNull makes "(ignored)" a null value for every argument type,
	// which the expected-output comparison skips.
	ignoredIsNull bool
	// want, when set, are the argument shapes tensor specs are checked
	// against before they are read.
	want []module.TensorType
}

// checkShape compares the shape a tensor spec declares with the shape of
// the argument it will be (the next value), before anything is allocated.
func (p *variantParser) checkShape(spec string) error {
	i := len(p.values)
	if i >= len(p.want) || p.want[i].ElementType == 0 {
		return nil
	}
	meta, _, _ := strings.Cut(spec, "=")
	shape, t, _, err := parseShapeAndType(meta)
	if err != nil {
		return nil // reported when the spec is parsed
	}
	w := p.want[i]
	ok := len(shape) == len(w.Dims)
	for j := 0; ok && j < len(shape); j++ {
		ok = w.Dims[j] < 0 || w.Dims[j] == shape[j]
	}
	if !ok {
		return status.Errorf(status.InvalidArgument, "argument %d has shape %s but the function takes %s",
			i, FormatShapeAndType(shape, t), FormatShapeAndType(w.Dims, hal.ElementType(w.ElementType)))
	}
	return nil
}

// retypeOpaque gives an array of NumPy's void dtype (np.save writes
// ml_dtypes arrays — int4, uint2, float4_e2m1fn, float8_e4m3fn, bfloat16 —
// as "|V1" or "|V2") the element type of the argument it is for (the next
// value) when that type is not opaque and stores elements of the same
// size; sub-byte elements are then made canonical (hal.IsSubByte).
func (p *variantParser) retypeOpaque(bv *hal.BufferView) {
	i := len(p.values)
	if bv.Type.Numerical() != hal.NumericalUnknown || i >= len(p.want) {
		return
	}
	want := hal.ElementType(p.want[i].ElementType)
	if want.Numerical() == hal.NumericalUnknown || want.ByteSize() != bv.Type.ByteSize() {
		return
	}
	bv.Type = want
	want.CanonicalizeSubBytes(bv.Bytes())
}

// next consumes one calling-convention character.
func (p *variantParser) next() (byte, error) {
	if p.cconv == "" {
		return 0, status.New(status.InvalidArgument, "function expected fewer input values")
	}
	c := p.cconv[0]
	p.cconv = p.cconv[1:]
	return c, nil
}

// expect consumes one calling-convention character that must be want.
func (p *variantParser) expect(want byte) error {
	c, err := p.next()
	if err != nil {
		return err
	}
	if c != want {
		return status.Errorf(status.InvalidArgument,
			"function signature mismatch: expected cconv type `%c` but provided type `%c`", want, c)
	}
	return nil
}

func (p *variantParser) parse(s string) error {
	switch {
	case s == "":
		return status.New(status.InvalidArgument, "no value specified for input")
	case s == "(null)" || s == "(ignored)":
		return p.parseNull(s == "(ignored)" && p.ignoredIsNull)
	case strings.HasPrefix(s, "@"), strings.HasPrefix(s, "+"), strings.HasPrefix(s, "*"):
		return p.parseFile(s)
	case strings.HasPrefix(s, "&"):
		if err := p.expect(CConvRef); err != nil {
			return err
		}
		if err := p.checkShape(s[1:]); err != nil {
			return err
		}
		bv, err := p.streams.parseTensor(s[1:])
		if err != nil {
			return err
		}
		p.values = append(p.values, vm.RefValue(bv))
		return nil
	case !strings.HasPrefix(p.cconv, "r"):
		return p.parsePrimitive(s)
	}
	if err := p.expect(CConvRef); err != nil {
		return err
	}
	if !strings.ContainsAny(s, "=x") {
		return status.New(status.InvalidArgument,
			"invalid tensor specification, requires at least a shape/type (`4x2xf32=...`)")
	}
	if err := p.checkShape(s); err != nil {
		return err
	}
	bv, err := p.streams.parseTensor(s)
	if err != nil {
		return err
	}
	p.values = append(p.values, vm.RefValue(bv))
	return nil
}

// parseNull appends the zero of the next argument's type, or a null value
// when forceNull is set.
func (p *variantParser) parseNull(forceNull bool) error {
	c, err := p.next()
	if err != nil {
		return err
	}
	if forceNull {
		p.values = append(p.values, vm.Value{Kind: vm.KindNull})
		return nil
	}
	switch c {
	case CConvI32:
		p.values = append(p.values, vm.I32(0))
	case CConvI64:
		p.values = append(p.values, vm.I64(0))
	case CConvF32:
		p.values = append(p.values, vm.F32(0))
	case CConvF64:
		p.values = append(p.values, vm.F64(0))
	case CConvRef:
		p.values = append(p.values, vm.RefValue(nil))
	default:
		return status.Errorf(status.Unimplemented, "unimplemented cconv type `%c`", c)
	}
	return nil
}

// parsePrimitive parses a bare number for a primitive argument.
func (p *variantParser) parsePrimitive(s string) error {
	c, err := p.next()
	if err != nil {
		return err
	}
	ok := false
	var v vm.Value
	switch c {
	case CConvI32:
		var i int32
		i, ok = atoiInt32(s)
		v = vm.I32(i)
	case CConvI64:
		var i int64
		i, ok = atoiInt64(s)
		v = vm.I64(i)
	case CConvF32:
		var f float64
		f, ok = parseCFloat(s, 32)
		v = vm.F32(float32(f))
	case CConvF64:
		var f float64
		f, ok = parseCFloat(s, 64)
		v = vm.F64(f)
	default:
		return status.Errorf(status.Unimplemented, "unimplemented cconv type `%c`", c)
	}
	if !ok {
		return status.Errorf(status.InvalidArgument, "parsing value `%s` as %s", s, cconvTypeName(c))
	}
	p.values = append(p.values, v)
	return nil
}

func cconvTypeName(c byte) string {
	switch c {
	case CConvI32:
		return "i32"
	case CConvI64:
		return "i64"
	case CConvF32:
		return "f32"
	case CConvF64:
		return "f64"
	}
	return string(c)
}

// parseFile reads one ("@", "+") or all remaining ("*") arrays of a .npy
// file.
func (p *variantParser) parseFile(s string) error {
	mode, path := s[0], s[1:]
	if !strings.HasSuffix(path, ".npy") {
		return status.New(status.Unimplemented,
			"only numpy (.npy) files are supported for metadata-less variant I/O")
	}
	st, err := p.streams.open(path, mode != '@')
	if err != nil {
		return err
	}
	readOne := func() error {
		if err := p.expect(CConvRef); err != nil {
			return err
		}
		if st.eos() {
			return status.New(status.OutOfRange, "end-of-file")
		}
		bv, err := ReadNPY(st)
		if err != nil {
			return err
		}
		p.retypeOpaque(bv)
		p.values = append(p.values, vm.RefValue(bv))
		return nil
	}
	if mode != '*' {
		return readOne()
	}
	for !st.eos() {
		if err := readOne(); err != nil {
			return err
		}
	}
	return nil
}
