package gpu_test

import (
	"encoding/binary"
	"math"
	"math/rand"
	"testing"

	"github.com/gree-ml/gree/go/compiler/codegen"
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/gpu"
)

// int64Programs use i64 data the way models do: TOSA's rescale (i64
// multiply, round and shift), i64 tensors with every kind of arithmetic,
// gathers through i64 indices, argmax and iota producing i64, sums of
// i64 (cooperative reductions through shared memory) and conversions.
var int64Programs = map[string]string{
	"rescale": `func.func @f(%x: tensor<1030xi32>) -> tensor<1030xi8> {
  %m = "tosa.const"() <{values = dense<1518500250> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<37> : tensor<1xi8>}> : () -> tensor<1xi8>
  %iz = "tosa.const"() <{values = dense<3> : tensor<1xi32>}> : () -> tensor<1xi32>
  %oz = "tosa.const"() <{values = dense<-5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %d = tosa.rescale %x, %m, %s, %iz, %oz {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1030xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1030xi8>
  return %d : tensor<1030xi8>
}`,
	"arith": `func.func @f(%a: tensor<131xi64>, %b: tensor<131xi64>) -> (tensor<131xi64>, tensor<131xi64>, tensor<131xi64>, tensor<131xi64>, tensor<131xi1>) {
  %0 = arith.muli %a, %b : tensor<131xi64>
  %1 = arith.addi %0, %a : tensor<131xi64>
  %2 = arith.divsi %1, %b : tensor<131xi64>
  %3 = arith.remui %a, %b : tensor<131xi64>
  %4 = arith.shrsi %a, %b : tensor<131xi64>
  %5 = arith.xori %4, %3 : tensor<131xi64>
  %6 = arith.maxsi %5, %2 : tensor<131xi64>
  %7 = arith.cmpi ult, %a, %b : tensor<131xi64>
  %8 = arith.select %7, %6, %1 : tensor<131xi1>, tensor<131xi64>
  return %2, %5, %6, %8, %7 : tensor<131xi64>, tensor<131xi64>, tensor<131xi64>, tensor<131xi64>, tensor<131xi1>
}`,
	"gather": `func.func @f(%t: tensor<50xf32>, %i: tensor<7x3xi64>) -> tensor<7x3xf32> {
  %e = tensor.empty() : tensor<7x3xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%i : tensor<7x3xi64>) outs(%e : tensor<7x3xf32>) {
  ^bb0(%x: i64, %o: f32):
    %n = arith.index_cast %x : i64 to index
    %v = tensor.extract %t[%n] : tensor<50xf32>
    linalg.yield %v : f32
  } -> tensor<7x3xf32>
  return %0 : tensor<7x3xf32>
}`,
	"iota": `func.func @f(%a: tensor<9x70xi64>) -> tensor<9x70xi64> {
  %e = tensor.empty() : tensor<9x70xi64>
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<9x70xi64>) outs(%e : tensor<9x70xi64>) {
  ^bb0(%x: i64, %o: i64):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = arith.muli %i, %j : index
    %c = arith.index_cast %k : index to i64
    %big = arith.constant 4294967311 : i64
    %m = arith.muli %c, %big : i64
    %s = arith.subi %m, %x : i64
    linalg.yield %s : i64
  } -> tensor<9x70xi64>
  return %0 : tensor<9x70xi64>
}`,
	"sum_rows": `func.func @f(%a: tensor<5x3001xi64>) -> tensor<5xi64> {
  %z = arith.constant 0 : i64
  %e = tensor.empty() : tensor<5xi64>
  %i = linalg.fill ins(%z : i64) outs(%e : tensor<5xi64>) -> tensor<5xi64>
  %0 = linalg.reduce ins(%a : tensor<5x3001xi64>) outs(%i : tensor<5xi64>) dimensions = [1]
    (%x: i64, %acc: i64) {
      %s = arith.addi %x, %acc : i64
      linalg.yield %s : i64
    }
  return %0 : tensor<5xi64>
}`,
	"max_rows": `func.func @f(%a: tensor<3x700xi64>) -> tensor<3xi64> {
  %z = arith.constant -9223372036854775808 : i64
  %e = tensor.empty() : tensor<3xi64>
  %i = linalg.fill ins(%z : i64) outs(%e : tensor<3xi64>) -> tensor<3xi64>
  %0 = linalg.reduce ins(%a : tensor<3x700xi64>) outs(%i : tensor<3xi64>) dimensions = [1]
    (%x: i64, %acc: i64) {
      %s = arith.maxsi %x, %acc : i64
      linalg.yield %s : i64
    }
  return %0 : tensor<3xi64>
}`,
	"argmax": `func.func @f(%a: tensor<4x37xf32>) -> tensor<4xi64> {
  %z = arith.constant 0 : i64
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4xi64>
  %ef = tensor.empty() : tensor<4xf32>
  %i = linalg.fill ins(%z : i64) outs(%e : tensor<4xi64>) -> tensor<4xi64>
  %f = linalg.fill ins(%ninf : f32) outs(%ef : tensor<4xf32>) -> tensor<4xf32>
  %0:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<4x37xf32>) outs(%f, %i : tensor<4xf32>, tensor<4xi64>) {
  ^bb0(%x: f32, %m: f32, %k: i64):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %gt = arith.cmpf ogt, %x, %m : f32
    %nm = arith.select %gt, %x, %m : f32
    %nk = arith.select %gt, %jj, %k : i64
    linalg.yield %nm, %nk : f32, i64
  } -> (tensor<4xf32>, tensor<4xi64>)
  return %0#1 : tensor<4xi64>
}`,
	"convert": `func.func @f(%a: tensor<77xi64>, %b: tensor<77xf32>) -> (tensor<77xf32>, tensor<77xi64>, tensor<77xi64>, tensor<77xi32>) {
  %0 = arith.sitofp %a : tensor<77xi64> to tensor<77xf32>
  %1 = arith.fptosi %b : tensor<77xf32> to tensor<77xi64>
  %2 = arith.uitofp %a : tensor<77xi64> to tensor<77xf32>
  %3 = arith.fptoui %2 : tensor<77xf32> to tensor<77xi64>
  %4 = arith.trunci %a : tensor<77xi64> to tensor<77xi32>
  %5 = arith.extsi %4 : tensor<77xi32> to tensor<77xi64>
  %6 = arith.addi %5, %1 : tensor<77xi64>
  return %0, %6, %3, %4 : tensor<77xf32>, tensor<77xi64>, tensor<77xi64>, tensor<77xi32>
}`,
}

