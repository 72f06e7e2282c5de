package ir

import "strings"

// Operation is one op: a dotted name, operands, results, a sorted attribute
// dictionary, nested regions, successor blocks and a location. Attrs must
// stay sorted by name; use SetAttr and RemoveAttr to change it.
type Operation struct {
	Name       string
	Operands   []*Value
	Results    []*Value
	Attrs      []NamedAttr
	Regions    []*Region
	Successors []*Block
	Loc        Location

	block *Block
}

// Value is an SSA value: an operation result or a block argument.
type Value struct {
	Type Type
	Loc  Location // block arguments only; nil otherwise

	op    *Operation
	block *Block
	index int
}

// Block is a list of operations with arguments, inside a Region.
type Block struct {
	Args []*Value
	Ops  []*Operation

	region *Region
}

// Region is a list of blocks owned by an operation; the first is the entry
// block.
type Region struct {
	Blocks []*Block

	op *Operation
}

// Owner returns the operation that defines v, or nil for a block argument.
func (v *Value) Owner() *Operation { return v.op }

// ArgBlock returns the block whose argument v is, or nil for a result.
func (v *Value) ArgBlock() *Block { return v.block }

// IsBlockArgument reports whether v is a block argument.
func (v *Value) IsBlockArgument() bool { return v.block != nil }

// Index returns v's result number or argument number.
func (v *Value) Index() int { return v.index }

// ParentBlock returns the block where v is defined: the argument's block or
// the block of the defining operation.
func (v *Value) ParentBlock() *Block {
	if v.block != nil {
		return v.block
	}
	if v.op != nil {
		return v.op.block
	}
	return nil
}

// Dialect returns the part of the name before the first dot.
func (op *Operation) Dialect() string {
	d, _, _ := strings.Cut(op.Name, ".")
	return d
}

// Attr returns the attribute named name, or nil.
func (op *Operation) Attr(name string) Attribute { return GetAttr(op.Attrs, name) }

// SetAttr sets the attribute named name.
func (op *Operation) SetAttr(name string, v Attribute) { op.Attrs = SetAttr(op.Attrs, name, v) }

// RemoveAttr deletes the attribute named name, if present.
func (op *Operation) RemoveAttr(name string) { op.Attrs = RemoveAttr(op.Attrs, name) }

// Result returns result i.
func (op *Operation) Result(i int) *Value { return op.Results[i] }

// Block returns the block that contains op, or nil when op is detached.
func (op *Operation) Block() *Block { return op.block }

// ParentOp returns the operation whose region contains op, or nil.
func (op *Operation) ParentOp() *Operation {
	if op.block == nil {
		return nil
	}
	return op.block.ParentOp()
}

// AddRegion appends a new empty region to op and returns it.
func (op *Operation) AddRegion() *Region {
	r := &Region{op: op}
	op.Regions = append(op.Regions, r)
	return r
}

// Walk calls fn on op and every operation nested in it, in pre-order. When
// fn returns false the children of that operation are skipped.
func (op *Operation) Walk(fn func(*Operation) bool) {
	if !fn(op) {
		return
	}
	for _, r := range op.Regions {
		for _, b := range r.Blocks {
			for _, inner := range b.Ops {
				inner.Walk(fn)
			}
		}
	}
}

// Erase removes op from its block. Its results must no longer be used.
func (op *Operation) Erase() {
	if op.block != nil {
		op.block.Remove(op)
	}
}

// NewBlock returns a detached block with arguments of the given types.
func NewBlock(argTypes ...Type) *Block {
	b := &Block{}
	for _, t := range argTypes {
		b.AddArgument(t, nil)
	}
	return b
}

// AddArgument appends an argument of type t (location loc, may be nil).
func (b *Block) AddArgument(t Type, loc Location) *Value {
	v := &Value{Type: t, Loc: loc, block: b, index: len(b.Args)}
	b.Args = append(b.Args, v)
	return v
}

// Region returns the region that contains b, or nil.
func (b *Block) Region() *Region { return b.region }

// ParentOp returns the operation whose region contains b, or nil.
func (b *Block) ParentOp() *Operation {
	if b.region == nil {
		return nil
	}
	return b.region.op
}

// Append adds op at the end of b.
func (b *Block) Append(op *Operation) { b.Insert(len(b.Ops), op) }

// Insert places op at position i of b, detaching it from a previous block.
func (b *Block) Insert(i int, op *Operation) {
	if op.block != nil {
		op.block.Remove(op)
	}
	b.Ops = append(b.Ops, nil)
	copy(b.Ops[i+1:], b.Ops[i:])
	b.Ops[i] = op
	op.block = b
}

// IndexOf returns the position of op in b, or -1.
func (b *Block) IndexOf(op *Operation) int {
	for i, o := range b.Ops {
		if o == op {
			return i
		}
	}
	return -1
}

// Remove detaches op from b.
func (b *Block) Remove(op *Operation) {
	if i := b.IndexOf(op); i >= 0 {
		b.Ops = append(b.Ops[:i], b.Ops[i+1:]...)
		op.block = nil
	}
}

// Terminator returns the last operation of b, or nil when b is empty.
func (b *Block) Terminator() *Operation {
	if len(b.Ops) == 0 {
		return nil
	}
	return b.Ops[len(b.Ops)-1]
}

// ParentOp returns the operation that owns r, or nil.
func (r *Region) ParentOp() *Operation { return r.op }

// Entry returns the first block, or nil when r is empty.
func (r *Region) Entry() *Block {
	if len(r.Blocks) == 0 {
		return nil
	}
	return r.Blocks[0]
}

// AddBlock appends b to r.
func (r *Region) AddBlock(b *Block) {
	b.region = r
	r.Blocks = append(r.Blocks, b)
}

// ReplaceAllUsesWith makes every operand of root (and of the operations
// nested in it) that is from refer to to instead.
func ReplaceAllUsesWith(root *Operation, from, to *Value) {
	root.Walk(func(op *Operation) bool {
		for i, v := range op.Operands {
			if v == from {
				op.Operands[i] = to
			}
		}
		return true
	})
}
