package llvmcpu

import (
	"fmt"

	"github.com/gree-ml/gree/go/compiler/kir"
)

// denseBlockChannels is the number of output channels a dense DWConv
// computes together: their accumulators for one vector of an output row
// stay in registers, and each input span loaded feeds one fused
// multiply-add per channel. MobileNetV2's first layer (3→32, 3×3,
// stride 2, 112×112) took 320-330 µs single-thread with pairs of channels
// over whole rows (7 vectors), 300-310 µs with blocks of 8 channels over
// one vector, and at two threads 170-240 µs against 145-160 µs with the
// workgroups of 8 channels codegen gives it (one vector × 16 channels
// was no faster).
const denseBlockChannels = 8

// dense emits a DWConv that sums CI input planes every output channel
// reads (input channel stride 0: a dense convolution with few input
// channels, such as a network's first layer): output channels in blocks
// of denseBlockChannels, then one at a time, each block row by row and
// vector by vector.
func (d *dwConv) dense() {
	f := d.f
	i64 := kir.S(kir.I64)
	const cob = denseBlockChannels
	C := f.v(d.op.Args[dwC])
	full := f.bin("mul", i64, f.bin("sdiv", i64, C, fmt.Sprint(cob)), fmt.Sprint(cob))
	f.loop("dwd.cb", "0", full, fmt.Sprint(cob), func(c0 string) { d.denseBlock(c0, cob) })
	f.loop("dwd.ct", full, C, "1", func(c string) { d.denseBlock(c, 1) })
}

// denseBlock emits output channels c0 … c0+cob−1, row by row, one vector
// of each row at a time.
func (d *dwConv) denseBlock(c0 string, cob int64) {
	f, op, s, vl := d.f, d.op, d.s, int64(d.vl)
	i64 := kir.S(kir.I64)
	a := func(i int) string { return f.v(op.Args[i]) }
	var obs, wbs, biases []string
	for co := int64(0); co < cob; co++ {
		c := f.bin("add", i64, c0, fmt.Sprint(co))
		obs = append(obs, f.bin("add", i64, a(dwOutOff), f.bin("mul", i64, c, a(dwOutCS))))
		wbs = append(wbs, f.bin("add", i64, a(dwWOff), f.bin("mul", i64, c, a(dwWCS))))
		biases = append(biases, d.channelBias(c))
	}
	f.loop("dwd.y", "0", fmt.Sprint(s.OH), "1", func(y string) {
		full := s.OW / vl * vl
		f.loop("dwd.x", "0", fmt.Sprint(full), fmt.Sprint(vl), func(x string) {
			d.denseVector(y, x, vl, obs, wbs, biases)
		})
		if full < s.OW {
			d.denseVector(y, fmt.Sprint(full), s.OW-full, obs, wbs, biases)
		}
	})
}

// denseVector emits the output vector at column x (n lanes) of row y for
// the block's channels (output offsets obs, weight offsets wbs, biases):
// sums in (ci, i, j) order, then the fused epilogue.
func (d *dwConv) denseVector(y, x string, n int64, obs, wbs, biases []string) {
	f, op, s := d.f, d.op, d.s
	i64 := kir.S(kir.I64)
	a := func(i int) string { return f.v(op.Args[i]) }
	acc := make([]string, len(obs))
	for co := range acc {
		acc[co] = cst(d.vecT(), "0.0")
	}
	for ci := int64(0); ci < s.CI; ci++ {
		plane := f.bin("add", i64, a(dwInOff), f.bin("mul", i64, fmt.Sprint(ci), a(dwInSum)))
		for i := int64(0); i < s.KH; i++ {
			row := f.bin("add", i64, f.bin("mul", i64, y, fmt.Sprint(s.SH)), fmt.Sprint(i*s.DH-s.PH))
			ok := f.icmp("ult", i64, row, fmt.Sprint(s.H))
			off := d.rowOffset(plane, row, ok)
			for j, tap := range d.columnTaps(off, ok, x) {
				for co := range obs {
					wo := f.bin("add", i64, wbs[co], f.bin("add", i64, f.bin("mul", i64, fmt.Sprint(ci), a(dwWSum)),
						f.bin("add", i64, f.bin("mul", i64, fmt.Sprint(i), a(dwWRS)), f.bin("mul", i64, fmt.Sprint(j), a(dwWQS)))))
					acc[co] = d.fmuladd(tap, d.weight(wo), acc[co])
				}
			}
		}
	}
	for co := range obs {
		d.bias = biases[co]
		ob := f.bin("add", i64, obs[co], f.bin("mul", i64, y, fmt.Sprint(s.outRS)))
		d.store(f.bin("add", i64, ob, x), acc[co], n)
	}
}

// weight loads the weight at offset off, broadcast to a vector.
func (d *dwConv) weight(off string) string {
	f := d.f
	p, x := f.t(), f.t()
	f.emitf("%s = getelementptr inbounds float, ptr %%b%d, i64 %s", p, d.op.Bindings[1], off)
	f.emitf("%s = load float, ptr %s, align 4", x, p)
	return f.broadcast(d.vecT(), x)
}

// channelBias is channel c's fused bias, broadcast ("" without one).
func (d *dwConv) channelBias(c string) string {
	f, op := d.f, d.op
	if op.Imm&kir.DWConvBias == 0 {
		return ""
	}
	i64 := kir.S(kir.I64)
	rest := op.Args[kir.DWConvArgs:]
	off := f.bin("add", i64, f.v(rest[0]), f.bin("mul", i64, c, f.v(rest[1])))
	p, x := f.t(), f.t()
	f.emitf("%s = getelementptr inbounds float, ptr %%b%d, i64 %s", p, op.Binding, off)
	f.emitf("%s = load float, ptr %s, align 4", x, p)
	return f.broadcast(d.vecT(), x)
}
