package gpu

import (
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/status"
)

// DistributeTiles turns a tile-level kernel (one thread per workgroup,
// each workgroup one tile of the work) into a thread-level kernel in which
// each thread runs one tile: threads consecutive threads of a workgroup
// take consecutive tiles along the grid's x dimension. The grid's x
// dimension shrinks to ceil(tiles / threads); in the body, the tile's x
// index replaces WorkgroupID(0) and the tile count WorkgroupCount(0), and
// threads past the last tile do nothing. The y and z dimensions are
// unchanged. The kernel is rewritten in place.
//
// Tile-level kernels with workgroup memory (a workgroup's scratch tile)
// or thread-level ops cannot be distributed this way: that is an
// INTERNAL error (the GPU strategy does not make them).
func DistributeTiles(k *kir.Kernel, threads int) error {
	if threads < 1 {
		return status.Errorf(status.Internal, "gpu: distributing %s over %d threads", k.Name, threads)
	}
	if k.WorkgroupSize != [3]int{1, 1, 1} {
		return status.Errorf(status.Internal, "gpu: %s is already a thread-level kernel (workgroup size %v)", k.Name, k.WorkgroupSize)
	}
	if len(k.Shared) > 0 {
		return status.Errorf(status.Internal, "gpu: %s has workgroup memory, which a tile-per-thread kernel cannot share", k.Name)
	}
	if op := findKind(k.Body, kir.Barrier, kir.SubgroupReduce, kir.SubgroupShuffle, kir.ThreadID, kir.LaneID, kir.LoadShared, kir.StoreShared); op != nil {
		return status.Errorf(status.Internal, "gpu: %s is a tile-level kernel with a thread-level op (%v)", k.Name, op.Kind)
	}
	old := k.Body
	k.Body = &kir.Block{}
	b := &kir.Builder{K: k, Block: k.Body}
	// tile = workgroup x · threads + thread x; tiles = the grid's x
	// dimension before distribution, ceil(Static · Π push ÷ Tile).
	i64 := kir.S(kir.Index)
	tile := b.Bin(kir.Add, b.Bin(kir.Mul, b.EmitImm(kir.WorkgroupID, i64, 0), b.Idx(int64(threads))), b.EmitImm(kir.ThreadID, i64, 0))
	g := k.Grid[0]
	n := b.Idx(g.Static)
	for _, pc := range g.PushConstants {
		n = b.Bin(kir.Mul, n, b.EmitImm(kir.PushConstant, i64, int64(pc)))
	}
	tiles := b.Bin(kir.CeilDivS, n, b.Idx(g.Tile))
	inside := b.EmitImm(kir.CmpI, kir.S(kir.I1), int64(kir.PredSLT), tile, tiles)
	sub := map[kir.Value]kir.Value{}
	rewriteIDs(old, sub, tile, tiles)
	renameArgs(old, sub)
	// The old body's terminator yields nothing; it becomes the branch's.
	b.Append(&kir.Op{Kind: kir.If, Args: []kir.Value{inside}, Regions: []*kir.Block{old, {Ops: []*kir.Op{{Kind: kir.Yield}}}}})
	b.Append(&kir.Op{Kind: kir.Yield})
	k.WorkgroupSize = [3]int{threads, 1, 1}
	k.Grid[0].Tile = g.Tile * int64(threads)
	return nil
}

// rewriteIDs removes the WorkgroupID(0) and WorkgroupCount(0) ops of blk
// (and of nested blocks), recording their results' replacements in sub.
func rewriteIDs(blk *kir.Block, sub map[kir.Value]kir.Value, tile, tiles kir.Value) {
	ops := blk.Ops[:0]
	for _, op := range blk.Ops {
		if (op.Kind == kir.WorkgroupID || op.Kind == kir.WorkgroupCount) && op.Imm == 0 {
			if op.Kind == kir.WorkgroupID {
				sub[op.Results[0]] = tile
			} else {
				sub[op.Results[0]] = tiles
			}
			continue
		}
		for _, r := range op.Regions {
			rewriteIDs(r, sub, tile, tiles)
		}
		ops = append(ops, op)
	}
	blk.Ops = ops
}

// renameArgs replaces every use of a value in sub by its replacement.
func renameArgs(blk *kir.Block, sub map[kir.Value]kir.Value) {
	for _, op := range blk.Ops {
		for i, a := range op.Args {
			if r, ok := sub[a]; ok {
				op.Args[i] = r
			}
		}
		for _, r := range op.Regions {
			renameArgs(r, sub)
		}
	}
}

// findKind returns the first op of one of kinds in blk or its nested
// blocks, or nil.
func findKind(blk *kir.Block, kinds ...kir.Kind) *kir.Op {
	for _, op := range blk.Ops {
		for _, k := range kinds {
			if op.Kind == k {
				return op
			}
		}
		for _, r := range op.Regions {
			if f := findKind(r, kinds...); f != nil {
				return f
			}
		}
	}
	return nil
}
