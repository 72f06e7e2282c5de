package ir

// OperationState collects the parts of an operation before it is created,
// as parsers and builders fill them in.
type OperationState struct {
	Name        string
	Loc         Location
	Operands    []*Value
	ResultTypes []Type
	Attrs       []NamedAttr // any order; later duplicates win
	Regions     []*Region
	Successors  []*Block
}

// AddAttr appends name = value to the state's attributes.
func (st *OperationState) AddAttr(name string, value Attribute) {
	st.Attrs = append(st.Attrs, NamedAttr{name, value})
}

// AddRegion appends a new empty region and returns it.
func (st *OperationState) AddRegion() *Region {
	r := &Region{}
	st.Regions = append(st.Regions, r)
	return r
}

// NewOperation creates a detached operation from st: one result Value per
// result type, the attributes sorted, the regions adopted. A nil location
// becomes Unknown.
func NewOperation(st *OperationState) *Operation {
	op := &Operation{
		Name:       st.Name,
		Loc:        st.Loc,
		Operands:   append([]*Value(nil), st.Operands...),
		Attrs:      SortAttrs(st.Attrs),
		Successors: append([]*Block(nil), st.Successors...),
	}
	if op.Loc == nil {
		op.Loc = Unknown
	}
	for i, t := range st.ResultTypes {
		op.Results = append(op.Results, &Value{Type: t, op: op, index: i})
	}
	for _, r := range st.Regions {
		if r == nil {
			r = &Region{}
		}
		r.op = op
		op.Regions = append(op.Regions, r)
	}
	return op
}

// Builder creates operations at an insertion point: the end of a block or
// before a given operation. Loc is the location given to new operations.
type Builder struct {
	Loc    Location
	block  *Block
	before *Operation // nil: insert at the end of block
}

// NewBuilder returns a builder with no insertion point: Create then returns
// detached operations.
func NewBuilder(loc Location) *Builder { return &Builder{Loc: loc} }

// AtEnd returns a builder that appends to b.
func AtEnd(b *Block, loc Location) *Builder { return &Builder{Loc: loc, block: b} }

// SetInsertionPointToEnd makes the builder append to b.
func (b *Builder) SetInsertionPointToEnd(blk *Block) { b.block, b.before = blk, nil }

// SetInsertionPointBefore makes the builder insert just before op.
func (b *Builder) SetInsertionPointBefore(op *Operation) { b.block, b.before = op.block, op }

// SetInsertionPointAfter makes the builder insert just after op.
func (b *Builder) SetInsertionPointAfter(op *Operation) {
	b.block, b.before = op.block, nil
	if op.block == nil {
		return
	}
	if i := op.block.IndexOf(op); i+1 < len(op.block.Ops) {
		b.before = op.block.Ops[i+1]
	}
}

// InsertionBlock returns the block the builder inserts into, or nil.
func (b *Builder) InsertionBlock() *Block { return b.block }

// Insert places op at the insertion point (when there is one) and returns
// it.
func (b *Builder) Insert(op *Operation) *Operation {
	switch {
	case b.block == nil:
	case b.before != nil && b.before.block == b.block:
		b.block.Insert(b.block.IndexOf(b.before), op)
	default:
		b.block.Append(op)
	}
	return op
}

// Create builds the operation name(operands) -> resultTypes with the given
// attributes and inserts it.
func (b *Builder) Create(name string, operands []*Value, resultTypes []Type, attrs ...NamedAttr) *Operation {
	return b.Insert(NewOperation(&OperationState{
		Name: name, Loc: b.Loc, Operands: operands, ResultTypes: resultTypes, Attrs: attrs,
	}))
}

// CreateWithRegions is Create for an operation with n empty regions; fill
// them through op.Regions.
func (b *Builder) CreateWithRegions(name string, operands []*Value, resultTypes []Type, n int, attrs ...NamedAttr) *Operation {
	st := &OperationState{Name: name, Loc: b.Loc, Operands: operands, ResultTypes: resultTypes, Attrs: attrs}
	for i := 0; i < n; i++ {
		st.AddRegion()
	}
	return b.Insert(NewOperation(st))
}

// Constant creates "arith.constant" with the given typed value.
func (b *Builder) Constant(value TypedAttr) *Value {
	return b.Create("arith.constant", nil, []Type{value.AttrType()}, Named("value", value)).Results[0]
}

// Func creates a func.func named name of the given type with an entry block
// whose arguments match the inputs; the builder's insertion point is left
// unchanged. Use AtEnd(fn.Regions[0].Entry(), loc) to fill the body.
func (b *Builder) Func(name string, typ *FunctionType) *Operation {
	op := b.CreateWithRegions("func.func", nil, nil, 1,
		Named("sym_name", Str(name)), Named("function_type", TypeAttrOf(typ)))
	entry := NewBlock()
	for _, t := range typ.Inputs {
		entry.AddArgument(t, b.Loc)
	}
	op.Regions[0].AddBlock(entry)
	return op
}

// Return creates "func.return" of vals.
func (b *Builder) Return(vals ...*Value) *Operation {
	return b.Create("func.return", vals, nil)
}
