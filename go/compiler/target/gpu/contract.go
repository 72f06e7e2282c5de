package gpu

import (
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/status"
)

// The thread-level Contract: 64 threads as an 8×8 grid, each computing an
// 8×8 block of a 64×64 tile of C (rows ty, ty+8, …; columns tx, tx+8, …:
// neighbouring threads store neighbouring columns), the A and B tiles of
// each 16-deep step of K staged in workgroup memory by all threads.
const (
	contractThreads = 64
	contractGrid    = 8 // threads per tile row and column
	contractBlock   = 8 // C elements per thread per row and column
	contractTile    = contractGrid * contractBlock
	contractDepth   = 16 // K per step
	// ContractSharedBytes is the workgroup memory an expanded Contract
	// uses (the A and B tiles of one K step, f32).
	ContractSharedBytes = 2 * contractTile * contractDepth * 4
)

// ExpandContracts turns a tile-level kernel holding Contract ops (f32
// matrix products, codegen's Strategy.Contract) into a thread-level kernel
// of contractThreads threads that computes each Contract cooperatively:
// C's tile is covered by 64×64 blocks, and for each block every thread
// accumulates its 8×8 elements over K in registers, from A and B tiles
// that all threads load into workgroup memory one K step at a time. The
// sums run over K in order with a multiply and an add per step, as the
// reference interpreter's Contract, so the results are the same bit for
// bit; the fused epilogue (bias, residual, bounds) is applied before the
// store. The kernel's other work is a tile-level sweep (C's
// initialization, an epilogue over the stored tile): its top-level loops
// are shared among the threads, loop by loop, and the rest of its stores
// run in thread 0; barriers that order binding memory separate them from
// the Contracts. It reports whether k had a Contract.
func ExpandContracts(k *kir.Kernel) (bool, error) {
	if findKind(k.Body, kir.Contract) == nil {
		return false, nil
	}
	if k.WorkgroupSize != [3]int{1, 1, 1} {
		return false, status.Errorf(status.Internal, "gpu: %s: Contract in a thread-level kernel", k.Name)
	}
	for _, op := range k.Body.Ops {
		for _, r := range op.Regions {
			if findKind(r, kir.Contract) != nil {
				return false, status.Errorf(status.Internal, "gpu: %s: a Contract nested in control flow", k.Name)
			}
		}
		if op.Kind == kir.Contract {
			if err := checkContract(k, op); err != nil {
				return false, err
			}
		}
	}
	old := k.Body.Ops
	k.Body = &kir.Block{}
	b := &kir.Builder{K: k, Block: k.Body}
	x := &contractExpansion{k: k, tid: b.Query(kir.ThreadID, 0)}
	x.sA = len(k.Shared)
	k.Shared = append(k.Shared,
		kir.SharedAlloc{Elem: kir.F32, Count: contractTile * contractDepth, Scratch: true},
		kir.SharedAlloc{Elem: kir.F32, Count: contractDepth * contractTile, Scratch: true})
	x.sB = x.sA + 1
	for _, op := range old {
		switch {
		case op.Kind == kir.Contract:
			b.BarrierBindings()
			x.contract(b, op)
			b.BarrierBindings()
		case op.Kind == kir.For && len(op.Results) == 0:
			// A sweep: its iterations shared among the threads.
			lo, step := op.Args[0], op.Args[2]
			op.Args[0] = b.Bin(kir.Add, lo, b.Bin(kir.Mul, x.tid, step))
			op.Args[2] = b.Bin(kir.Mul, step, b.Idx(contractThreads))
			b.Append(op)
		case hasEffects(op):
			if len(op.Results) > 0 {
				return false, status.Errorf(status.Internal, "gpu: %s: a %v with results and stores beside a Contract", k.Name, op.Kind)
			}
			b.If(b.Cmp(kir.CmpI, kir.PredEQ, x.tid, b.Idx(0)), nil, func(b *kir.Builder) []kir.Value {
				b.Append(op)
				return nil
			}, nil)
		default:
			b.Append(op)
		}
	}
	k.WorkgroupSize = [3]int{contractThreads, 1, 1}
	return true, nil
}

// checkContract accepts the Contracts the expansion computes: f32
// operands in bindings.
func checkContract(k *kir.Kernel, op *kir.Op) error {
	for _, b := range op.Bindings {
		e, shared, ok := k.TileMem(b)
		if !ok || shared >= 0 || e != kir.F32 {
			return status.Errorf(status.Internal, "gpu: %s: a Contract over workgroup memory or non-f32 operands", k.Name)
		}
	}
	if op.Imm&kir.ContractUnsigned != 0 {
		return status.Errorf(status.Internal, "gpu: %s: an unsigned Contract", k.Name)
	}
	return nil
}

// hasEffects reports ops that write memory (or hold such ops).
func hasEffects(op *kir.Op) bool {
	switch op.Kind {
	case kir.Store, kir.StoreStrided, kir.StoreShared, kir.Contract, kir.DWConv, kir.Barrier:
		return true
	}
	for _, r := range op.Regions {
		for _, o := range r.Ops {
			if hasEffects(o) {
				return true
			}
		}
	}
	return false
}

