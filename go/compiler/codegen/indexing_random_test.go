package codegen_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/codegen"
)

// runProgram compiles src (static shapes) and runs its dispatches in
// order through the kernel-IR interpreter, with args bound to the
// function's arguments; it returns the bytes of the returned value.
func runProgram(t *testing.T, src string, args [][]byte) []byte {
	t.Helper()
	out, _ := runWith(t, src, args, codegen.CPUStrategy)
	return out
}

// tt spells the tensor type of dims and element type e.
func tt(dims []int, e string) string {
	var s []string
	for _, d := range dims {
		s = append(s, fmt.Sprint(d))
	}
	return "tensor<" + strings.Join(append(s, e), "x") + ">"
}

func listStr(xs []int) string {
	var s []string
	for _, x := range xs {
		s = append(s, fmt.Sprint(x))
	}
	return "[" + strings.Join(s, ", ") + "]"
}

func strides(dims []int) []int {
	st := make([]int, len(dims))
	p := 1
	for i := len(dims) - 1; i >= 0; i-- {
		st[i] = p
		p *= dims[i]
	}
	return st
}

func count(dims []int) int {
	n := 1
	for _, d := range dims {
		n *= d
	}
	return n
}

// unflatten returns the multi-index of flat position f.
func unflatten(f int, dims []int) []int {
	ix := make([]int, len(dims))
	for i := len(dims) - 1; i >= 0; i-- {
		ix[i] = f % dims[i]
		f /= dims[i]
	}
	return ix
}

func flat(ix, dims []int) int {
	st := strides(dims)
	f := 0
	for i, x := range ix {
		f += x * st[i]
	}
	return f
}

// indexConfig is a random index operand: batch dims with the index vector
// of depth k inserted at ivd (or implicit at the end when k is 1).
type indexConfig struct {
	batch []int
	k     int
	ivd   int
	dims  []int
}

func randomIndices(r *rand.Rand, k int) indexConfig {
	c := indexConfig{k: k}
	for i := r.Intn(3); i > 0; i-- {
		c.batch = append(c.batch, 1+r.Intn(3))
	}
	c.ivd = r.Intn(len(c.batch) + 1)
	implicit := k == 1 && r.Intn(3) == 0
	if implicit {
		c.ivd = len(c.batch)
		c.dims = append([]int{}, c.batch...)
		return c
	}
	c.dims = append(append(append([]int{}, c.batch[:c.ivd]...), k), c.batch[c.ivd:]...)
	return c
}

// at returns index component j of batch entry b.
func (c indexConfig) at(vals []int32, b []int, j int) int {
	ix := append([]int{}, b...)
	if len(c.dims) > len(c.batch) {
		ix = append(append(append([]int{}, b[:c.ivd]...), j), b[c.ivd:]...)
	}
	return int(vals[flat(ix, c.dims)])
}

func randomSubset(r *rand.Rand, xs []int) []int {
	var out []int
	for _, x := range xs {
		if r.Intn(2) == 0 {
			out = append(out, x)
		}
	}
	return out
}

func sortedPositions(r *rand.Rand, n, k int) []int {
	p := r.Perm(n)[:k]
	for i := range p {
		for j := i + 1; j < len(p); j++ {
			if p[j] < p[i] {
				p[i], p[j] = p[j], p[i]
			}
		}
	}
	return p
}

func f32Values(r *rand.Rand, n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(r.Intn(200)-100) / 8
	}
	return out
}

// Random gathers (operand ranks 1-3, start index maps in any order,
// collapsed and offset dimensions anywhere, out-of-range start indices)
// match the StableHLO spec computed directly.
func TestRandomGathersMatchSpec(t *testing.T) {
	r := rand.New(rand.NewSource(13))
	for trial := 0; trial < 60; trial++ {
		od := make([]int, 1+r.Intn(3))
		for i := range od {
			od[i] = 1 + r.Intn(5)
		}
		k := 1 + r.Intn(len(od))
		ic := randomIndices(r, k)
		sim := r.Perm(len(od))[:k]
		collapsed := randomSubset(r, sim)
		obd, sibd, bpos := batching(r, od, sim, ic)
		sizes := make([]int, len(od))
		var window []int // non-collapsed, non-batching operand dims
		for d := range od {
			if idxIn(collapsed, d) || idxIn(obd, d) {
				sizes[d] = 1
			} else {
				sizes[d] = 1 + r.Intn(od[d])
				window = append(window, d)
			}
		}
		sortInts(collapsed)
		rank := len(ic.batch) + len(window)
		offsetDims := sortedPositions(r, rank, len(window))
		res := interleaveDims(rank, offsetDims, func(k int) int { return sizes[window[k]] }, ic.batch)
		xT, iT, rT := tt(od, "f32"), tt(ic.dims, "i32"), tt(res, "f32")
		src := fmt.Sprintf(`func.func @f(%%x: %s, %%i: %s) -> %s {
  %%0 = "stablehlo.gather"(%%x, %%i) {dimension_numbers = #stablehlo.gather<offset_dims = %s, collapsed_slice_dims = %s, operand_batching_dims = %s, start_indices_batching_dims = %s, start_index_map = %s, index_vector_dim = %d>, slice_sizes = array<i64: %s>} : (%s, %s) -> %s
  return %%0 : %s
}`, xT, iT, rT, listStr(offsetDims), listStr(collapsed), listStr(obd), listStr(sibd), listStr(sim), ic.ivd,
			strings.Trim(listStr(sizes), "[]"), xT, iT, rT, rT)
		x := f32Values(r, count(od))
		idx := make([]int32, count(ic.dims))
		for i := range idx {
			idx[i] = int32(r.Intn(8) - 2)
		}
		got := f32s(runProgram(t, src, [][]byte{bytesOf(x), i32Bytes(idx)}))
		for f := 0; f < count(res); f++ {
			ri := unflatten(f, res)
			var b, off []int
			for p, v := range ri {
				if idxIn(offsetDims, p) {
					off = append(off, v)
				} else {
					b = append(b, v)
				}
			}
			oi := make([]int, len(od))
			for j, d := range sim {
				s := ic.at(idx, b, j)
				oi[d] = max(0, min(s, od[d]-sizes[d]))
			}
			for w, d := range window {
				oi[d] += off[w]
			}
			for j, d := range obd {
				oi[d] = b[bpos[j]]
			}
			if want := x[flat(oi, od)]; got[f] != want {
				t.Fatalf("trial %d element %v: got %v want %v\n%s", trial, ri, got[f], want, src)
			}
		}
	}
}

