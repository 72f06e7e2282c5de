package codegen

import (
	"github.com/gree-ml/gree/go/compiler/flow"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
)

// Lower turns one dispatch region into a kernel named name.
func Lower(region *ir.Operation, name string, st Strategy) (*Dispatch, error) {
	body := region.Regions[0].Blocks[0]
	if op := extOp(body); op != nil {
		return lowerExt(region, op, name, st)
	}
	if region.Attr(flow.RecurrenceAttr) != nil {
		return lowerRecurrenceRegion(region, name, st)
	}
	ret := body.Terminator()
	gens, others := flow.RegionGenerics(region)
	if len(gens) == 4 && len(others) == 1 {
		if cc, ok := matchConvChain(gens, others[0], st); ok && others[0].Operands[0] == gens[1].Op.Results[0] &&
			len(ret.Operands) == 1 && ret.Operands[0] == gens[3].Op.Results[0] {
			g := newGen(region, name, st)
			if err := g.lowerConvChain(cc, region.Results); err != nil {
				return nil, err
			}
			g.b.Append(&kir.Op{Kind: kir.Yield})
			return g.d, nil
		}
	}
	if len(others) > 0 {
		return nil, ir.OpErrorf(others[0], "cannot be part of a dispatch")
	}
	if len(gens) == 0 || len(gens) > 2 {
		return nil, ir.OpErrorf(region, "holds %d linalg.generic ops; codegen supports a root with at most one epilogue", len(gens))
	}
	// The last generic produces the region's results; a first one is the
	// root it consumes (flow.EpilogueRoot).
	gen0 := gens[len(gens)-1]
	results := make([]*ir.Value, len(gen0.Op.Results))
	for k, v := range ret.Operands {
		if v.Owner() == gen0.Op {
			results[v.Index()] = region.Results[k]
		}
	}
	for j, r := range results {
		if r == nil {
			return nil, ir.OpErrorf(gen0.Op, "result %d is not returned by its dispatch region", j)
		}
	}
	if len(gens) == 2 {
		g := newGen(region, name, st)
		// A contraction root that maps to the Contract tile op keeps its
		// result in memory (the epilogue's result, or its own when the
		// region returns it); the epilogue then sweeps each workgroup's tile.
		var rootResult *ir.Value
		for k, v := range ret.Operands {
			if v.Owner() == gens[0].Op {
				rootResult = region.Results[k]
			}
		}
		if st.DWConv {
			if ok, err := g.lowerDWConvEpilogue(gens[0], gen0, rootResult, results); ok || err != nil {
				if err != nil {
					return nil, err
				}
				g.b.Append(&kir.Op{Kind: kir.Yield})
				return g.d, nil
			}
		}
		if st.Contract {
			if ok, err := g.lowerContractEpilogue(gens[0], gen0, rootResult, results); ok || err != nil {
				if err != nil {
					return nil, err
				}
				g.b.Append(&kir.Op{Kind: kir.Yield})
				return g.d, nil
			}
		}
		if err := g.lowerWithEpilogue(gens[0], gen0, results); err != nil {
			return nil, err
		}
		g.b.Append(&kir.Op{Kind: kir.Yield})
		return g.d, nil
	}
	g := newGen(region, name, st)
	if st.DWConv {
		if ok, err := g.lowerDWConv(gen0, results); ok || err != nil {
			if err == nil {
				g.b.Append(&kir.Op{Kind: kir.Yield})
			}
			return g.d, err
		}
	}
	if st.Contract {
		if ok, err := g.lowerContract(gen0, results); ok || err != nil {
			if err == nil {
				g.b.Append(&kir.Op{Kind: kir.Yield})
			}
			return g.d, err
		}
	}
	if err := g.lowerGeneric(gen0, results); err != nil {
		return nil, err
	}
	g.b.Append(&kir.Op{Kind: kir.Yield})
	return g.d, nil
}
