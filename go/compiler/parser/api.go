package parser

import (
	"fmt"
	"math"

	"github.com/gree-ml/gree/go/compiler/ir"
)

// Pos is a byte offset in the parsed input; diagnostics turn it into
// file:line:col.
type Pos int

// Operand is a parsed but not yet resolved use of an SSA value: %name or
// %name#Number. Resolve it with a type once the syntax has given one.
type Operand struct {
	Name   string // "%x"
	Number int    // result number within the group (the N of %x#N)
	Pos    Pos
}

// OpParser is what a ParseFunc uses to read the custom assembly of its op.
// Methods named Parse… require their construct and fail with a diagnostic
// naming what was expected and what was found; ParseOptional… and
// Optional… consume the construct only when present.
type OpParser struct {
	p          *parser
	name       string
	pos        int
	numResults int
}

// Name returns the full name of the op being parsed ("func.return" even
// when written "return").
func (o *OpParser) Name() string { return o.name }

// NumResults returns how many result names the user bound (%a, %b:2 = …
// gives 3), or 0 when the op was written without results.
func (o *OpParser) NumResults() int { return o.numResults }

// OpPos returns the position of the op name.
func (o *OpParser) OpPos() Pos { return Pos(o.pos) }

// CurrentPos returns the position of the next token.
func (o *OpParser) CurrentPos() Pos { return Pos(o.p.tok.pos) }

// LocAt returns the file location (file:line:col) of pos, for the block
// arguments and operations a ParseFunc creates itself (an implicit
// terminator, the entry arguments of an assignment list).
func (o *OpParser) LocAt(pos Pos) ir.Location { return o.p.fileLoc(int(pos)) }

// Errorf returns a diagnostic at the next token.
func (o *OpParser) Errorf(format string, args ...any) error {
	return o.p.errorf(o.p.tok.pos, format, args...)
}

// ErrorfAt returns a diagnostic at pos.
func (o *OpParser) ErrorfAt(pos Pos, format string, args ...any) error {
	return o.p.errorf(int(pos), format, args...)
}

// Expect consumes the punctuation punct ("(", ",", ":", "->", "=", "<", …)
// or fails with "expected 'punct', found …".
func (o *OpParser) Expect(punct string) error { return o.p.expect(punct) }

// Optional consumes the punctuation punct if it comes next.
func (o *OpParser) Optional(punct string) bool { return o.p.optional(punct) }

// IsNext reports whether the punctuation punct comes next, without
// consuming it.
func (o *OpParser) IsNext(punct string) bool { return o.p.isPunct(punct) }

// ExpectKeyword consumes the bare identifier kw or fails.
func (o *OpParser) ExpectKeyword(kw string) error {
	if !o.p.isKeyword(kw) {
		return o.p.unexpected("'" + kw + "'")
	}
	o.p.advance()
	return nil
}

// OptionalKeyword consumes the bare identifier kw if it comes next.
func (o *OpParser) OptionalKeyword(kw string) bool {
	if o.p.isKeyword(kw) {
		o.p.advance()
		return true
	}
	return false
}

// PeekKeyword returns the bare identifier that comes next, if any, without
// consuming it.
func (o *OpParser) PeekKeyword() (string, bool) {
	if o.p.tok.kind == tokIdent {
		return o.p.tok.text, true
	}
	return "", false
}

// ParseKeyword consumes any bare identifier and returns it.
func (o *OpParser) ParseKeyword() (string, error) {
	if o.p.tok.kind != tokIdent {
		return "", o.p.unexpected("a keyword")
	}
	kw := o.p.tok.text
	o.p.advance()
	return kw, nil
}

// ParseOperand parses a use %x or %x#N.
func (o *OpParser) ParseOperand() (Operand, error) { return o.p.parseOperand() }

// IsNextOperand reports whether a use %x comes next.
func (o *OpParser) IsNextOperand() bool { return o.p.tok.kind == tokValue }

// ParseOptionalOperand parses a use if one comes next.
func (o *OpParser) ParseOptionalOperand() (Operand, bool, error) {
	if o.p.tok.kind != tokValue {
		return Operand{}, false, nil
	}
	v, err := o.p.parseOperand()
	return v, true, err
}

