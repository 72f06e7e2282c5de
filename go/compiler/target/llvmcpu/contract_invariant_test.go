package llvmcpu_test

import (
	"math/rand/v2"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// TestContractTileInvariant checks that a Contract's results do not depend
// on how codegen tiles C: each element's k-sum is the same fused
// multiply-adds in the same order whether its row falls in a full
// register block, a remainder row, a one-row tile or a tile of any
// height. (A program whose batch is static gets smaller tiles than its
// dynamic twin; both must give the same bits.)
func TestContractTileInvariant(t *testing.T) {
	m := needLLVM(t)
	r := rand.New(rand.NewPCG(11, 12))
	shapes := []gemm{
		rowMajor("bt_m36n2k32", 36, 2, 32, true),
		rowMajor("m36n2k32", 36, 2, 32, false),
		rowMajor("m37n49k40", 37, 49, 40, false),
		rowMajor("bt_m37n49k40", 37, 49, 40, true),
		rowMajor("m70n300k20", 70, 300, 20, false),
		rowMajor("m20n17k600", 20, 17, 600, false),
	}
	tiles := [][2]int64{{96, 128}, {32, 128}, {4, 128}, {1, 128}, {96, 16}, {7, 5}}
	for _, g := range shapes {
		sz := g.sizes()
		a, bb := enc(kir.F32, randFloats(r, int(sz[0]), 1)), enc(kir.F32, randFloats(r, int(sz[1]), 1))
		var want []byte
		for _, tl := range tiles {
			k, grid := tiledContract(g, tl[0], tl[1])
			x := build(t, m, k)
			c := make([]byte, 4*sz[2])
			if err := x.Run(0, 0, grid[0]*grid[1]*grid[2], grid, nil, [][]byte{a, bb, c}); err != nil {
				t.Fatal(err)
			}
			if want == nil {
				want = c
				continue
			}
			for i := 0; i < len(c); i += 4 {
				if string(c[i:i+4]) != string(want[i:i+4]) {
					t.Errorf("%s: tile %dx%d: C element %d = %v, tile %dx%d gave %v", g.name, tl[0], tl[1], i/4,
						value(kir.F32, c[i:]), tiles[0][0], tiles[0][1], value(kir.F32, want[i:]))
					break
				}
			}
		}
	}
}
