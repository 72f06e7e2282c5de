package local

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/schemas/vmvx"
	"github.com/gree-ml/gree/go/status"
)

// scaleExe is a vmvx kernel on a 3-D grid: workgroup (x, y, z) of grid
// (gx, gy, gz) reads 16 floats at linear index x + gx*(y + gy*z) and
// writes them times 3 plus the index.
func scaleExe() []byte {
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

func floats(b []byte) []float32 {
	f := make([]float32, len(b)/4)
	for i := range f {
		f[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return f
}

func newTestDevice(t *testing.T, name string, workers int) *Device {
	t.Helper()
	dev, err := NewDriver(name, workers).CreateDevice(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	return dev.(*Device)
}

func TestDispatchSameOnEveryDevice(t *testing.T) {
	grid := [3]int64{7, 5, 3}
	n := grid[0] * grid[1] * grid[2]
	in := make([]byte, 4*16*n)
	for i := int64(0); i < 16*n; i++ {
		binary.LittleEndian.PutUint32(in[4*i:], math.Float32bits(float32(i%97)*0.25-3))
	}
	var outs [][]byte
	for _, d := range []*Device{newTestDevice(t, "local-sync", 1), newTestDevice(t, "local-task", 2), newTestDevice(t, "local-task", 5)} {
		exe, err := d.PrepareExecutable(VMVXFormat, scaleExe())
		if err != nil {
			t.Fatal(err)
		}
		for rep := 0; rep < 10; rep++ {
			out := make([]byte, len(in))
			if err := d.Dispatch(exe, 0, grid, nil, [][]byte{in, out}); err != nil {
				t.Fatalf("%s (%d workers): %v", d.driver, d.workers, err)
			}
			outs = append(outs, out)
		}
	}
	got, src := floats(outs[0]), floats(in)
	for i := range got {
		if want := src[i]*3 + float32(i/16); got[i] != want {
			t.Fatalf("element %d: %g, want %g", i, got[i], want)
		}
	}
	for i, out := range outs {
		if !bytes.Equal(out, outs[0]) {
			t.Fatalf("dispatch %d differs from local-sync's", i)
		}
	}
}

func TestDispatchReportsWorkgroupError(t *testing.T) {
	grid := [3]int64{40, 1, 1}
	in := make([]byte, 4*16*40)
	for _, d := range []*Device{newTestDevice(t, "local-sync", 1), newTestDevice(t, "local-task", 2)} {
		exe, err := d.PrepareExecutable(VMVXFormat, scaleExe())
		if err != nil {
			t.Fatal(err)
		}
		for rep := 0; rep < 10; rep++ {
			short := make([]byte, 4*16*39) // the last workgroup stores out of bounds
			err := d.Dispatch(exe, 0, grid, nil, [][]byte{in, short})
			if status.CodeOf(err) != status.OutOfRange || !strings.Contains(err.Error(), `"scale"`) {
				t.Fatalf("%s: error %v, want OUT_OF_RANGE naming the entry", d.driver, err)
			}
		}
	}
}

func TestDispatchAfterClose(t *testing.T) {
	d := newTestDevice(t, "local-task", 2)
	exe, err := d.PrepareExecutable(VMVXFormat, scaleExe())
	if err != nil {
		t.Fatal(err)
	}
	in := make([]byte, 4*16*8)
	if err := d.Dispatch(exe, 0, [3]int64{8, 1, 1}, nil, [][]byte{in, make([]byte, len(in))}); err != nil {
		t.Fatal(err)
	}
	d.Close()
	err = d.Dispatch(exe, 0, [3]int64{8, 1, 1}, nil, [][]byte{in, make([]byte, len(in))})
	if status.CodeOf(err) != status.FailedPrecondition {
		t.Errorf("dispatch on a closed device: %v, want FAILED_PRECONDITION", err)
	}
}
