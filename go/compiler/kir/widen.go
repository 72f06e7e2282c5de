package kir

// WidenIndices rewrites k, in place, so that every index is i64 again: a
// kernel legalized for a target without 64-bit integers computes its
// indices in i32 (IsIndexType), which targets whose index registers are
// 64-bit (vmvx) run after this rewrite. Queries with an i32 result
// (push constants, ids, sizes) become i64 queries truncated to i32; a
// push constant read as vector<2xi32> (both words) is rebuilt from the
// i64; i32 offsets, strides and shuffle lanes are sign-extended where
// they are used; a loop with i32 bounds counts in i64 and its body sees
// the counter truncated. The values the kernel computes are unchanged
// (indices lie in the int32 range: see IsIndexType).
func WidenIndices(k *Kernel) {
	widenBlock(k, k.Body)
}

func widenBlock(k *Kernel, blk *Block) {
	b := &Builder{K: k, Block: &Block{Args: blk.Args}}
	i64 := S(I64)
	ext := func(v Value) Value {
		if k.Types[v].Elem == I32 && !k.Types[v].IsVector() {
			return b.Emit(ExtS, i64, v)
		}
		return v
	}
	for _, op := range blk.Ops {
		for _, r := range op.Regions {
			widenBlock(k, r)
		}
		switch op.Kind {
		case PushConstant, WorkgroupID, WorkgroupCount, ThreadID, WorkgroupSize, SubgroupSize, LaneID:
			rt := k.Types[op.Results[0]]
			if rt.Elem != I32 {
				break
			}
			old := op.Results[0]
			wide := b.NewValue(i64)
			op.Results = []Value{wide}
			b.Append(op)
			if rt.IsVector() {
				lo := b.Emit(TruncI, S(I32), wide)
				hi := b.Emit(TruncI, S(I32), b.Bin(ShrU, wide, b.Int(i64, 32)))
				v := b.Emit(Broadcast, rt, lo)
				b.Append(&Op{Kind: Insert, Results: []Value{old}, Args: []Value{v, hi}, Imm: 1})
			} else {
				b.Append(&Op{Kind: TruncI, Results: []Value{old}, Args: []Value{wide}})
			}
			continue
		case Load, LoadShared:
			op.Args[0] = ext(op.Args[0])
		case Store, StoreShared, AtomicRMW, FetchAdd, SpinUntil:
			op.Args[0] = ext(op.Args[0])
		case LoadStrided:
			op.Args[0], op.Args[1] = ext(op.Args[0]), ext(op.Args[1])
		case StoreStrided:
			op.Args[0], op.Args[1] = ext(op.Args[0]), ext(op.Args[1])
		case SubgroupShuffle:
			op.Args[1] = ext(op.Args[1])
		case For:
			if k.Types[op.Args[0]].Elem != I32 {
				break
			}
			for i := 0; i < 3; i++ {
				op.Args[i] = ext(op.Args[i])
			}
			body := op.Regions[0]
			old := body.Args[0]
			wide := b.NewValue(i64)
			body.Args[0] = wide
			body.Ops = append([]*Op{{Kind: TruncI, Results: []Value{old}, Args: []Value{wide}}}, body.Ops...)
		}
		b.Append(op)
	}
	blk.Ops = b.Block.Ops
}
