package ptxsim

import (
	"math"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/status"
)

func launch(t *testing.T, m *Module, entry string, grid, block [3]int, params []uint64, mem Memory) {
	t.Helper()
	if err := m.Launch(entry, grid, block, params, mem); err != nil {
		t.Fatalf("%s: %v", entry, err)
	}
}

func wantErr(t *testing.T, err error, code status.Code, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", parts)
	}
	if status.CodeOf(err) != code {
		t.Errorf("error code %v, want %v: %v", status.CodeOf(err), code, err)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err, p)
		}
	}
}

func TestSharedReduction(t *testing.T) {
	m := loadFile(t, "reduce.ptx")
	const blocks = 5
	in := make([]uint32, 256*blocks)
	want := make([]uint32, blocks)
	for i := range in {
		in[i] = uint32(i*7 + 3)
		want[i/256] += in[i]
	}
	ar := NewArena()
	pin, pout := ar.Alloc(u32s(in...)), ar.Alloc(make([]byte, 4*blocks))
	launch(t, m, "block_sum", [3]int{blocks, 1, 1}, [3]int{256, 1, 1}, []uint64{pin, pout}, ar)
	for b := 0; b < blocks; b++ {
		if got := getU32(ar.Bytes(pout), b); got != want[b] {
			t.Errorf("block %d sum = %d, want %d", b, got, want[b])
		}
	}
	launch(t, m, "read_uninit", [3]int{1, 1, 1}, [3]int{1, 1, 1}, []uint64{pout}, ar)
	if got := getU32(ar.Bytes(pout), 0); got != 0xcdcdcdcd {
		t.Errorf("uninitialized shared = %#x, want 0xcdcdcdcd", got)
	}
	err := m.Launch("bad_barrier", [3]int{1, 1, 1}, [3]int{64, 1, 1}, []uint64{pout}, ar)
	wantErr(t, err, status.FailedPrecondition, "deadlock", "exited", "line")
	err = m.Launch("shared_oob", [3]int{1, 1, 1}, [3]int{1, 1, 1}, []uint64{pout}, ar)
	wantErr(t, err, status.OutOfRange, "0x1000", "line 83")
}

func TestWarpShuffles(t *testing.T) {
	m := loadFile(t, "warp.ptx")
	ar := NewArena()
	in := make([]uint32, 64)
	var want [2]uint32
	for i := range in {
		in[i] = uint32(i*i + 1)
		want[i/32] += in[i]
	}
	pin, pout := ar.Alloc(u32s(in...)), ar.Alloc(make([]byte, 8))
	launch(t, m, "warp_sum", [3]int{1, 1, 1}, [3]int{64, 1, 1}, []uint64{pin, pout}, ar)
	for w := 0; w < 2; w++ {
		if got := getU32(ar.Bytes(pout), w); got != want[w] {
			t.Errorf("warp %d sum = %d, want %d", w, got, want[w])
		}
	}

	pm := ar.Alloc(make([]byte, 16*32))
	launch(t, m, "shfl_modes", [3]int{1, 1, 1}, [3]int{32, 1, 1}, []uint64{pm}, ar)
	out := ar.Bytes(pm)
	for lane := 0; lane < 32; lane++ {
		val := func(src int, ok bool) uint32 {
			v := uint32(100 + src)
			if !ok {
				v = uint32(100 + lane)
			}
			if ok {
				v |= 1 << 16
			}
			return v
		}
		up := val(lane-3, lane >= 3)
		down := val(lane+5, lane+5 <= 31)
		bfly := val(lane^1, true)
		idx := val(lane&^7|7, true)
		for k, w := range []uint32{up, down, bfly, idx} {
			if got := getU32(out, 4*lane+k); got != w {
				t.Errorf("lane %d mode %d = %#x, want %#x", lane, k, got, w)
			}
		}
	}

	pv := ar.Alloc(make([]byte, 8*32))
	launch(t, m, "votes", [3]int{1, 1, 1}, [3]int{32, 1, 1}, []uint64{pv}, ar)
	for lane := 0; lane < 32; lane++ {
		if got, want := getU64(ar.Bytes(pv), lane), uint64(0xaaaaaaaa)|3<<32; got != want {
			t.Errorf("votes lane %d = %#x, want %#x", lane, got, want)
		}
	}

	ph := ar.Alloc(make([]byte, 4*32))
	launch(t, m, "half_warps", [3]int{1, 1, 1}, [3]int{32, 1, 1}, []uint64{ph}, ar)
	for lane := 0; lane < 32; lane++ {
		want := uint32(3)
		if lane >= 16 {
			want = 20
		}
		if got := getU32(ar.Bytes(ph), lane); got != want {
			t.Errorf("half_warps lane %d = %d, want %d", lane, got, want)
		}
	}

	launch(t, m, "warp_sync_branches", [3]int{1, 1, 1}, [3]int{32, 1, 1}, []uint64{ph}, ar)
	for lane := 0; lane < 32; lane++ {
		if got := getU32(ar.Bytes(ph), lane); got != uint32(lane^16) {
			t.Errorf("warp_sync_branches lane %d = %d, want %d", lane, got, lane^16)
		}
	}

	err := m.Launch("shfl_exited", [3]int{1, 1, 1}, [3]int{32, 1, 1}, []uint64{ph}, ar)
	wantErr(t, err, status.FailedPrecondition, "exited", "membermask")
	// A partial warp cannot use a full membermask.
	err = m.Launch("warp_sum", [3]int{1, 1, 1}, [3]int{48, 1, 1}, []uint64{pin, pout}, ar)
	wantErr(t, err, status.FailedPrecondition, "membermask")
}

