package gpu

import (
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/status"
)

// DistributeTiles turns a tile-level kernel (one thread per workgroup,
// each workgroup one tile of the work) into a thread-level kernel in which
// each thread runs one tile. Consecutive threads take consecutive tiles
// along the grid's x dimension; where x has fewer tiles than threads (a
// static count) and the grid has a y dimension, a workgroup spans the
// next power of two of x's tiles and its other threads take tiles along
// y. The grid shrinks accordingly; in the body, the tile's x and y indices
// replace WorkgroupID(0) and WorkgroupID(1), the tile counts
// WorkgroupCount, and threads past the last tile do nothing. The z
// dimension is unchanged. The kernel is rewritten in place.
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
	// Threads along x (tx) and y (ty).
	tx, ty := threads, 1
	if n, ok := staticTiles(k.Grid[0]); ok && n < int64(threads) {
		if m, ok := staticTiles(k.Grid[1]); !ok || m > 1 {
			tx = 1
			for int64(tx) < n {
				tx *= 2
			}
			ty = threads / tx
		}
	}
	old := k.Body
	k.Body = &kir.Block{}
	b := &kir.Builder{K: k, Block: k.Body}
	tid := b.EmitImm(kir.ThreadID, kir.S(kir.Index), 0)
	sub := map[kir.Value]kir.Value{}
	var inside kir.Value = -1
	for d, t := range [2]int{tx, ty} {
		if d == 1 && t == 1 {
			continue
		}
		// tile = workgroup · t + this thread's index along d; tiles = the
		// dimension's count before distribution.
		mine := tid
		if d == 0 && ty > 1 {
			mine = b.Bin(kir.RemS, tid, b.Idx(int64(tx)))
		} else if d == 1 {
			mine = b.Bin(kir.DivS, tid, b.Idx(int64(tx)))
		}
		tile := b.Bin(kir.Add, b.Bin(kir.Mul, b.EmitImm(kir.WorkgroupID, kir.S(kir.Index), int64(d)), b.Idx(int64(t))), mine)
		g := k.Grid[d]
		n := b.Idx(g.Static)
		for _, pc := range g.PushConstants {
			n = b.Bin(kir.Mul, n, b.EmitImm(kir.PushConstant, kir.S(kir.Index), int64(pc)))
		}
		tiles := b.Bin(kir.CeilDivS, n, b.Idx(g.Tile))
		in := b.EmitImm(kir.CmpI, kir.S(kir.I1), int64(kir.PredSLT), tile, tiles)
		if inside < 0 {
			inside = in
		} else {
			inside = b.Bin(kir.And, inside, in)
		}
		rewriteIDs(old, sub, d, tile, tiles)
		k.Grid[d].Tile = g.Tile * int64(t)
	}
	renameArgs(old, sub)
	// The old body's terminator (a kernel body may also end without one)
	// yields nothing; it becomes the branch's.
	if n := len(old.Ops); n == 0 || old.Ops[n-1].Kind != kir.Yield {
		old.Ops = append(old.Ops, &kir.Op{Kind: kir.Yield})
	}
	b.Append(&kir.Op{Kind: kir.If, Args: []kir.Value{inside}, Regions: []*kir.Block{old, {Ops: []*kir.Op{{Kind: kir.Yield}}}}})
	b.Append(&kir.Op{Kind: kir.Yield})
	k.WorkgroupSize = [3]int{threads, 1, 1}
	return nil
}

// staticTiles returns a grid dimension's count when it is static.
func staticTiles(g kir.GridDim) (int64, bool) {
	if len(g.PushConstants) > 0 || g.Tile <= 0 {
		return 0, false
	}
	return (g.Static + g.Tile - 1) / g.Tile, true
}

// rewriteIDs removes the WorkgroupID(d) and WorkgroupCount(d) ops of blk
// (and of nested blocks), recording their results' replacements in sub.
func rewriteIDs(blk *kir.Block, sub map[kir.Value]kir.Value, d int, tile, tiles kir.Value) {
	ops := blk.Ops[:0]
	for _, op := range blk.Ops {
		if (op.Kind == kir.WorkgroupID || op.Kind == kir.WorkgroupCount) && op.Imm == int64(d) {
			if op.Kind == kir.WorkgroupID {
				sub[op.Results[0]] = tile
			} else {
				sub[op.Results[0]] = tiles
			}
			continue
		}
		for _, r := range op.Regions {
			rewriteIDs(r, sub, d, tile, tiles)
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
