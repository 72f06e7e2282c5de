package llvmcpu_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/llvmcpu"
)

// dw is one depthwise convolution problem: C channels of an H×W input
// (rows inRS apart, planes H·inRS apart) into OH×OW outputs (rows outRS
// apart), a KH×KW window with strides, dilations and leading pads, and
// the channels each workgroup takes.
type dw struct {
	name                        string
	C, H, W, KH, KW, SH, SW     int64
	DH, DW, PH, PW, inRS, outRS int64
	OH, OW                      int64
	tile                        int64
	// fused adds a bias (binding 3) and clamps to [dwLo, dwHi] in the op.
	fused bool
	// dense > 0 makes it a dense convolution: every output channel sums
	// the same dense input planes (inChanStride 0).
	dense int64
}

// ci is the number of input planes each output channel sums.
func (p dw) ci() int64 { return max(p.dense, 1) }

// sizes are the element counts of the input, weight and output.
func (p dw) sizes() (in, w, out int64) {
	planes := p.C
	if p.dense > 0 {
		planes = p.dense
	}
	return planes * p.H * p.inRS, p.C * p.ci() * p.KH * p.KW, p.C * p.OH * p.outRS
}

// inStrides are the input's channel and summed-plane strides.
func (p dw) inStrides() (cs, sum int64) {
	if p.dense > 0 {
		return 0, p.H * p.inRS
	}
	return p.H * p.inRS, 0
}

// The bounds of fused problems.
const dwLo, dwHi = -0.5, 0.7

// newDW is problem name with a "same"-style output size for pads ph, pw
// on both sides and dense rows.
func newDW(name string, c, h, w, kh, kw, s, d, ph, pw int64) dw {
	p := dw{name: name, C: c, H: h, W: w, KH: kh, KW: kw, SH: s, SW: s, DH: d, DW: d, PH: ph, PW: pw, inRS: w, tile: 7}
	p.OH = (h+2*ph-d*(kh-1)-1)/s + 1
	p.OW = (w+2*pw-d*(kw-1)-1)/s + 1
	p.outRS = p.OW
	return p
}

// kernel is the DWConv kernel of p: workgroup x takes channels
// [x·tile, min((x+1)·tile, C)).
func (p dw) kernel() (*kir.Kernel, [3]int64) {
	k, b := kir.NewKernel("dw_" + p.name)
	f := kir.F32
	k.Bindings = []kir.Binding{{Elem: f, Access: kir.Read}, {Elem: f, Access: kir.Read}, {Elem: f, Access: kir.Write}}
	if p.fused {
		k.Bindings = append(k.Bindings, kir.Binding{Elem: f, Access: kir.Read})
	}
	grid := [3]int64{(p.C + p.tile - 1) / p.tile, 1, 1}
	k.Grid[0] = kir.GridDim{Static: grid[0], Tile: 1}
	k.Grid[1], k.Grid[2] = kir.GridDim{Static: 1, Tile: 1}, kir.GridDim{Static: 1, Tile: 1}
	c0 := b.Bin(kir.Mul, b.EmitImm(kir.WorkgroupID, kir.S(kir.I64), 0), b.Idx(p.tile))
	cN := b.Bin(kir.MinS, b.Idx(p.tile), b.Bin(kir.Sub, b.Idx(p.C), c0))
	inCS, inSum := p.inStrides()
	wCS, outCS := p.ci()*p.KH*p.KW, p.OH*p.outRS
	at := func(cs int64) kir.Value { return b.Bin(kir.Mul, c0, b.Idx(cs)) }
	i := b.Idx
	args := [kir.DWConvArgs]kir.Value{
		at(inCS), i(inCS), i(p.inRS), at(wCS), i(wCS), i(p.KW), i(1), at(outCS), i(outCS), i(p.outRS),
		cN, i(p.H), i(p.W), i(p.OH), i(p.OW), i(p.KH), i(p.KW), i(p.SH), i(p.SW), i(p.DH), i(p.DW), i(p.PH), i(p.PW),
		i(p.ci()), i(inSum), i(p.KH * p.KW),
	}
	e := kir.NoDWConvEpilogue
	if p.fused {
		e = kir.DWConvEpilogue{Bias: 3, BiasOff: c0, BiasStride: i(1), Lo: b.Float(kir.S(f), dwLo), Hi: b.Float(kir.S(f), dwHi)}
	}
	b.DWConv(0, 1, 2, args, e)
	return k, grid
}