// TestLegalizeWithoutInt64 lowers each program's dispatches with the GPU
// strategy of vp_android_baseline_2022, runs every kernel on the
// reference interpreter before and after Legalize on bindings holding
// i64 values of every magnitude, and requires the same outcome: the same
// bytes, or both failing (an out-of-range gather index).
func TestLegalizeWithoutInt64(t *testing.T) {
	target := gpu.AndroidBaseline2022()
	modes := []lowering{
		{name: "i64index", lower: func(k *kir.Kernel) error {
			return gpu.WithIndexNarrowing(false, func() error { return gpu.Legalize(k, target) })
		}},
		{"i32index", func(k *kir.Kernel) error {
			return gpu.WithIndexNarrowing(true, func() error { return gpu.Legalize(k, target) })
		}, true, false},
	}
	for _, l := range modes {
		for name, src := range int64Programs {
			t.Run(l.name+"/"+name, func(t *testing.T) {
				eachGPUDispatch(t, src, target, func(d *codegen.Dispatch, n int) {
					r := rand.New(rand.NewSource(int64(n)))
					k := d.Kernel
					for trial := 0; trial < 3; trial++ {
						in := make([][]byte, len(k.Bindings))
						for i, b := range k.Bindings {
							in[i] = wideBinding(b.Elem, elements(t, d.Bindings[i]), r, name == "gather" && trial < 2)
						}
						if trial < 2 {
							checkLowered(t, cloneKernel(t, k), grid(k), nil, in, l)
							continue
						}
						checkLowered(t, k, grid(k), nil, in, l)
					}
				})
			})
		}
	}
}

// cloneKernel returns a deep copy of k, for lowering it more than once.
func cloneKernel(t *testing.T, k *kir.Kernel) *kir.Kernel {
	t.Helper()
	c := *k
	c.Bindings = append([]kir.Binding(nil), k.Bindings...)
	c.Shared = append([]kir.SharedAlloc(nil), k.Shared...)
	c.Types = append([]kir.Type(nil), k.Types...)
	c.Body = cloneBlock(k.Body)
	return &c
}

func cloneBlock(b *kir.Block) *kir.Block {
	nb := &kir.Block{Args: append([]kir.Value(nil), b.Args...)}
	for _, op := range b.Ops {
		o := *op
		o.Args = append([]kir.Value(nil), op.Args...)
		o.Results = append([]kir.Value(nil), op.Results...)
		o.Regions = nil
		for _, r := range op.Regions {
			o.Regions = append(o.Regions, cloneBlock(r))
		}
		nb.Ops = append(nb.Ops, &o)
	}
	return nb
}

// wideBinding fills n elements of e: i64 with values of every magnitude
// (small indices in [0, 50) when gather is set), f32 with values up to
// ±1e19 and the odd infinity and NaN, other integers at random.
func wideBinding(e kir.Scalar, n int, r *rand.Rand, gather bool) []byte {
	b := make([]byte, n*e.ByteSize())
	for i := 0; i < n; i++ {
		switch e {
		case kir.I64:
			x := int64(r.Uint64() >> uint(r.Intn(64)))
			if r.Intn(2) == 0 {
				x = -x
			}
			if gather {
				x = int64(r.Intn(50))
			}
			binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
		case kir.F32:
			x := float32((r.Float64()*2 - 1) * math.Pow(10, float64(r.Intn(20))))
			switch r.Intn(40) {
			case 0:
				x = float32(math.Inf(1))
			case 1:
				x = float32(math.NaN())
			}
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
		default:
			x := r.Uint64()
			for j := 0; j < e.ByteSize(); j++ {
				b[i*e.ByteSize()+j] = byte(x >> (8 * j))
			}
		}
	}
	return b
}
