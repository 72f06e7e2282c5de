package ir

// Mapping records which value replaces which while cloning.
type Mapping map[*Value]*Value

// Lookup returns the replacement of v, or v itself.
func (m Mapping) Lookup(v *Value) *Value {
	if r, ok := m[v]; ok {
		return r
	}
	return v
}

// Clone inserts a copy of op at b's insertion point, with operands
// remapped through m (values not in m are used as they are), nested
// regions copied recursively, and the new results recorded in m.
func (b *Builder) Clone(op *Operation, m Mapping) *Operation {
	st := &OperationState{Name: op.Name, Loc: op.Loc, Attrs: op.Attrs}
	for _, v := range op.Operands {
		st.Operands = append(st.Operands, m.Lookup(v))
	}
	for _, r := range op.Results {
		st.ResultTypes = append(st.ResultTypes, r.Type)
	}
	blockMap := map[*Block]*Block{}
	for _, r := range op.Regions {
		nr := st.AddRegion()
		for _, blk := range r.Blocks {
			nb := NewBlock()
			for _, a := range blk.Args {
				m[a] = nb.AddArgument(a.Type, a.Loc)
			}
			blockMap[blk] = nb
			nr.AddBlock(nb)
		}
	}
	for _, s := range op.Successors {
		if nb, ok := blockMap[s]; ok {
			st.Successors = append(st.Successors, nb)
		} else {
			st.Successors = append(st.Successors, s)
		}
	}
	nop := b.Insert(NewOperation(st))
	for i, r := range op.Results {
		m[r] = nop.Results[i]
	}
	for ri, r := range op.Regions {
		for bi, blk := range r.Blocks {
			inner := AtEnd(nop.Regions[ri].Blocks[bi], b.Loc)
			for _, o := range blk.Ops {
				c := inner.Clone(o, m)
				for si, s := range c.Successors {
					if nb, ok := blockMap[s]; ok {
						c.Successors[si] = nb
					}
				}
			}
		}
	}
	return nop
}
