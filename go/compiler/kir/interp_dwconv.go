package kir

import "github.com/gree-ml/gree/go/status"

// dwconv executes a DWConv: for each output element, the window's
// products in order of (ci, i, j), each rounded, added to a +0 sum.
func (t *thread) dwconv(op *Op) error {
	var a [DWConvArgs]int64
	for i := range a {
		a[i] = t.scalar(op.Args[i])
	}
	// The fused epilogue's operands.
	rest := op.Args[DWConvArgs:]
	var bias []byte
	var biasOff, biasStride int64
	if op.Imm&DWConvBias != 0 {
		bias, biasOff, biasStride = t.m.bindings[op.Binding], t.scalar(rest[0]), t.scalar(rest[1])
		rest = rest[2:]
	}
	var lo, hi uint64
	if op.Imm&DWConvMax != 0 {
		lo, rest = t.vals[rest[0]][0], rest[1:]
	}
	if op.Imm&DWConvMin != 0 {
		hi = t.vals[rest[0]][0]
	}
	C, H, W, OH, OW := a[10], a[11], a[12], a[13], a[14]
	KH, KW, SH, SW, DH, DW, PH, PW := a[15], a[16], a[17], a[18], a[19], a[20], a[21], a[22]
	CI, inSum, wSum := a[23], a[24], a[25]
	if C <= 0 || OH <= 0 || OW <= 0 {
		return nil
	}
	bufs := [3][]byte{}
	for i, b := range op.Bindings {
		bufs[i], _ = t.tileMem(b)
	}
	count := func(i int) int64 { return int64(len(bufs[i]) / 4) }
	in, w, out := bufs[0], bufs[1], bufs[2]
	if H > 0 && W > 0 && CI > 0 {
		if err := t.box(op, op.Bindings[0], a[0], count(0), [][2]int64{{C, a[1]}, {CI, inSum}, {H, a[2]}, {W, 1}}); err != nil {
			return err
		}
	}
	if KH > 0 && KW > 0 && CI > 0 {
		if err := t.box(op, op.Bindings[1], a[3], count(1), [][2]int64{{C, a[4]}, {CI, wSum}, {KH, a[5]}, {KW, a[6]}}); err != nil {
			return err
		}
	}
	if err := t.box(op, op.Bindings[2], a[7], count(2), [][2]int64{{C, a[8]}, {OH, a[9]}, {OW, 1}}); err != nil {
		return err
	}
	if bias != nil {
		if err := t.box(op, op.Binding, biasOff, int64(len(bias)/4), [][2]int64{{C, biasStride}}); err != nil {
			return err
		}
	}
	for c := int64(0); c < C; c++ {
		for y := int64(0); y < OH; y++ {
			for x := int64(0); x < OW; x++ {
				var acc uint64 // +0
				for ci := int64(0); ci < CI; ci++ {
					for i := int64(0); i < max(KH, 0); i++ {
						for j := int64(0); j < max(KW, 0); j++ {
							r, q := y*SH+i*DH-PH, x*SW+j*DW-PW
							var xv uint64 // +0 outside the input
							if r >= 0 && r < H && q >= 0 && q < W {
								xv = readElem(in, F32, a[0]+c*a[1]+ci*inSum+r*a[2]+q)
							}
							wv := readElem(w, F32, a[3]+c*a[4]+ci*wSum+i*a[5]+j*a[6])
							acc = floatBin(Add, F32, acc, floatBin(Mul, F32, xv, wv))
						}
					}
				}
				if bias != nil {
					acc = floatBin(Add, F32, acc, readElem(bias, F32, biasOff+c*biasStride))
				}
				if op.Imm&DWConvMax != 0 {
					acc = floatBin(MaxF, F32, acc, lo)
				}
				if op.Imm&DWConvMin != 0 {
					acc = floatBin(MinF, F32, acc, hi)
				}
				writeElem(out, F32, a[7]+c*a[8]+y*a[9]+x, acc)
			}
		}
	}
	return nil
}

// box checks that the elements off + Σ i_d·s_d, 0 ≤ i_d < n_d, of the
// given (n_d, s_d) dimensions lie in a buffer of count elements.
func (t *thread) box(op *Op, b int, off, count int64, dims [][2]int64) error {
	lo, hi := off, off
	ok := off >= 0 && off < count
	for _, d := range dims {
		e, fits := extent(d[0], d[1])
		ok = ok && fits
		if e < 0 {
			lo += e
		} else {
			hi += e
		}
	}
	if !ok || lo < 0 || hi >= count {
		return t.errf(status.OutOfRange, op, "binding %d: %v tile (size, stride per dimension) at offset %d is outside its %d elements", b, dims, off, count)
	}
	return nil
}
