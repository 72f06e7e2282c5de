package cts

import (
	"encoding/binary"
	"math"

	"github.com/gree-ml/gree/go/schemas/vmvx"
)

// VMVXFormat is the executable format of the suite's vmvx kernel.
const VMVXFormat = "vmvx-bytecode"

// ScaleVMVX is a vmvx kernel on a 3-D grid: workgroup (x, y, z) of grid
// (gx, gy, gz) reads 16 floats of binding 0 at linear index
// x + gx*(y + gy*z) and writes them to binding 1 times 3 plus the index.
// Its one entry point is "scale".
func ScaleVMVX() []byte {
	i64 := vmvx.RegType{Elem: vmvx.I64, Lanes: 1}
	f32 := vmvx.RegType{Elem: vmvx.F32, Lanes: 1}
	v := vmvx.RegType{Elem: vmvx.F32, Lanes: 16}
	x := &vmvx.Executable{Entries: []vmvx.Entry{{
		Name:          "scale",
		WorkgroupSize: [3]uint32{1, 1, 1},
		Bindings:      []vmvx.Binding{{Elem: vmvx.F32, Access: vmvx.Read}, {Elem: vmvx.F32, Access: vmvx.Write}},
		// r0..r2 ids, r3..r4 counts, r5 linear, r6 offset, r7 16,
		// r8 loaded, r9 3.0, r10 product, r11 index as f32, r12 splat, r13 sum
		Regs: []vmvx.RegType{i64, i64, i64, i64, i64, i64, i64, i64, v, v, v, f32, v, v},
		Code: []vmvx.Instr{
			{Op: vmvx.WorkgroupID, Dst: 0, Imm: 0},
			{Op: vmvx.WorkgroupID, Dst: 1, Imm: 1},
			{Op: vmvx.WorkgroupID, Dst: 2, Imm: 2},
			{Op: vmvx.WorkgroupCount, Dst: 3, Imm: 0},
			{Op: vmvx.WorkgroupCount, Dst: 4, Imm: 1},
			{Op: vmvx.Mul, Dst: 5, Args: []uint32{2, 4}},
			{Op: vmvx.Add, Dst: 5, Args: []uint32{5, 1}},
			{Op: vmvx.Mul, Dst: 5, Args: []uint32{5, 3}},
			{Op: vmvx.Add, Dst: 5, Args: []uint32{5, 0}},
			{Op: vmvx.ConstInt, Dst: 7, Imm: 16},
			{Op: vmvx.Mul, Dst: 6, Args: []uint32{5, 7}},
			{Op: vmvx.Load, Dst: 8, Args: []uint32{6}},
			{Op: vmvx.ConstFloat, Dst: 9, Imm: vmvx.FloatImm(3)},
			{Op: vmvx.Mul, Dst: 10, Args: []uint32{8, 9}},
			{Op: vmvx.SIToFP, Dst: 11, Args: []uint32{5}},
			{Op: vmvx.Broadcast, Dst: 12, Args: []uint32{11}},
			{Op: vmvx.Add, Dst: 13, Args: []uint32{10, 12}},
			{Op: vmvx.Store, Args: []uint32{6, 13}, Bindings: [3]uint32{1}},
		},
	}}}
	data, err := vmvx.Encode(x)
	if err != nil {
		panic(err)
	}
	return data
}

// ScaleInput returns the input of n workgroups of ScaleVMVX: 16n floats.
func ScaleInput(n int64) []byte {
	in := make([]byte, 4*16*n)
	for i := int64(0); i < 16*n; i++ {
		binary.LittleEndian.PutUint32(in[4*i:], math.Float32bits(float32(i%97)*0.25-3))
	}
	return in
}

// ScaleExpected returns the output ScaleVMVX computes from in.
func ScaleExpected(in []byte) []byte {
	out := make([]byte, len(in))
	for i := 0; i < len(in)/4; i++ {
		x := math.Float32frombits(binary.LittleEndian.Uint32(in[4*i:]))
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(x*3+float32(i/16)))
	}
	return out
}