// Random scatter-adds (windows anywhere in the updates, inserted
// dimensions, repeated and out-of-range indices) match the StableHLO spec
// computed directly, in update order.
func TestRandomScattersMatchSpec(t *testing.T) {
	r := rand.New(rand.NewSource(14))
	for trial := 0; trial < 60; trial++ {
		od := make([]int, 1+r.Intn(3))
		for i := range od {
			od[i] = 1 + r.Intn(5)
		}
		k := 1 + r.Intn(len(od))
		ic := randomIndices(r, k)
		sdod := r.Perm(len(od))[:k]
		inserted := randomSubset(r, sdod)
		sortInts(inserted)
		ibd, sibd, bpos := batching(r, od, sdod, ic)
		var window []int
		wsize := map[int]int{}
		for d := range od {
			if !idxIn(inserted, d) && !idxIn(ibd, d) {
				window = append(window, d)
				wsize[d] = 1 + r.Intn(od[d])
			}
		}
		rank := len(ic.batch) + len(window)
		uwd := sortedPositions(r, rank, len(window))
		ud := interleaveDims(rank, uwd, func(k int) int { return wsize[window[k]] }, ic.batch)
		xT, iT, uT := tt(od, "f32"), tt(ic.dims, "i32"), tt(ud, "f32")
		src := fmt.Sprintf(`func.func @f(%%x: %s, %%i: %s, %%u: %s) -> %s {
  %%0 = "stablehlo.scatter"(%%x, %%i, %%u) ({
  ^bb0(%%a: tensor<f32>, %%b: tensor<f32>):
    %%s = stablehlo.add %%a, %%b : tensor<f32>
    stablehlo.return %%s : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = %s, inserted_window_dims = %s, input_batching_dims = %s, scatter_indices_batching_dims = %s, scatter_dims_to_operand_dims = %s, index_vector_dim = %d>} : (%s, %s, %s) -> %s
  return %%0 : %s
}`, xT, iT, uT, xT, listStr(uwd), listStr(inserted), listStr(ibd), listStr(sibd), listStr(sdod), ic.ivd, xT, iT, uT, xT, xT)
		x := f32Values(r, count(od))
		u := f32Values(r, count(ud))
		idx := make([]int32, count(ic.dims))
		for i := range idx {
			idx[i] = int32(r.Intn(7) - 1)
		}
		got := f32s(runProgram(t, src, [][]byte{bytesOf(x), i32Bytes(idx), bytesOf(u)}))
		want := append([]float32(nil), x...)
		for f := 0; f < count(ud); f++ {
			ui := unflatten(f, ud)
			var b, w []int
			for p, v := range ui {
				if idxIn(uwd, p) {
					w = append(w, v)
				} else {
					b = append(b, v)
				}
			}
			oi := make([]int, len(od))
			for j, d := range sdod {
				oi[d] = ic.at(idx, b, j)
			}
			inside := true
			for wi, d := range window {
				oi[d] += w[wi]
			}
			for j, d := range ibd {
				oi[d] = b[bpos[j]]
			}
			for d := range od {
				inside = inside && oi[d] >= 0 && oi[d] < od[d]
			}
			if inside {
				want[flat(oi, od)] += u[f]
			}
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("trial %d element %v: got %v want %v\n%s", trial, unflatten(i, od), got[i], want[i], src)
			}
		}
	}
}

// batching picks, half of the time, one operand dimension outside used
// and pairs it with a batch dimension of the indices (resizing the
// operand dimension to match); it returns the operand batching dims, the
// indices batching dims and each one's batch position.
func batching(r *rand.Rand, od, used []int, ic indexConfig) (obd, sibd, bpos []int) {
	var free []int
	for d := range od {
		if !idxIn(used, d) {
			free = append(free, d)
		}
	}
	if len(free) == 0 || len(ic.batch) == 0 || r.Intn(2) == 0 {
		return nil, nil, nil
	}
	d := free[r.Intn(len(free))]
	p := r.Intn(len(ic.batch))
	od[d] = ic.batch[p]
	id := p
	if len(ic.dims) > len(ic.batch) && p >= ic.ivd {
		id = p + 1
	}
	return []int{d}, []int{id}, []int{p}
}

func idxIn(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func sortInts(xs []int) {
	for i := range xs {
		for j := i + 1; j < len(xs); j++ {
			if xs[j] < xs[i] {
				xs[i], xs[j] = xs[j], xs[i]
			}
		}
	}
}

// interleaveDims builds a shape of the given rank whose positions in
// winPos hold the window sizes winSize(0), winSize(1), … in order and whose
// other positions hold the batch sizes in order.
func interleaveDims(rank int, winPos []int, winSize func(k int) int, batch []int) []int {
	out := make([]int, rank)
	bi, wi := 0, 0
	for p := range out {
		if idxIn(winPos, p) {
			out[p] = winSize(wi)
			wi++
		} else {
			out[p] = batch[bi]
			bi++
		}
	}
	return out
}
