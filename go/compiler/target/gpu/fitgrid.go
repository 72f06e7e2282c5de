package gpu

import "github.com/gree-ml/gree/go/compiler/kir"

// FitGrid bounds each dimension of k's grid by t.MaxGrid (CUDA launches at
// most 65535 blocks along y and z, Vulkan devices often 65535 along each).
// A dimension whose tile count may exceed the limit gets GridDim.Max, so
// that the host launches at most that many workgroups along it, and the
// body becomes a loop over the dimension's tiles: workgroup i of the M
// launched runs tiles i, i+M, i+2M, … with WorkgroupID(d) the tile and
// WorkgroupCount(d) the real count, as if every tile had had a workgroup
// of its own. Shared allocations that start zeroed are zeroed again,
// between barriers, before every tile after a workgroup's first. The loop's
// bounds are uniform, so barriers and subgroup operations stay legal.
// Dimensions within the limit (every static one that fits) are unchanged,
// and so are those whose limit is the largest count a launch can take
// (2^31-1). A dynamic dimension (push constants) is fitted only on targets
// without a loop budget: on those with one (lavapipe's), the loop would
// make the kernel's trip count unknown and its inner loops unrolled, so a
// dynamic grid past the limit stays the driver's clear error there.
func FitGrid(k *kir.Kernel, t *Target) {
	for d := range 3 {
		lim := int64(t.MaxGrid[d])
		if lim <= 0 || lim >= 1<<31-1 || k.Grid[d].Max > 0 && k.Grid[d].Max <= lim {
			continue
		}
		n, static := staticTiles(k.Grid[d])
		if static && n <= lim || !static && t.MaxLoopIterations > 0 {
			continue
		}
		fitDim(k, d, lim)
	}
}

// fitDim makes dimension d of k's grid a loop over its tiles, launching at
// most lim workgroups along it.
func fitDim(k *kir.Kernel, d int, lim int64) {
	g := k.Grid[d]
	ops := k.Body.Ops
	if n := len(ops); n > 0 && ops[n-1].Kind == kir.Yield {
		ops = ops[:n-1]
	}
	k.Body = &kir.Block{}
	b := &kir.Builder{K: k, Block: k.Body}
	n := b.Idx(g.Static)
	for _, pc := range g.PushConstants {
		n = b.Bin(kir.Mul, n, b.EmitImm(kir.PushConstant, kir.S(kir.Index), int64(pc)))
	}
	tiles := b.Bin(kir.CeilDivS, n, b.Idx(max(g.Tile, 1)))
	first := b.EmitImm(kir.WorkgroupID, kir.S(kir.Index), int64(d))
	launched := b.EmitImm(kir.WorkgroupCount, kir.S(kir.Index), int64(d))
	b.For(first, tiles, launched, nil, func(b *kir.Builder, tile kir.Value, _ []kir.Value) []kir.Value {
		if zeroed(k) {
			again := b.Cmp(kir.CmpI, kir.PredNE, tile, first)
			b.If(again, nil, func(b *kir.Builder) []kir.Value {
				b.Barrier()
				zeroShared(b)
				b.Barrier()
				return nil
			}, nil)
		}
		body := &kir.Block{Ops: ops}
		sub := map[kir.Value]kir.Value{}
		rewriteIDs(body, sub, d, tile, tiles)
		renameArgs(body, sub)
		b.Block.Ops = append(b.Block.Ops, body.Ops...)
		return nil
	})
	b.Append(&kir.Op{Kind: kir.Yield})
	k.Grid[d].Max = lim
}

// zeroed reports whether k has a shared allocation that starts zeroed.
func zeroed(k *kir.Kernel) bool {
	for _, s := range k.Shared {
		if !s.Scratch {
			return true
		}
	}
	return false
}

// zeroShared stores zeros into every element of the kernel's shared
// allocations that start zeroed, the workgroup's threads taking
// consecutive elements.
func zeroShared(b *kir.Builder) {
	k := b.K
	x := b.Query(kir.ThreadID, 0)
	y := b.Query(kir.ThreadID, 1)
	z := b.Query(kir.ThreadID, 2)
	sx, sy := b.Idx(int64(k.WorkgroupSize[0])), b.Idx(int64(k.WorkgroupSize[1]))
	lin := b.Bin(kir.Add, x, b.Bin(kir.Mul, sx, b.Bin(kir.Add, y, b.Bin(kir.Mul, sy, z))))
	threads := b.Idx(int64(k.WorkgroupSize[0] * k.WorkgroupSize[1] * k.WorkgroupSize[2]))
	for i, s := range k.Shared {
		if s.Scratch {
			continue
		}
		b.For(lin, b.Idx(s.Count), threads, nil, func(b *kir.Builder, j kir.Value, _ []kir.Value) []kir.Value {
			var zero kir.Value
			if s.Elem.IsFloat() {
				zero = b.Float(kir.S(s.Elem), 0)
			} else {
				zero = b.Int(kir.S(s.Elem), 0)
			}
			b.StoreShared(i, j, zero)
			return nil
		})
	}
}
