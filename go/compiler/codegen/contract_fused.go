package codegen

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// fusedEpilogue is an epilogue a tile op fuses into its stores.
type fusedEpilogue struct {
	epi   linalg.Generic
	chain epiChain
	done  bool // the tile op took it (else it is swept after)
}

// matchContractChain reports whether epi, consuming matmul-shaped root
// (or, with taps, a tapped contraction), is a chain the Contract tile op
// fuses (matchEpiChain): a bias per row or per column of C, a residual
// indexed like C, bounds.
func matchContractChain(root, epi linalg.Generic, taps bool) (epiChain, bool) {
	sh, _, ok := matchAnyContract(root, taps)
	if !ok {
		return epiChain{}, false
	}
	return matchEpiChain(root, epi, []int{sh.M, sh.N}, true)
}

// fusedContractEpilogue binds what f's chain reads and returns it as the
// Contract's epilogue over tile t; base gives a tensor's offset of the
// workgroup's batch.
func (g *gen) fusedContractEpilogue(f *fusedEpilogue, t *contractTile, base func(*ir.Value, *ir.AffineMap) kir.Value) (kir.ContractEpilogue, error) {
	e := kir.NoContractEpilogue
	epi, ch := f.epi, f.chain
	en, err := newEpilogue(t.l.op, epi, nil)
	if err != nil {
		return e, err
	}
	top := g.b
	bind := func(i int) (*ir.Value, int, error) {
		in := epi.Inputs()[i]
		b, err := g.bind(in, kir.Read)
		if err != nil {
			return nil, -1, ir.OpErrorf(epi.Op, "%v", err)
		}
		return in, b, nil
	}
	if ch.bias >= 0 {
		in, b, err := bind(ch.bias)
		if err != nil {
			return e, err
		}
		first := t.m0
		if ch.biasLoop == t.sh.N {
			first, e.PerColumn = t.n0, true
		}
		st := g.strideFor(in, en.maps[ch.bias], ch.biasLoop)
		e.Bias, e.BiasOff, e.BiasStride = b, top.Bin(kir.Mul, first, st), st
	}
	if ch.res >= 0 {
		in, b, err := bind(ch.res)
		if err != nil {
			return e, err
		}
		m := en.maps[ch.res]
		rs, cs := g.strideFor(in, m, t.sh.M), g.strideFor(in, m, t.sh.N)
		e.Res, e.ResRS, e.ResCS = b, rs, cs
		e.ResOff = top.Bin(kir.Add, base(in, m), top.Bin(kir.Add, top.Bin(kir.Mul, t.m0, rs), top.Bin(kir.Mul, t.n0, cs)))
	}
	for _, x := range []struct {
		v   *ir.Value
		dst *kir.Value
	}{{ch.lo, &e.Lo}, {ch.hi, &e.Hi}} {
		if x.v == nil {
			continue
		}
		if *x.dst, err = g.epilogueBound(epi, x.v); err != nil {
			return e, ir.OpErrorf(epi.Op, "%v", err)
		}
	}
	return e, nil
}