func TestAtomics(t *testing.T) {
	m := loadFile(t, "atomics.ptx")
	ar := NewArena()
	init := u32s(0, 0, 0xffffffff, 0, 0, 0, 0, 0)
	p := ar.Alloc(init)
	const blocks, threads = 37, 96
	launch(t, m, "atomics", [3]int{blocks, 1, 1}, [3]int{threads, 1, 1}, []uint64{p}, ar)
	b := ar.Bytes(p)
	n := uint32(blocks * threads)
	if got := getU32(b, 0); got != n {
		t.Errorf("add count = %d, want %d", got, n)
	}
	if got := getU32(b, 1); got != 0xffffffff {
		t.Errorf("or = %#x", got)
	}
	if got := getU32(b, 2); got != 0 {
		t.Errorf("and = %#x", got)
	}
	if got := getU32(b, 3); got != n%2 {
		t.Errorf("xor = %d", got)
	}
	if got := getU64(b, 2); got != uint64(n) {
		t.Errorf("cas64 count = %d, want %d", got, n)
	}
	if got := getU32(b, 6); got != n-1 {
		t.Errorf("max = %d, want %d", got, n-1)
	}
	if got := getU32(b, 7); got != 2*n {
		t.Errorf("red.add = %d, want %d", got, 2*n)
	}
	p2 := ar.Alloc(u32s(0))
	launch(t, m, "cas32", [3]int{64, 1, 1}, [3]int{128, 1, 1}, []uint64{p2}, ar)
	if got := getU32(ar.Bytes(p2), 0); got != 64*(127*128/2) {
		t.Errorf("cas32 sum = %d", got)
	}
}

func TestLoopsAndGrid(t *testing.T) {
	m := loadFile(t, "loops.ptx")
	ar := NewArena()
	grid, block := [3]int{3, 2, 2}, [3]int{4, 3, 2}
	total := 3 * 2 * 2 * 4 * 3 * 2
	n := total - 5
	p := ar.Alloc(make([]byte, 4*total))
	launch(t, m, "tri", grid, block, []uint64{p, uint64(n)}, ar)
	for i := 0; i < total; i++ {
		want := uint32(i * (i + 1) / 2)
		if i >= n {
			want = 0
		}
		if got := getU32(ar.Bytes(p), i); got != want {
			t.Fatalf("tri[%d] = %d, want %d", i, got, want)
		}
	}
	m.MaxStepsPerThread = 1000
	wantErr(t, m.Launch("forever", [3]int{1, 1, 1}, [3]int{1, 1, 1}, nil, ar), status.ResourceExhausted, "backward branches", "line 56")
	pz := ar.Alloc(u32s(0))
	wantErr(t, m.Launch("divzero", [3]int{1, 1, 1}, [3]int{1, 1, 1}, []uint64{pz}, ar), status.InvalidArgument, "division by zero at line 66")

	pv := ar.Alloc(f32s(1, 2, 3, 4, 0, 0, 0, 0, 0, 0))
	launch(t, m, "vec4", [3]int{1, 1, 1}, [3]int{1, 1, 1}, []uint64{pv}, ar)
	want := []float32{1, 2, 3, 4, 7, 3, 4, 1, 3, 7}
	for i, w := range want {
		if got := math.Float32frombits(getU32(ar.Bytes(pv), i)); got != w {
			t.Errorf("vec4[%d] = %v, want %v", i, got, w)
		}
	}
	wantErr(t, m.Launch("misaligned", [3]int{1, 1, 1}, [3]int{1, 1, 1}, []uint64{pv}, ar), status.InvalidArgument, "misaligned", "line 91", "0x")
}