// contractExpansion holds what the expanded Contracts of a kernel share.
type contractExpansion struct {
	k      *kir.Kernel
	tid    kir.Value
	sA, sB int // the workgroup memory of the A and B tiles
}

// contract emits one Contract op's thread-level computation.
func (x *contractExpansion) contract(b *kir.Builder, op *kir.Op) {
	var a [12]kir.Value
	copy(a[:], op.Args[:12])
	aOff, aRS, aCS, bOff, bRS, bCS, cOff, cRS, cCS, m, n, kk := a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11]
	ab, bb, cb := op.Bindings[0], op.Bindings[1], op.Bindings[2]
	zero := op.Imm&kir.ContractZero != 0
	epi := kir.ContractEpilogueOf(op)
	f32 := kir.S(kir.F32)
	tx := b.Bin(kir.RemS, x.tid, b.Idx(contractGrid))
	ty := b.Bin(kir.DivS, x.tid, b.Idx(contractGrid))
	// With K ≤ 0 and neither ContractZero nor an epilogue, C is unchanged.
	run := b.Cmp(kir.CmpI, kir.PredSGT, kk, b.Idx(0))
	if zero || op.Imm&(kir.ContractBias|kir.ContractRes|kir.ContractMax|kir.ContractMin) != 0 {
		run = b.Int(kir.S(kir.I1), 1)
	}
	kPos := b.Bin(kir.MaxS, kk, b.Idx(0))
	b.If(run, nil, func(b *kir.Builder) []kir.Value {
		b.For(b.Idx(0), m, b.Idx(contractTile), nil, func(b *kir.Builder, mb kir.Value, _ []kir.Value) []kir.Value {
			b.For(b.Idx(0), n, b.Idx(contractTile), nil, func(b *kir.Builder, nb kir.Value, _ []kir.Value) []kir.Value {
				mh := b.Bin(kir.MinS, b.Idx(contractTile), b.Bin(kir.Sub, m, mb))
				nh := b.Bin(kir.MinS, b.Idx(contractTile), b.Bin(kir.Sub, n, nb))
				// This thread's rows and columns within the block, and
				// whether each lies in C.
				var rows, cols [contractBlock]kir.Value
				var rowIn, colIn [contractBlock]kir.Value
				for i := 0; i < contractBlock; i++ {
					rows[i] = b.Bin(kir.Add, ty, b.Idx(int64(contractGrid*i)))
					cols[i] = b.Bin(kir.Add, tx, b.Idx(int64(contractGrid*i)))
					rowIn[i] = b.Cmp(kir.CmpI, kir.PredSLT, rows[i], mh)
					colIn[i] = b.Cmp(kir.CmpI, kir.PredSLT, cols[i], nh)
				}
				cAt := func(b *kir.Builder, i, j int) kir.Value {
					r := b.Bin(kir.Add, mb, rows[i])
					c := b.Bin(kir.Add, nb, cols[j])
					return b.Bin(kir.Add, cOff, b.Bin(kir.Add, b.Bin(kir.Mul, r, cRS), b.Bin(kir.Mul, c, cCS)))
				}
				inside := func(b *kir.Builder, i, j int) kir.Value { return b.Bin(kir.And, rowIn[i], colIn[j]) }
				acc := make([]kir.Value, contractBlock*contractBlock)
				for i := 0; i < contractBlock; i++ {
					for j := 0; j < contractBlock; j++ {
						if zero {
							acc[i*contractBlock+j] = b.Float(f32, 0)
							continue
						}
						acc[i*contractBlock+j] = b.If(inside(b, i, j), []kir.Type{f32}, func(b *kir.Builder) []kir.Value {
							return []kir.Value{b.Load(cb, f32, cAt(b, i, j))}
						}, func(b *kir.Builder) []kir.Value { return []kir.Value{b.Float(f32, 0)} })[0]
					}
				}
				acc = b.For(b.Idx(0), kPos, b.Idx(contractDepth), acc, func(b *kir.Builder, k0 kir.Value, acc []kir.Value) []kir.Value {
					kh := b.Bin(kir.MinS, b.Idx(contractDepth), b.Bin(kir.Sub, kPos, k0))
					x.stage(b, ab, aOff, aRS, aCS, mb, k0, mh, kh, bb, bOff, bRS, bCS, nb, nh)
					b.Barrier()
					acc = b.For(b.Idx(0), kh, b.Idx(1), acc, func(b *kir.Builder, p kir.Value, acc []kir.Value) []kir.Value {
						var av, bv [contractBlock]kir.Value
						for i := 0; i < contractBlock; i++ {
							av[i] = b.LoadShared(x.sA, f32, b.Bin(kir.Add, b.Bin(kir.Mul, rows[i], b.Idx(contractDepth)), p))
							bv[i] = b.LoadShared(x.sB, f32, b.Bin(kir.Add, b.Bin(kir.Mul, p, b.Idx(contractTile)), cols[i]))
						}
						out := make([]kir.Value, len(acc))
						for i := 0; i < contractBlock; i++ {
							for j := 0; j < contractBlock; j++ {
								s := i*contractBlock + j
								out[s] = b.Bin(kir.Add, acc[s], b.Bin(kir.Mul, av[i], bv[j]))
							}
						}
						return out
					})
					b.Barrier()
					return acc
				})
				for i := 0; i < contractBlock; i++ {
					for j := 0; j < contractBlock; j++ {
						v := acc[i*contractBlock+j]
						b.If(inside(b, i, j), nil, func(b *kir.Builder) []kir.Value {
							r := b.Bin(kir.Add, mb, rows[i])
							c := b.Bin(kir.Add, nb, cols[j])
							b.Store(cb, cAt(b, i, j), applyEpilogue(b, epi, v, r, c))
							return nil
						}, nil)
					}
				}
				return nil
			})
			return nil
		})
		return nil
	}, nil)
}