// reference is the float64 convolution of p and the sum of its terms'
// magnitudes, per output element.
func (p dw) reference(in, w, bias []float64) (exact, mag []float64) {
	n := p.C * p.OH * p.outRS
	exact, mag = make([]float64, n), make([]float64, n)
	f := func(x float64) float64 { return float64(float32(x)) }
	for c := int64(0); c < p.C; c++ {
		for y := int64(0); y < p.OH; y++ {
			for x := int64(0); x < p.OW; x++ {
				o := c*p.OH*p.outRS + y*p.outRS + x
				cs, sum := p.inStrides()
				for ci := int64(0); ci < p.ci(); ci++ {
					for i := int64(0); i < p.KH; i++ {
						for j := int64(0); j < p.KW; j++ {
							r, q := y*p.SH+i*p.DH-p.PH, x*p.SW+j*p.DW-p.PW
							if r < 0 || r >= p.H || q < 0 || q >= p.W {
								continue
							}
							u := f(in[c*cs+ci*sum+r*p.inRS+q]) * f(w[(c*p.ci()+ci)*p.KH*p.KW+i*p.KW+j])
							exact[o] += u
							mag[o] += math.Abs(u)
						}
					}
				}
				if p.fused {
					exact[o] = math.Min(math.Max(exact[o]+f(bias[c]), f(dwLo)), f(dwHi))
				}
			}
		}
	}
	return exact, mag
}

// mobilenetDW are MobileNetV2's depthwise 3×3 convolutions (pad 1).
var mobilenetDW = []dw{
	newDW("32x112s1", 32, 112, 112, 3, 3, 1, 1, 1, 1),
	newDW("96x112s2", 96, 112, 112, 3, 3, 2, 1, 1, 1),
	newDW("144x56s1", 144, 56, 56, 3, 3, 1, 1, 1, 1),
	newDW("144x56s2", 144, 56, 56, 3, 3, 2, 1, 1, 1),
	newDW("192x28s1", 192, 28, 28, 3, 3, 1, 1, 1, 1),
	newDW("192x28s2", 192, 28, 28, 3, 3, 2, 1, 1, 1),
	newDW("384x14s1", 384, 14, 14, 3, 3, 1, 1, 1, 1),
	newDW("576x14s2", 576, 14, 14, 3, 3, 2, 1, 1, 1),
	newDW("960x7s1", 960, 7, 7, 3, 3, 1, 1, 1, 1),
	mobilenetFirst,
}

// mobilenetFirst is MobileNetV2's first convolution, dense: 3 input
// channels, 32 outputs, 3×3, stride 2.
var mobilenetFirst = dw{name: "first32x3x224s2", C: 32, H: 224, W: 224, KH: 3, KW: 3, SH: 2, SW: 2, DH: 1, DW: 1, PH: 1, PW: 1,
	inRS: 224, OH: 112, OW: 112, outRS: 112, tile: 8, dense: 3}

// dwEdges cover the other paths: flat planes with a ragged last vector,
// in one piece and as a loop; rows with and without a strided span,
// unrolled and as a loop with a tail; padded rows; no pad, big and
// asymmetric pads (a whole output row outside the input), dilation,
// non-square windows, stride 3 and a single channel.
func dwEdges() []dw {
	padded := newDW("paddedrows", 5, 9, 10, 3, 3, 1, 1, 1, 1)
	padded.inRS, padded.outRS = 13, 11
	rowsLoop := newDW("s1rowsloop", 1, 3, 530, 3, 3, 1, 2, 1, 2)
	rowsLoop.inRS = 531
	fusedFlat := newDW("fused_flat", 11, 9, 9, 3, 3, 1, 1, 1, 1)
	fusedFlat.fused = true
	fusedRows := newDW("fused_rows_s2", 6, 33, 40, 3, 3, 2, 1, 1, 1)
	fusedRows.fused = true
	dense := newDW("dense3_s2", 10, 19, 23, 3, 3, 2, 1, 1, 1)
	dense.dense = 3
	denseS1 := newDW("dense2_s1_fused", 5, 7, 9, 3, 3, 1, 1, 1, 1)
	denseS1.dense, denseS1.fused = 2, true
	denseLoop := newDW("dense2_rowsloop", 3, 3, 300, 3, 3, 1, 1, 1, 1)
	denseLoop.dense, denseLoop.inRS = 2, 301
	asym := newDW("asym", 4, 6, 9, 3, 2, 1, 1, 0, 0)
	asym.PH, asym.PW, asym.OH, asym.OW, asym.outRS = 3, 1, 7, 9, 9
	return []dw{
		newDW("flat5x5", 9, 5, 5, 3, 3, 1, 1, 1, 1),
		newDW("flat30", 3, 30, 30, 3, 3, 1, 1, 1, 1),
		newDW("flat1x37", 2, 1, 37, 1, 3, 1, 1, 0, 1),
		newDW("dil2", 6, 20, 20, 3, 3, 1, 2, 2, 2),
		newDW("k5x1", 3, 11, 17, 5, 1, 1, 1, 2, 0),
		newDW("valid", 5, 10, 12, 3, 3, 1, 1, 0, 0),
		newDW("bigpad", 2, 4, 4, 3, 3, 1, 1, 3, 3),
		newDW("s2odd", 5, 15, 15, 3, 3, 2, 1, 1, 1),
		newDW("s3", 4, 20, 23, 3, 3, 3, 1, 1, 1),
		newDW("s2wide", 1, 4, 560, 3, 3, 2, 1, 1, 1),
		newDW("k5s2", 3, 56, 56, 5, 5, 2, 1, 2, 2),
		newDW("k5s1", 3, 14, 14, 5, 5, 1, 1, 2, 2),
		newDW("k5s2odd", 3, 15, 15, 5, 5, 2, 1, 2, 2),
		newDW("k7s2", 2, 30, 30, 7, 7, 2, 1, 3, 3),
		rowsLoop, padded, asym, fusedFlat, fusedRows, dense, denseS1, denseLoop,
	}
}