// ParseOperandList parses zero or more comma-separated uses.
func (o *OpParser) ParseOperandList() ([]Operand, error) {
	var out []Operand
	if o.p.tok.kind != tokValue {
		return nil, nil
	}
	for {
		v, err := o.p.parseOperand()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if !o.p.optional(",") {
			return out, nil
		}
	}
}

// ResolveOperand turns a use into the value it names, which must have type
// t (a use before the definition yields a placeholder patched later).
func (o *OpParser) ResolveOperand(v Operand, t ir.Type) (*ir.Value, error) {
	return o.p.resolveOperand(v, t)
}

// ResolveOperands resolves uses against types one to one and appends the
// values to st.Operands.
func (o *OpParser) ResolveOperands(st *ir.OperationState, vs []Operand, ts []ir.Type) error {
	if len(vs) != len(ts) {
		pos := o.p.tok.pos
		if len(vs) > 0 {
			pos = int(vs[0].Pos)
		}
		return o.p.errorf(pos, "'%s' has %d operands but %d types were given", o.name, len(vs), len(ts))
	}
	for i, v := range vs {
		val, err := o.p.resolveOperand(v, ts[i])
		if err != nil {
			return err
		}
		st.Operands = append(st.Operands, val)
	}
	return nil
}

// ParseType parses a type.
func (o *OpParser) ParseType() (ir.Type, error) { return o.p.parseType() }

// ParseTypeList parses one or more comma-separated types.
func (o *OpParser) ParseTypeList() ([]ir.Type, error) {
	var ts []ir.Type
	for {
		t, err := o.p.parseType()
		if err != nil {
			return nil, err
		}
		ts = append(ts, t)
		if !o.p.optional(",") {
			return ts, nil
		}
	}
}

// ParseColonType parses ": type".
func (o *OpParser) ParseColonType() (ir.Type, error) {
	if err := o.p.expect(":"); err != nil {
		return nil, err
	}
	return o.p.parseType()
}

// ParseColonTypeList parses ": type, type, …".
func (o *OpParser) ParseColonTypeList() ([]ir.Type, error) {
	if err := o.p.expect(":"); err != nil {
		return nil, err
	}
	return o.ParseTypeList()
}

// ParseFunctionType parses "(types) -> types".
func (o *OpParser) ParseFunctionType() (*ir.FunctionType, error) {
	if !o.p.isPunct("(") {
		return nil, o.p.unexpected("a function type '(…) -> …'")
	}
	return o.p.parseFunctionType()
}

// ParseOptionalArrowTypeList parses "-> type" or "-> (types)" if an arrow
// comes next; it returns nil otherwise.
func (o *OpParser) ParseOptionalArrowTypeList() ([]ir.Type, error) {
	if !o.p.optional("->") {
		return nil, nil
	}
	return o.p.parseResultTypes()
}

// ParseAttribute parses any attribute.
func (o *OpParser) ParseAttribute() (ir.Attribute, error) { return o.p.parseAttribute() }

// ParseTypedAttribute parses an attribute that carries a type (a number
// with its ": type", dense<…> : T, …).
func (o *OpParser) ParseTypedAttribute() (ir.TypedAttr, error) {
	pos := o.p.tok.pos
	a, err := o.p.parseAttribute()
	if err != nil {
		return nil, err
	}
	ta, ok := a.(ir.TypedAttr)
	if !ok {
		return nil, o.p.errorf(pos, "expected a typed attribute (a number, dense<…> : T, …), found '%s'", a)
	}
	return ta, nil
}

// ParseOptionalAttrDict parses "{…}" if it comes next and adds the entries
// to st.
func (o *OpParser) ParseOptionalAttrDict(st *ir.OperationState) error {
	if !o.p.isPunct("{") {
		return nil
	}
	entries, err := o.p.parseAttrDict()
	st.Attrs = append(st.Attrs, entries...)
	return err
}

// ParseOptionalAttrDictWithKeyword parses "attributes {…}" if the keyword
// comes next and adds the entries to st.
func (o *OpParser) ParseOptionalAttrDictWithKeyword(st *ir.OperationState) error {
	if !o.OptionalKeyword("attributes") {
		return nil
	}
	entries, err := o.p.parseAttrDict()
	st.Attrs = append(st.Attrs, entries...)
	return err
}

// ParseSymbolName parses "@name" and returns the name.
func (o *OpParser) ParseSymbolName() (string, error) {
	if o.p.tok.kind != tokSymbol {
		return "", o.p.unexpected("a symbol name like '@name'")
	}
	s := o.p.tok.val
	o.p.advance()
	return s, nil
}