// stage loads the A tile (rows mb…mb+mh, columns k0…k0+kh) and the B tile
// (rows k0…, columns nb…nb+nh) of one K step into workgroup memory, each
// thread a share of the elements; elements outside C's block or K read
// nothing and hold +0 (never used: the K loop stops at kh, and rows and
// columns outside are not stored).
func (x *contractExpansion) stage(b *kir.Builder, ab int, aOff, aRS, aCS, mb, k0, mh, kh kir.Value, bb int, bOff, bRS, bCS, nb, nh kir.Value) {
	f32 := kir.S(kir.F32)
	// A: element e·64 + tid of the 64×16 tile: row (tid/16) + 4e,
	// column tid%16.
	aCol := b.Bin(kir.RemS, x.tid, b.Idx(contractDepth))
	aRow0 := b.Bin(kir.DivS, x.tid, b.Idx(contractDepth))
	aColIn := b.Cmp(kir.CmpI, kir.PredSLT, aCol, kh)
	for e := 0; e < contractTile*contractDepth/contractThreads; e++ {
		r := b.Bin(kir.Add, aRow0, b.Idx(int64(e*contractThreads/contractDepth)))
		in := b.Bin(kir.And, aColIn, b.Cmp(kir.CmpI, kir.PredSLT, r, mh))
		v := b.If(in, []kir.Type{f32}, func(b *kir.Builder) []kir.Value {
			off := b.Bin(kir.Add, aOff, b.Bin(kir.Add, b.Bin(kir.Mul, b.Bin(kir.Add, mb, r), aRS), b.Bin(kir.Mul, b.Bin(kir.Add, k0, aCol), aCS)))
			return []kir.Value{b.Load(ab, f32, off)}
		}, func(b *kir.Builder) []kir.Value { return []kir.Value{b.Float(f32, 0)} })[0]
		b.StoreShared(x.sA, b.Bin(kir.Add, b.Bin(kir.Mul, r, b.Idx(contractDepth)), aCol), v)
	}
	// B: element e·64 + tid of the 16×64 tile: row e, column tid.
	bColIn := b.Cmp(kir.CmpI, kir.PredSLT, x.tid, nh)
	for e := 0; e < contractDepth; e++ {
		in := b.Bin(kir.And, bColIn, b.Cmp(kir.CmpI, kir.PredSLT, b.Idx(int64(e)), kh))
		v := b.If(in, []kir.Type{f32}, func(b *kir.Builder) []kir.Value {
			off := b.Bin(kir.Add, bOff, b.Bin(kir.Add, b.Bin(kir.Mul, b.Bin(kir.Add, k0, b.Idx(int64(e))), bRS), b.Bin(kir.Mul, b.Bin(kir.Add, nb, x.tid), bCS)))
			return []kir.Value{b.Load(bb, f32, off)}
		}, func(b *kir.Builder) []kir.Value { return []kir.Value{b.Float(f32, 0)} })[0]
		b.StoreShared(x.sB, b.Bin(kir.Add, b.Idx(int64(e*contractTile)), x.tid), v)
	}
}

// applyEpilogue finishes C element (i, j) of the Contract's tile: bias,
// residual, then the bounds, each rounded to f32 (kir.ContractBias).
func applyEpilogue(b *kir.Builder, e kir.ContractEpilogue, v, i, j kir.Value) kir.Value {
	f32 := kir.S(kir.F32)
	if e.Bias >= 0 {
		at := i
		if e.PerColumn {
			at = j
		}
		v = b.Bin(kir.Add, v, b.Load(e.Bias, f32, b.Bin(kir.Add, e.BiasOff, b.Bin(kir.Mul, at, e.BiasStride))))
	}
	if e.Res >= 0 {
		off := b.Bin(kir.Add, e.ResOff, b.Bin(kir.Add, b.Bin(kir.Mul, i, e.ResRS), b.Bin(kir.Mul, j, e.ResCS)))
		v = b.Bin(kir.Add, v, b.Load(e.Res, f32, off))
	}
	if e.Lo >= 0 {
		v = b.Bin(kir.MaxF, v, e.Lo)
	}
	if e.Hi >= 0 {
		v = b.Bin(kir.MinF, v, e.Hi)
	}
	return v
}
