package gpu_test

import (
	"encoding/binary"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/gpu"
)

// gridKernel has workgroups of 4 threads over a grid of `tiles` tiles
// along y (static, or pc0 when dynamic). Each thread reads its element of
// a zeroed shared array, adds its tile index and stores it back; after a
// barrier it writes its neighbour's element and the tile count to the
// output: every output element is its tile's index when the shared array
// started zeroed for every tile, and the count is the real one.
func gridKernel(tiles int64, dynamic bool) *kir.Kernel {
	k, b := kir.NewKernel("grid")
	k.WorkgroupSize = [3]int{4, 1, 1}
	k.Bindings = []kir.Binding{{Elem: kir.I64, Access: kir.Write}}
	k.Shared = []kir.SharedAlloc{{Elem: kir.I64, Count: 4}}
	k.Grid[1] = kir.GridDim{Static: tiles, Tile: 1}
	if dynamic {
		k.NumPushConstants = 1
		k.Grid[1] = kir.GridDim{Static: 1, PushConstants: []int{0}, Tile: 1}
	}
	tid := b.Query(kir.ThreadID, 0)
	wg := b.Query(kir.WorkgroupID, 1)
	v := b.LoadShared(0, kir.S(kir.I64), tid)
	b.StoreShared(0, tid, b.Bin(kir.Add, v, wg))
	b.Barrier()
	next := b.Bin(kir.RemS, b.Bin(kir.Add, tid, b.Idx(1)), b.Idx(4))
	base := b.Bin(kir.Mul, wg, b.Idx(8))
	b.Store(0, b.Bin(kir.Add, base, tid), b.LoadShared(0, kir.S(kir.I64), next))
	b.Store(0, b.Bin(kir.Add, base, b.Bin(kir.Add, tid, b.Idx(4))), b.Query(kir.WorkgroupCount, 1))
	return k
}

func TestFitGridLoopsOverTilesPastTheLimit(t *testing.T) {
	const tiles = 23
	want := make([]byte, tiles*8*8)
	for i := int64(0); i < tiles; i++ {
		for j := int64(0); j < 8; j++ {
			v := i
			if j >= 4 {
				v = tiles
			}
			binary.LittleEndian.PutUint64(want[8*(8*i+j):], uint64(v))
		}
	}
	cudaT, err := gpu.CUDATarget("sm_80", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, dynamic := range []bool{false, true} {
		tg := *cudaT
		tg.MaxGrid = [3]int{1 << 20, 5, 5}
		k := gridKernel(tiles, dynamic)
		gpu.FitGrid(k, &tg)
		if k.Grid[1].Max != 5 {
			t.Fatalf("dynamic=%v: grid %+v, want y at most 5", dynamic, k.Grid)
		}
		out := [][]byte{make([]byte, len(want))}
		if err := kir.Run(k, [3]int64{1, 5, 1}, []int64{tiles}, out); err != nil {
			t.Fatalf("dynamic=%v: %v\n%s", dynamic, err, k.String())
		}
		if diff := cmp.Diff(want, out[0]); diff != "" {
			t.Errorf("dynamic=%v: output differs from one workgroup per tile (-want +got):\n%s", dynamic, diff)
		}
	}
	// Static grids within the limit, dynamic ones on targets with a loop
	// budget, and limits of 2^31-1 are left alone.
	for _, c := range []struct {
		tiles   int64
		dynamic bool
		tg      *gpu.Target
	}{{5, false, cudaT}, {23, true, gpu.Llvmpipe()}, {1 << 40, false, &gpu.Target{MaxGrid: [3]int{1<<31 - 1, 1<<31 - 1, 1}}}} {
		k := gridKernel(c.tiles, c.dynamic)
		before := k.String()
		gpu.FitGrid(k, c.tg)
		if after := k.String(); after != before {
			t.Errorf("tiles %d dynamic %v on %s: kernel changed:\n%s", c.tiles, c.dynamic, c.tg.Name, after)
		}
	}
}
