package gpu_test

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
)

var packedElems = []kir.Scalar{kir.I1, kir.I8, kir.I16, kir.F16, kir.BF16}

// copyKernel loads w lanes of e from binding 0 at offset a and stores
// them to binding 1 at offset c, strided by stride when it is not 1
// (offsets and stride are push constants 0, 1, 2 when dynamic, constants
// otherwise).
func copyKernel(e kir.Scalar, w int, a, c, stride int64, dynamic bool) *kir.Kernel {
	k, b := kir.NewKernel(fmt.Sprintf("copy_%s_%d", e, w))
	k.Bindings = []kir.Binding{{Elem: e, Access: kir.Read}, {Elem: e, Access: kir.ReadWrite}}
	val := func(pc int, x int64) kir.Value {
		if dynamic {
			return b.Query(kir.PushConstant, pc)
		}
		return b.Idx(x)
	}
	if dynamic {
		k.NumPushConstants = 3
	}
	t := kir.V(e, w)
	if w == 1 {
		t = kir.S(e)
	}
	ia, ic, is := val(0, a), val(1, c), val(2, stride)
	var v kir.Value
	if stride != 1 && w > 1 {
		v = b.LoadStrided(0, t, ia, is)
		b.StoreStrided(1, ic, is, v)
	} else {
		v = b.Load(0, t, ia)
		b.Store(1, ic, v)
	}
	b.Append(&kir.Op{Kind: kir.Yield})
	return k
}

// inPadding reports whether an access of w lanes from element a, stride
// apart, to a buffer of n elements of e touches the padding of its last
// word without leaving its words.
func inPadding(e kir.Scalar, n int, a int64, w int, stride int64) bool {
	words := (int64(n*e.ByteSize()) + 3) / 4
	padded := words * 4 / int64(e.ByteSize())
	pad := false
	for i := int64(0); i < int64(w); i++ {
		x := a + i*stride
		if x < 0 || x >= padded {
			return false
		}
		pad = pad || x >= int64(n)
	}
	return pad
}

func randomBytes(n int, r *rand.Rand) []byte {
	out := make([]byte, n)
	for i := range out {
		out[i] = byte(r.Uint32())
	}
	return out
}

// TestNarrowLoadStore copies vectors of 1 to 9 lanes between packed
// buffers of every length from 1 to 11 elements (so that most end in a
// partial word), at every offset (out-of-bounds ones included, which
// both kernels must report), statically and dynamically aligned or not,
// contiguous and strided; the bytes a store does not cover keep their
// values.
func TestNarrowLoadStore(t *testing.T) {
	target := narrowTargets()[0]
	r := rand.New(rand.NewPCG(5, 6))
	for _, e := range packedElems {
		t.Run(e.String(), func(t *testing.T) {
			runs := 0
			for n := 1; n <= 11; n++ {
				for w := 1; w <= 9; w++ {
					for _, stride := range []int64{1, 2, 3, -1} {
						if stride != 1 && w == 1 {
							continue
						}
						for a := int64(-1); a <= int64(n); a++ {
							c := (a*5 + int64(w)) % int64(n+2)
							if stride < 0 {
								a, c = a+int64(w)-1, c+int64(w)-1
							}
							for _, dynamic := range []bool{false, true} {
								if (a+int64(w)+c)%3 != 0 && !dynamic && n > 4 {
									continue // a sample of the static cases
								}
								in := [][]byte{randomBytes(n*e.ByteSize(), r), randomBytes(n*e.ByteSize(), r)}
								checkNarrowPadded(t, target, func() *kir.Kernel { return copyKernel(e, w, a, c, stride, dynamic) },
									[3]int64{1, 1, 1}, []int64{a, c, stride}, in, inPadding(e, n, a, w, stride) || inPadding(e, n, c, w, stride))
								runs++
							}
						}
					}
				}
			}
			t.Logf("%d copies", runs)
		})
	}
}

