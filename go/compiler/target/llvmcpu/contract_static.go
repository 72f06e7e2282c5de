package llvmcpu

import "github.com/gree-ml/gree/go/compiler/kir"

// maxStaticGrid bounds the workgroups mayNeedColBlocks evaluates sizes
// for; larger grids count as needing the column blocks.
const maxStaticGrid = 1 << 16

// mayNeedColBlocks reports whether any Contract of kernels may reach the
// row kernel of vl-lane vectors' column block (colBlock: N's last cols =
// colBlockCols(vl) columns, 49 with 16 lanes), that is whether one of its
// M or N sizes (either can be the row kernel's N: the entry swaps them
// for column-major C) may be cols + a multiple of nr = nv·vl. Sizes are
// evaluated for every workgroup of a static grid from constants,
// workgroup ids and counts, additions, subtractions, multiplications,
// minima and maxima (how codegen sizes tiles); a size computed any other
// way (a loop variable, a push constant, a load) may be anything. Without
// column blocks the row kernels are 15-20% less LLVM code (a
// transformer's module compiles 10% faster).
func mayNeedColBlocks(kernels []*kir.Kernel, vl int) bool {
	nr, cols := int64(nv*vl), int64(colBlockCols(vl))
	for _, k := range kernels {
		if kernelMayNeedColBlocks(k, nr, cols) {
			return true
		}
	}
	return false
}

func kernelMayNeedColBlocks(k *kir.Kernel, nr, cols int64) bool {
	def := map[kir.Value]*kir.Op{}
	var contracts []*kir.Op
	var walk func(b *kir.Block)
	walk = func(b *kir.Block) {
		for _, op := range b.Ops {
			for _, r := range op.Results {
				def[r] = op
			}
			if op.Kind == kir.Contract {
				contracts = append(contracts, op)
			}
			for _, rg := range op.Regions {
				walk(rg)
			}
		}
	}
	walk(k.Body)
	if len(contracts) == 0 {
		return false
	}
	var count [3]int64
	total := int64(1)
	for d, g := range k.Grid {
		if len(g.PushConstants) > 0 || g.Tile <= 0 {
			return true
		}
		count[d] = max(1, (g.Static+g.Tile-1)/g.Tile)
		if g.Max > 0 && count[d] > g.Max {
			return true
		}
		total *= count[d]
		if total > maxStaticGrid {
			return true
		}
	}
	var id [3]int64
	memo := map[kir.Value]int64{}
	var eval func(v kir.Value) (int64, bool)
	eval = func(v kir.Value) (int64, bool) {
		if x, ok := memo[v]; ok {
			return x, true
		}
		op := def[v]
		if op == nil || len(op.Results) != 1 {
			return 0, false // a block argument (loop variable) or worse
		}
		var x int64
		switch op.Kind {
		case kir.ConstInt:
			x = op.Imm
		case kir.WorkgroupID, kir.WorkgroupCount:
			if op.Imm < 0 || op.Imm > 2 {
				return 0, false
			}
			x = id[op.Imm]
			if op.Kind == kir.WorkgroupCount {
				x = count[op.Imm]
			}
		case kir.Add, kir.Sub, kir.Mul, kir.MinS, kir.MaxS:
			if len(op.Args) != 2 {
				return 0, false
			}
			a, ok1 := eval(op.Args[0])
			b, ok2 := eval(op.Args[1])
			if !ok1 || !ok2 {
				return 0, false
			}
			x, _ = foldInt(op.Kind, a, b) // every kind of this case folds
		default:
			return 0, false
		}
		memo[v] = x
		return x, true
	}
	for id[2] = 0; id[2] < count[2]; id[2]++ {
		for id[1] = 0; id[1] < count[1]; id[1]++ {
			for id[0] = 0; id[0] < count[0]; id[0]++ {
				clear(memo)
				for _, op := range contracts {
					if len(op.Args) < 12 {
						return true
					}
					for _, s := range op.Args[9:11] {
						x, ok := eval(s)
						if !ok || x >= cols && (x-cols)%nr == 0 {
							return true
						}
					}
				}
			}
		}
	}
	return false
}