// ParseOptionalSymbolName parses "@name" if it comes next.
func (o *OpParser) ParseOptionalSymbolName() (string, bool) {
	if o.p.tok.kind != tokSymbol {
		return "", false
	}
	s := o.p.tok.val
	o.p.advance()
	return s, true
}

// ParseInteger parses an optionally negated integer literal.
func (o *OpParser) ParseInteger() (int64, error) {
	lit, err := o.p.parseScalarLit()
	if err != nil {
		return 0, err
	}
	return o.p.intValue(lit, ir.I64)
}

// ParseIntegerList parses "[1, -2, …]" (possibly empty), the short form of
// a dense i64 array attribute.
func (o *OpParser) ParseIntegerList() ([]int64, error) {
	if err := o.p.expect("["); err != nil {
		return nil, err
	}
	vs := []int64{}
	err := o.p.parseCommaList("]", func() error {
		v, err := o.ParseInteger()
		vs = append(vs, v)
		return err
	})
	return vs, err
}

// DynamicIndex is MLIR's ShapedType::kDynamic: the entry of a static index
// list (static_offsets, static_low, static_inner_tiles, …) that an SSA
// operand supplies instead.
const DynamicIndex int64 = math.MinInt64

// ParseDynamicIndexList parses MLIR's custom<DynamicIndexList>, "[e, …]"
// where each entry is an integer or an SSA value (of index type, for the
// caller to resolve). It returns the values in order and all entries, with
// DynamicIndex where a value stands.
func (o *OpParser) ParseDynamicIndexList() ([]Operand, []int64, error) {
	if err := o.p.expect("["); err != nil {
		return nil, nil, err
	}
	var ops []Operand
	static := []int64{}
	err := o.p.parseCommaList("]", func() error {
		if o.p.tok.kind == tokValue {
			v, err := o.p.parseOperand()
			ops, static = append(ops, v), append(static, DynamicIndex)
			return err
		}
		v, err := o.ParseInteger()
		static = append(static, v)
		return err
	})
	return ops, static, err
}

// ParseFloat parses a number literal as a value of float type t.
func (o *OpParser) ParseFloat(t *ir.FloatType) (float64, error) {
	lit, err := o.p.parseScalarLit()
	if err != nil {
		return 0, err
	}
	return o.p.floatValue(lit, t)
}

// ParseString parses a string literal and returns its value.
func (o *OpParser) ParseString() (string, error) {
	if o.p.tok.kind != tokString {
		return "", o.p.unexpected("a string literal")
	}
	s := o.p.tok.val
	o.p.advance()
	return s, nil
}

// ParseAngleBody parses a balanced "<…>" and returns its text, brackets
// included (for short forms such as fastmath<fast> that map to dialect
// attributes).
func (o *OpParser) ParseAngleBody() (string, error) {
	if !o.p.isPunct("<") {
		return "", o.p.unexpected("'<'")
	}
	return o.p.rawBody(o.p.tok.pos)
}

// ParseArgument parses a declared argument: "%name: type" when named,
// just "type" otherwise, then "{attrs}" when allowAttrs, then an optional
// loc(…).
func (o *OpParser) ParseArgument(named, allowAttrs bool) (Argument, error) {
	return o.p.parseArgument(named, allowAttrs)
}

// ParseRegion parses "{ … }". args become the entry block's arguments
// (their names are bound inside the region). The region is isolated from
// above when the op is registered so in ir.
func (o *OpParser) ParseRegion(args []Argument) (*ir.Region, error) {
	return o.p.parseRegion(args, ir.IsIsolatedFromAbove(o.name))
}

// ParseOptionalRegion parses a region if '{' comes next.
func (o *OpParser) ParseOptionalRegion(args []Argument) (*ir.Region, bool, error) {
	if !o.p.isPunct("{") {
		return nil, false, nil
	}
	r, err := o.ParseRegion(args)
	return r, true, err
}

// ParseSuccessor parses a block reference "^bb".
func (o *OpParser) ParseSuccessor() (*ir.Block, error) { return o.p.parseSuccessor() }

// String describes the parser position, for debugging.
func (o *OpParser) String() string {
	return fmt.Sprintf("OpParser(%s at %s)", o.name, ir.FormatLoc(o.p.fileLoc(o.p.tok.pos)))
}
