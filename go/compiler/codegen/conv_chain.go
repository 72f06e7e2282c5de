package codegen

import (
	"github.com/gree-ml/gree/go/compiler/flow"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// A convolution chain is a 1×1 convolution as a matmul (channels ×
// pixels, with a fused bias and clamp) whose result, reshaped to one NCHW
// image, only a depthwise convolution (with its fused bias and clamp)
// reads: MobileNetV2's expansion and depthwise layers. One kernel
// computes both: each workgroup takes a block of channels and a strip of
// output rows, computes the expansion of the input rows the strip's
// windows read into workgroup scratch (a Contract), then convolves the
// scratch (a DWConv). The expanded tensor (1.8 MB at MobileNetV2's
// 56×56 layers) is never written to memory, and one dispatch goes. The
// rows two strips' windows share are computed by both.
type convChain struct {
	root1, epi1 linalg.Generic // the 1×1 convolution and its epilogue
	root2, epi2 linalg.Generic // the depthwise convolution and its epilogue
	sh          contractShape
	ch          epiChain // epi1's chain
	s           dwShape
	C, K        int64 // channels, input channels
	OH, OW      int64
	kh, kw      int64 // the depthwise window
	cb, rs      int64 // channels per workgroup, output rows per strip
	rows        int64 // rows of scratch per channel
}

// ChainLowerable reports whether codegen lowers the chain of dispatch
// regions producer → reshape → consumer (flow.MergeChains) as one kernel
// under st: producer a 1×1 convolution and its epilogue, reshape (of the
// producer's result) to the NCHW image consumer's depthwise convolution
// reads.
func ChainLowerable(producer, reshape, consumer *ir.Operation, st Strategy) bool {
	p, po := flow.RegionGenerics(producer)
	c, co := flow.RegionGenerics(consumer)
	if reshape == nil || len(p) != 2 || len(c) != 2 || len(po) != 0 || len(co) != 0 || len(consumer.Results) != 1 ||
		c[0].Op.Operands[0] != reshape.Results[0] {
		return false
	}
	_, ok := matchConvChain(append(p, c...), reshape, st)
	return ok
}

// matchConvChain matches gens (1×1 convolution, its epilogue, depthwise
// convolution, its epilogue) and reshape as a chain codegen lowers under
// st, with its tiling.
func matchConvChain(gens []linalg.Generic, reshape *ir.Operation, st Strategy) (*convChain, bool) {
	if st.ConvChainChannels <= 0 || len(gens) != 4 || reshape == nil || reshape.Name != "tensor.reshape" {
		return nil, false
	}
	cc := &convChain{root1: gens[0], epi1: gens[1], root2: gens[2], epi2: gens[3]}
	sh, ok := matchContract(cc.root1)
	if !ok || sh.Batch >= 0 || !flow.EpilogueInPlace(cc.root1.Op, cc.epi1.Op) {
		return nil, false
	}
	// C is channels × pixels, row-major, and starts at +0.
	out, ok := dimPositions(cc.root1.Maps()[2])
	if !ok || len(out) != 2 || out[0] != sh.M || out[1] != sh.N {
		return nil, false
	}
	if fill := flow.FillScalar(cc.root1.Op.Operands[2]); fill == nil || !isPositiveZero(fill) {
		return nil, false
	}
	ch, ok := matchContractChain(cc.root1, cc.epi1, false)
	if !ok || ch.res >= 0 || (ch.bias >= 0 && ch.biasLoop != sh.M) {
		return nil, false
	}
	cc.sh, cc.ch = sh, ch
	ct, ok1 := cc.epi1.Op.Results[0].Type.(*ir.RankedTensorType)
	rt, ok2 := reshape.Results[0].Type.(*ir.RankedTensorType)
	at, ok3 := cc.root1.Op.Operands[0].Type.(*ir.RankedTensorType)
	if !ok1 || !ok2 || !ok3 || len(ct.Dims) != 2 || len(rt.Dims) != 4 || len(at.Dims) != 2 || !ct.Equal(reshape.Operands[0].Type) {
		return nil, false
	}
	C, N := ct.Dims[0], ct.Dims[1]
	if C < 1 || N < 1 || rt.Dims[0] != 1 || rt.Dims[1] != C || rt.Dims[2] < 1 || rt.Dims[2]*rt.Dims[3] != N {
		return nil, false
	}
	cc.C, cc.K = C, at.Dims[1]
	if cc.K < 1 || at.Dims[0] != C {
		return nil, false
	}
	// The depthwise convolution of the reshaped image, whose result the
	// epilogue overwrites.
	s, sizes, ok := matchDWConv(cc.root2)
	if !ok || s.ci >= 0 || cc.root2.Op.Operands[0] != reshape.Results[0] || s.H != rt.Dims[2] || s.W != rt.Dims[3] ||
		sizes[s.c] != C || sizes[s.n] != 1 || !canFuseDWEpilogue(cc.root2, cc.epi2) || !flow.EpilogueInPlace(cc.root2.Op, cc.epi2.Op) {
		return nil, false
	}
	if fill := flow.FillScalar(cc.root2.Op.Operands[2]); fill == nil || !isPositiveZero(fill) {
		return nil, false
	}
	if om, ok := dimPositions(cc.root2.Maps()[2]); !ok || om[0] != s.n || om[1] != s.c || om[2] != s.y || om[3] != s.x {
		return nil, false
	}
	if s.W > chainMaxWidth {
		return nil, false
	}
	cc.s, cc.OH, cc.OW, cc.kh, cc.kw = s, sizes[s.y], sizes[s.x], sizes[s.i], sizes[s.j]
	// Strips: as many output rows as fit the scratch, evened out; the
	// rows computed twice must stay few.
	cc.cb = min(st.ConvChainChannels, C)
	in := func(rs int64) int64 { return min(s.H, (rs-1)*s.SH+(cc.kh-1)*s.DH+1) }
	most := int64(0)
	for rs := int64(1); rs <= cc.OH && cc.cb*in(rs)*s.W*4 <= st.ConvChainScratch; rs++ {
		most = rs
	}
	if most == 0 {
		return nil, false
	}
	strips := CeilDiv(cc.OH, most)
	cc.rs = CeilDiv(cc.OH, strips)
	cc.rows = in(cc.rs)
	if 4*strips*cc.rows > 5*s.H {
		return nil, false
	}
	return cc, true
}

// chainMaxWidth is the widest image a chain is fused at. MobileNetV2's
// 16→96 expansion at 112×112 (stride-2 depthwise) took 0.33 ms fused
// against 0.295 in two dispatches (alone, two threads); at 56×56 and
// below every chain was as fast or faster fused (24→144 at 56×56,
// stride 1: 0.175 against 0.247 ms; 32→192 at 28×28, stride 2: 0.062
// against 0.135).
const chainMaxWidth = 64

// chainStrip is the compile-time shape of a run of strips: output rows,
// input rows held in scratch and the pad above them.
type chainStrip struct {
	first, last int64 // strip numbers
	oh, h, ph   int64
}

// strips groups the chain's strips by their shape: the first, the middle
// ones and the last, typically.
func (cc *convChain) strips() []chainStrip {
	s := cc.s
	var out []chainStrip
	for t := int64(0); t*cc.rs < cc.OH; t++ {
		y0 := t * cc.rs
		oh := min(cc.rs, cc.OH-y0)
		lo := y0*s.SH - s.PH
		hi := (y0+oh-1)*s.SH - s.PH + (cc.kh-1)*s.DH
		r0, r1 := max(0, lo), min(s.H-1, hi)
		st := chainStrip{first: t, last: t, oh: oh, h: r1 - r0 + 1, ph: r0 - lo}
		if n := len(out); n > 0 && out[n-1].oh == st.oh && out[n-1].h == st.h && out[n-1].ph == st.ph {
			out[n-1].last = t
			continue
		}
		out = append(out, st)
	}
	return out
}

// lowerConvChain emits the chain's kernel: the grid covers channel blocks
// (x) and strips of output rows (y).
func (g *gen) lowerConvChain(cc *convChain, results []*ir.Value) error {
	s, sh := cc.s, cc.sh
	A, B := cc.root1.Op.Operands[0], cc.root1.Op.Operands[1]
	Wt, Out := cc.root2.Op.Operands[1], results[0]
	var bs [4]int
	for i, x := range []struct {
		v *ir.Value
		a kir.Access
	}{{A, kir.Read}, {B, kir.Read}, {Wt, kir.Read}, {Out, kir.Write}} {
		b, err := g.bind(x.v, x.a)
		if err != nil {
			return ir.OpErrorf(cc.root1.Op, "%v", err)
		}
		bs[i] = b
	}
	ab, bb, wb, ob := bs[0], bs[1], bs[2], bs[3]
	g.k.Grid[0] = kir.GridDim{Static: cc.C, Tile: cc.cb}
	g.k.Grid[1] = kir.GridDim{Static: cc.OH, Tile: cc.rs}
	top := g.b
	wy := top.EmitImm(kir.WorkgroupID, kir.S(kir.I64), 1)
	c0 := top.Bin(kir.Mul, top.EmitImm(kir.WorkgroupID, kir.S(kir.I64), 0), g.idx(cc.cb))
	cN := top.Bin(kir.MinS, g.idx(cc.cb), top.Bin(kir.Sub, g.idx(cc.C), c0))
	l1 := &genericLowering{g: g, op: cc.root1, maps: cc.root1.Maps(), its: cc.root1.Iterators(), nIn: 2, vecDim: -1}
	t := &contractTile{l: l1, sh: sh, m0: c0, n0: g.idx(0)}
	e1, err := g.fusedContractEpilogue(&fusedEpilogue{epi: cc.epi1, chain: cc.ch}, t, func(*ir.Value, *ir.AffineMap) kir.Value { return g.idx(0) })
	if err != nil {
		return err
	}
	e2, err := g.fusedDWEpilogue(cc.root2, cc.epi2, s, c0)
	if err != nil {
		return err
	}
	// Every binding is in: the scratch's ordinal follows them.
	g.k.Shared = append(g.k.Shared, kir.SharedAlloc{Elem: kir.F32, Count: cc.cb * cc.rows * s.W, Scratch: true})
	sc := g.k.SharedOrdinal(len(g.k.Shared) - 1)
	if g.d.WrittenFirst == nil {
		g.d.WrittenFirst = map[int]bool{}
	}
	g.d.WrittenFirst[ob] = true
	m1 := cc.root1.Maps()
	aRS, aCS := g.strideFor(A, m1[0], sh.M), g.strideFor(A, m1[0], sh.K)
	bRS, bCS := g.strideFor(B, m1[1], sh.K), g.strideFor(B, m1[1], sh.N)
	ws, os := g.strides[Wt], g.strides[Out]
	aOff := top.Bin(kir.Mul, c0, aRS)
	wOff := top.Bin(kir.Mul, c0, ws[s.wc])
	plane := g.idx(cc.rows * s.W)
	strip := func(b *kir.Builder, st chainStrip) {
		y0 := b.Bin(kir.Mul, wy, g.idx(cc.rs))
		// The strip's first input row: y0·SH − PH + ph.
		r0 := b.Bin(kir.Add, b.Bin(kir.Mul, wy, g.idx(cc.rs*s.SH)), g.idx(st.ph-s.PH))
		bOff := b.Bin(kir.Mul, b.Bin(kir.Mul, r0, g.idx(s.W)), bCS)
		b.ContractWith(ab, bb, sc, [12]kir.Value{aOff, aRS, aCS, bOff, bRS, bCS, g.idx(0), plane, g.idx(1), cN, g.idx(st.h * s.W), g.idx(cc.K)}, kir.ContractZero, e1)
		outOff := b.Bin(kir.Add, b.Bin(kir.Mul, c0, os[1]), b.Bin(kir.Mul, y0, os[2]))
		b.DWConv(sc, wb, ob, [kir.DWConvArgs]kir.Value{
			g.idx(0), plane, g.idx(s.W),
			wOff, ws[s.wc], ws[s.wi], ws[s.wj],
			outOff, os[1], os[2],
			cN, g.idx(st.h), g.idx(s.W), g.idx(st.oh), g.idx(cc.OW),
			g.idx(cc.kh), g.idx(cc.kw),
			g.idx(s.SH), g.idx(s.SW), g.idx(s.DH), g.idx(s.DW), g.idx(st.ph), g.idx(s.PW),
			g.idx(1), g.idx(0), g.idx(0),
		}, e2)
	}
	var emit func(b *kir.Builder, sts []chainStrip)
	emit = func(b *kir.Builder, sts []chainStrip) {
		if len(sts) == 1 {
			strip(b, sts[0])
			return
		}
		in := b.Cmp(kir.CmpI, kir.PredSLE, wy, g.idx(sts[0].last))
		b.If(in, nil, func(b *kir.Builder) []kir.Value {
			strip(b, sts[0])
			return nil
		}, func(b *kir.Builder) []kir.Value {
			emit(b, sts[1:])
			return nil
		})
	}
	emit(top, cc.strips())
	return nil
}