// checkDW runs ps natively (one executable for machine m) and through
// kir.Run, and compares both with the float64 reference within (KH·KW+1)
// ulps of the sum of magnitudes.
func checkDW(t *testing.T, m llvmcpu.Machine, ps []dw, interp bool, r *rand.Rand) {
	t.Helper()
	ks := make([]*kir.Kernel, len(ps))
	grids := make([][3]int64, len(ps))
	for i, p := range ps {
		ks[i], grids[i] = p.kernel()
	}
	x := build(t, m, ks...)
	for e, p := range ps {
		nIn, nW, _ := p.sizes()
		in := randFloats(r, int(nIn), 1)
		w := randFloats(r, int(nW), 1)
		out := make([]float64, p.C*p.OH*p.outRS)
		for i := range out {
			out[i] = 1e9 // every element must be overwritten or keep this
		}
		bias := randFloats(r, int(p.C), 1)
		exact, mag := p.reference(in, w, bias)
		bufs := func() [][]byte {
			bs := [][]byte{enc(kir.F32, in), enc(kir.F32, w), enc(kir.F32, out)}
			if p.fused {
				bs = append(bs, enc(kir.F32, bias))
			}
			return bs
		}
		runs := map[string][][]byte{"native": bufs()}
		if err := x.Run(e, 0, grids[e][0], grids[e], nil, runs["native"]); err != nil {
			t.Fatalf("%s on %s: %v", p.name, m.CPU, err)
		}
		// Every binding against a guard page, before and after it: a
		// load of a tap in the pad must never touch memory past a
		// binding's edge (it faults here).
		for _, atEnd := range []bool{false, true} {
			name := map[bool]string{false: "native, guard pages before", true: "native, guard pages after"}[atEnd]
			runs[name] = guardedBindings(t, bufs(), atEnd)
			if err := x.Run(e, 0, grids[e][0], grids[e], nil, runs[name]); err != nil {
				t.Fatalf("%s on %s (%s): %v", p.name, m.CPU, name, err)
			}
		}
		if interp {
			runs["kir.Run"] = bufs()
			if err := kir.Run(ks[e], grids[e], nil, runs["kir.Run"]); err != nil {
				t.Fatalf("%s: kir.Run: %v", p.name, err)
			}
		}
		for how, bufs := range runs {
			for o := range out {
				want := exact[o]
				if int64(o)%p.outRS >= p.OW {
					want = float64(float32(1e9)) // row padding: not written
				}
				v := value(kir.F32, bufs[2][4*o:])
				if tol := float64(p.ci()*p.KH*p.KW+1) * mag[o] * 0x1p-24; math.Abs(v-want) > tol {
					t.Fatalf("%s (%s on %s): out[%d] = %v, want %v ± %g", p.name, how, m.CPU, o, v, want, tol)
				}
			}
		}
	}
}

// TestDWConv checks the DWConv lowering on MobileNetV2's shapes and the
// edge cases, with AVX-512's 16 lanes where the host has them, and with
// AVX2's 8 and SSE's 4 on the edge cases.
func TestDWConv(t *testing.T) {
	m := needLLVM(t)
	r := rand.New(rand.NewPCG(3, 4))
	var cases []dw
	if !testing.Short() {
		cases = append(cases, mobilenetDW...)
	}
	checkDW(t, m, append(cases, dwEdges()...), true, r)
	for _, cpu := range []string{"haswell", "generic"} {
		mc, err := llvmcpu.ResolveMachine(llvmcpu.Options{CPU: cpu})
		if err != nil {
			t.Fatal(err)
		}
		if cpu == "haswell" && !strings.Contains(m.Features, "+avx2") {
			continue
		}
		checkDW(t, mc, dwEdges(), false, r)
	}
}