// neighboursKernel has threads×wgs threads store into adjacent elements
// of binding 1: thread g stores lanes elements from g·lanes (vectors not
// aligned to words when lanes is odd), then element g of binding 2 alone,
// each the value at the same place of binding 0 plus one (floats) or
// xor one (integers), so that every byte changes.
func neighboursKernel(e kir.Scalar, threads, lanes int) *kir.Kernel {
	k, b := kir.NewKernel(fmt.Sprintf("neighbours_%s_%d", e, lanes))
	k.Bindings = []kir.Binding{{Elem: e, Access: kir.Read}, {Elem: e, Access: kir.Write}, {Elem: e, Access: kir.Write}}
	k.WorkgroupSize = [3]int{threads, 1, 1}
	g := b.Bin(kir.Add, b.Bin(kir.Mul, b.Query(kir.WorkgroupID, 0), b.Idx(int64(threads))), b.Query(kir.ThreadID, 0))
	t := kir.V(e, lanes)
	if lanes == 1 {
		t = kir.S(e)
	}
	change := func(x kir.Value) kir.Value {
		ty := k.Types[x]
		if e.IsFloat() {
			return b.Bin(kir.Add, x, b.Float(ty, 1))
		}
		return b.Bin(kir.Xor, x, b.Int(ty, 1))
	}
	off := b.Bin(kir.Mul, g, b.Idx(int64(lanes)))
	b.Store(1, off, change(b.Load(0, t, off)))
	b.Store(2, g, change(b.Load(0, kir.S(e), g)))
	b.Append(&kir.Op{Kind: kir.Yield})
	return k
}

// TestNarrowNeighbourStores has many threads of several workgroups store
// neighbouring elements of one word at once, repeatedly: the atomics
// must keep every other thread's bytes.
func TestNarrowNeighbourStores(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, target := range narrowTargets() {
		for _, e := range packedElems {
			for _, lanes := range []int{1, 2, 3, 4, 5} {
				t.Run(fmt.Sprintf("%s/%s/%d", target.Name, e, lanes), func(t *testing.T) {
					const threads, wgs = 64, 3
					n := threads * wgs * lanes
					for rep := 0; rep < 3; rep++ {
						in := [][]byte{randomBytes(n*e.ByteSize(), r), randomBytes(n*e.ByteSize(), r), randomBytes(threads*wgs*e.ByteSize(), r)}
						k := checkNarrow(t, target, func() *kir.Kernel { return neighboursKernel(e, threads, lanes) }, [3]int64{wgs, 1, 1}, nil, in)
						if rep == 0 && e != kir.I1 && lanes == 1 && !hasAtomics(k.Body) {
							t.Fatalf("no atomics in\n%s", k)
						}
					}
				})
			}
		}
	}
}

func hasAtomics(blk *kir.Block) bool {
	for _, op := range blk.Ops {
		if op.Kind == kir.AtomicRMW {
			return true
		}
		for _, r := range op.Regions {
			if hasAtomics(r) {
				return true
			}
		}
	}
	return false
}

var _ sync.Mutex

// sharedKernel has each thread store element g of binding 0 into shared
// memory of e, then, after a barrier, store its neighbour's (thread
// (g+1) mod threads) to binding 1, and the shared element plus itself
// (wrapping, rounding) to binding 2.
func sharedKernel(e kir.Scalar, threads int) *kir.Kernel {
	k, b := kir.NewKernel("shared_" + e.String())
	k.Bindings = []kir.Binding{{Elem: e, Access: kir.Read}, {Elem: e, Access: kir.Write}, {Elem: e, Access: kir.Write}}
	k.WorkgroupSize = [3]int{threads, 1, 1}
	k.Shared = []kir.SharedAlloc{{Elem: e, Count: int64(threads)}, {Elem: e, Count: 3, Scratch: true}}
	tid := b.Query(kir.ThreadID, 0)
	g := b.Bin(kir.Add, b.Bin(kir.Mul, b.Query(kir.WorkgroupID, 0), b.Idx(int64(threads))), tid)
	x := b.Load(0, kir.S(e), g)
	b.StoreShared(0, tid, x)
	b.Barrier()
	next := b.Bin(kir.RemS, b.Bin(kir.Add, tid, b.Idx(1)), b.Idx(int64(threads)))
	y := b.LoadShared(0, kir.S(e), next)
	b.Store(1, g, y)
	if e != kir.I1 {
		b.Store(2, g, b.Bin(kir.Add, y, x))
	} else {
		b.Store(2, g, b.Bin(kir.Xor, y, x))
	}
	b.Append(&kir.Op{Kind: kir.Yield})
	return k
}

func TestNarrowShared(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, target := range narrowTargets() {
		for _, e := range packedElems {
			t.Run(target.Name+"/"+e.String(), func(t *testing.T) {
				const threads, wgs = 32, 2
				n := threads * wgs * e.ByteSize()
				in := [][]byte{randomBytes(n, r), randomBytes(n, r), randomBytes(n, r)}
				k := checkNarrow(t, target, func() *kir.Kernel { return sharedKernel(e, threads) }, [3]int64{wgs, 1, 1}, nil, in)
				if e != kir.I1 && k.Shared[0].Elem.Bits() != 32 {
					t.Fatalf("shared allocation of %s", k.Shared[0].Elem)
				}
			})
		}
	}
}
