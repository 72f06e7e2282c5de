package kir

// Builder appends ops to a block of a kernel, allocating result values.
type Builder struct {
	K     *Kernel
	Block *Block
}

// NewKernel returns an empty kernel with a body block and a builder on it.
func NewKernel(name string) (*Kernel, *Builder) {
	k := &Kernel{Name: name, Body: &Block{}, WorkgroupSize: [3]int{1, 1, 1}}
	for i := range k.Grid {
		k.Grid[i] = GridDim{Static: 1, Tile: 1}
	}
	return k, &Builder{K: k, Block: k.Body}
}

// NewValue allocates a value of type t.
func (b *Builder) NewValue(t Type) Value {
	b.K.Types = append(b.K.Types, t)
	return Value(len(b.K.Types) - 1)
}

// Append adds op to the current block.
func (b *Builder) Append(op *Op) *Op {
	b.Block.Ops = append(b.Block.Ops, op)
	return op
}

// Emit appends an op of kind with one result of type t.
func (b *Builder) Emit(kind Kind, t Type, args ...Value) Value {
	v := b.NewValue(t)
	b.Append(&Op{Kind: kind, Results: []Value{v}, Args: args})
	return v
}

// EmitImm is Emit with an immediate.
func (b *Builder) EmitImm(kind Kind, t Type, imm int64, args ...Value) Value {
	v := b.NewValue(t)
	b.Append(&Op{Kind: kind, Results: []Value{v}, Args: args, Imm: imm})
	return v
}

// Int returns an integer constant of type t.
func (b *Builder) Int(t Type, x int64) Value { return b.EmitImm(ConstInt, t, x) }

// Idx returns an index (i64) constant.
func (b *Builder) Idx(x int64) Value { return b.Int(S(Index), x) }

// Float returns a float constant of type t.
func (b *Builder) Float(t Type, x float64) Value {
	v := b.NewValue(t)
	b.Append(&Op{Kind: ConstFloat, Results: []Value{v}, F: x})
	return v
}

// Bin emits a binary op whose result has the type of a.
func (b *Builder) Bin(kind Kind, a, c Value) Value { return b.Emit(kind, b.K.Type(a), a, c) }

// Load emits a load of type t from binding at offset.
func (b *Builder) Load(binding int, t Type, off Value) Value {
	v := b.NewValue(t)
	b.Append(&Op{Kind: Load, Results: []Value{v}, Args: []Value{off}, Binding: binding})
	return v
}

// Store emits a store of val to binding at offset.
func (b *Builder) Store(binding int, off, val Value) {
	b.Append(&Op{Kind: Store, Args: []Value{off, val}, Binding: binding})
}

// For emits a loop from lo to hi by step with loop-carried inits and
// builds its body with body(iv, iters), which returns the values to yield.
// It returns the loop's results.
func (b *Builder) For(lo, hi, step Value, inits []Value, body func(b *Builder, iv Value, iters []Value) []Value) []Value {
	blk := &Block{}
	iv := b.NewValue(S(Index))
	blk.Args = append(blk.Args, iv)
	iters := make([]Value, len(inits))
	results := make([]Value, len(inits))
	for i, in := range inits {
		iters[i] = b.NewValue(b.K.Type(in))
		results[i] = b.NewValue(b.K.Type(in))
	}
	blk.Args = append(blk.Args, iters...)
	op := &Op{Kind: For, Args: append([]Value{lo, hi, step}, inits...), Results: results, Regions: []*Block{blk}}
	inner := &Builder{K: b.K, Block: blk}
	yields := body(inner, iv, iters)
	inner.Append(&Op{Kind: Yield, Args: yields})
	b.Append(op)
	return results
}

// If emits a conditional with result types ts; then and els build the
// branches and return the values to yield (els may be nil when ts is
// empty).
func (b *Builder) If(cond Value, ts []Type, then, els func(b *Builder) []Value) []Value {
	results := make([]Value, len(ts))
	for i, t := range ts {
		results[i] = b.NewValue(t)
	}
	tb, eb := &Block{}, &Block{}
	ib := &Builder{K: b.K, Block: tb}
	ib.Append(&Op{Kind: Yield, Args: then(ib)})
	if els != nil {
		ebld := &Builder{K: b.K, Block: eb}
		ebld.Append(&Op{Kind: Yield, Args: els(ebld)})
	} else {
		eb.Ops = append(eb.Ops, &Op{Kind: Yield})
	}
	b.Append(&Op{Kind: If, Args: []Value{cond}, Results: results, Regions: []*Block{tb, eb}})
	return results
}