// TestDWConvPadSemantics checks that a tap in the pad multiplies +0 by
// its weight like kir.Run (an infinite weight on the border gives NaN),
// and that a negative-zero sum stays as kir.Run gives it.
func TestDWConvPadSemantics(t *testing.T) {
	p := newDW("inf", 1, 4, 4, 3, 3, 1, 1, 1, 1)
	k, grid := p.kernel()
	in := make([]float64, 16)
	for i := range in {
		in[i] = float64(i + 1)
	}
	w := []float64{math.Inf(1), 0, 0, 0, 1, 0, 0, 0, 0}
	got := diff(t, k, grid, nil, [][]byte{enc(kir.F32, in), enc(kir.F32, w), make([]byte, 64)}, 0)
	// Output (0, 0)'s top-left tap is in the pad: 0·inf = NaN.
	if v := value(kir.F32, got[2]); !math.IsNaN(v) {
		t.Fatalf("out[0] = %v, want NaN (a pad tap times an infinite weight)", v)
	}
}

// TestDWConvOutOfBoundsIsAnError checks that a tile outside its binding is
// an OUT_OF_RANGE error, natively and in kir.Run.
func TestDWConvOutOfBoundsIsAnError(t *testing.T) {
	m := needLLVM(t)
	p := newDW("oob", 3, 5, 5, 3, 3, 1, 1, 1, 1)
	p.tile = 3
	k, grid := p.kernel()
	x := build(t, m, k)
	bufs := [][]byte{make([]byte, 4*75), make([]byte, 4*27), make([]byte, 4*74)}
	err := x.Run(0, 0, 1, grid, nil, bufs)
	if err == nil || !containsAll(err.Error(), "OUT_OF_RANGE", "tile outside binding 2") {
		t.Fatalf("err = %v, want an OUT_OF_RANGE error naming binding 2", err)
	}
	if kerr := kir.Run(k, grid, nil, bufs); kerr == nil || !strings.Contains(kerr.Error(), "binding 2") {
		t.Fatalf("kir.Run: %v, want an error naming binding 2", kerr)
	}
}

// BenchmarkDWConvMobileNet times the DWConv of every MobileNetV2
// depthwise shape on one thread, warm buffers.
func BenchmarkDWConvMobileNet(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	var ps []dw
	for _, p := range mobilenetDW {
		// Codegen's tile: whole planes, 8192 outputs, at least 8
		// workgroups (dense: all channels in one).
		if p.dense == 0 {
			p.tile = max(1, min(8192/(p.OH*p.OW), (p.C+7)/8))
		}
		f := p
		f.fused, f.name = true, p.name+"_fused"
		ps = append(ps, p, f)
	}
	for _, p := range ps {
		b.Run(p.name, func(b *testing.B) {
			m := needLLVMB(b)
			k, grid := p.kernel()
			x := buildB(b, m, k)
			nIn, nW, nOut := p.sizes()
			bufs := [][]byte{enc(kir.F32, randFloats(r, int(nIn), 1)), enc(kir.F32, randFloats(r, int(nW), 1)), make([]byte, 4*nOut)}
			if p.fused {
				bufs = append(bufs, enc(kir.F32, randFloats(r, int(p.C), 1)))
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := x.Run(0, 0, grid[0], grid, nil, bufs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)*1e6, "us")
		})
	}
}

// TestDWConvStride1KeepsRegisters compiles MobileNetV2's stride-1
// depthwise convolutions (bias and clamp fused) for an AVX-512 CPU and
// checks with llvm-objdump that no 512-bit register goes through the
// stack: blocks of four rows once made LLVM spill accumulators (here
// 192×28×28; in MobileNetV2 compiled for the test machine, 144×56×56
// too, whose time nearly doubled).
func TestDWConvStride1KeepsRegisters(t *testing.T) {
	needLLVM(t)
	m, err := llvmcpu.ResolveMachine(llvmcpu.Options{Triple: "x86_64-unknown-linux-gnu", CPU: "znver4"})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range mobilenetDW {
		if p.SH != 1 || p.dense > 0 {
			continue
		}
		p.fused = true
		k, _ := p.kernel()
		_, out := disassemble(t, m, "", k)
		if !strings.Contains(out, "vfmadd") {
			t.Fatalf("%s: no AVX-512 fused multiply-adds in the disassembly", p.name)
		}
		spills := 0
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "%zmm") && strings.Contains(l, "(%rsp") {
				spills++
			}
		}
		if spills > 0 {
			t.Errorf("%s: %d instructions move 512-bit registers through the stack", p.name, spills)
		}
	}
}
