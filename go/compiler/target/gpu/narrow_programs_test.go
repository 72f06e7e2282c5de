package gpu_test

import (
	"math/rand"

	"github.com/gree-ml/gree/go/compiler/kir"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/codegen"
	"github.com/gree-ml/gree/go/compiler/target/gpu"
	"github.com/gree-ml/gree/go/compiler/target/targettest"
)

// narrowPrograms are programs with 8- and 16-bit types, odd sizes (their
// packed bindings end in partial words), reductions and i1 results.
var narrowPrograms = map[string]string{
	"f16_elementwise": `func.func @f(%a: tensor<1003xf16>, %b: tensor<1003xf16>) -> tensor<1003xf16> {
  %0 = arith.addf %a, %b : tensor<1003xf16>
  %1 = math.exp %0 : tensor<1003xf16>
  %2 = arith.mulf %1, %a : tensor<1003xf16>
  return %2 : tensor<1003xf16>
}`,
	"i8_arith": `func.func @f(%a: tensor<37x19xi8>, %b: tensor<19xi8>) -> tensor<19x37xi8> {
  %e = tensor.empty() : tensor<19x37xi8>
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<37x19xi8>, tensor<19xi8>) outs(%e : tensor<19x37xi8>) {
  ^bb0(%x: i8, %y: i8, %o: i8):
    %s = arith.muli %x, %y : i8
    %t = arith.addi %s, %x : i8
    %u = arith.shrsi %t, %y : i8
    linalg.yield %u : i8
  } -> tensor<19x37xi8>
  return %0 : tensor<19x37xi8>
}`,
	"i16_to_f32_sum": `func.func @f(%a: tensor<7x301xi16>) -> tensor<7xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<7xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<7xf32>) -> tensor<7xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<7x301xi16>) outs(%i : tensor<7xf32>) {
  ^bb0(%x: i16, %acc: f32):
    %f = arith.sitofp %x : i16 to f32
    %s = arith.addf %f, %acc : f32
    linalg.yield %s : f32
  } -> tensor<7xf32>
  return %0 : tensor<7xf32>
}`,
	"bf16_round_trip": `func.func @f(%a: tensor<77xf32>) -> tensor<77xbf16> {
  %0 = arith.truncf %a : tensor<77xf32> to tensor<77xbf16>
  %1 = arith.addf %0, %0 : tensor<77xbf16>
  return %1 : tensor<77xbf16>
}`,
	"f16_sum_rows": `func.func @f(%a: tensor<5x999xf16>) -> tensor<5xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<5xf16>
  %i = linalg.fill ins(%z : f16) outs(%e : tensor<5xf16>) -> tensor<5xf16>
  %0 = linalg.reduce ins(%a : tensor<5x999xf16>) outs(%i : tensor<5xf16>) dimensions = [1]
    (%x: f16, %acc: f16) {
      %s = arith.addf %x, %acc : f16
      linalg.yield %s : f16
    }
  return %0 : tensor<5xf16>
}`,
	"i8_sum_rows": `func.func @f(%a: tensor<3x2001xi8>) -> tensor<3xi8> {
  %z = arith.constant 0 : i8
  %e = tensor.empty() : tensor<3xi8>
  %i = linalg.fill ins(%z : i8) outs(%e : tensor<3xi8>) -> tensor<3xi8>
  %0 = linalg.reduce ins(%a : tensor<3x2001xi8>) outs(%i : tensor<3xi8>) dimensions = [1]
    (%x: i8, %acc: i8) {
      %s = arith.addi %x, %acc : i8
      linalg.yield %s : i8
    }
  return %0 : tensor<3xi8>
}`,
	"compare_i1": `func.func @f(%a: tensor<101xf32>, %b: tensor<101xf32>) -> tensor<101xi1> {
  %0 = arith.cmpf olt, %a, %b : tensor<101xf32>
  return %0 : tensor<101xi1>
}`,
}

// TestLegalizedNarrowPrograms lowers programs with narrow types with the
// GPU strategy of targets with and without narrow types, and compares
// the legalized kernels with the tile kernels bit for bit.
func TestLegalizedNarrowPrograms(t *testing.T) {
	targets := append([]*gpu.Target{gpu.Llvmpipe()}, narrowTargets()...)
	for _, target := range targets {
		for name, src := range narrowPrograms {
			t.Run(target.Name+"/"+name, func(t *testing.T) {
				eachGPUDispatch(t, src, target, func(d *codegen.Dispatch, n int) {
					checkLegalizedNarrow(t, d, target, rand.New(rand.NewSource(int64(n))))
					if target.Has("Int8") {
						return
					}
					for _, b := range d.Kernel.Bindings {
						if b.Elem.Bits() < 32 {
							t.Fatalf("a binding of %s after legalization for %s\n%s", b.Elem, target.Name, d.Kernel)
						}
					}
					if text := d.Kernel.String(); strings.Contains(text, "xi8") || strings.Contains(text, "f16") {
						t.Fatalf("narrow values after legalization for %s\n%s", target.Name, text)
					}
				})
			})
		}
	}
}

// checkLegalizedNarrow runs d's tile kernel and the kernel Legalize makes
// of it for target on the same random bindings and requires the same
// bytes (NaNs of the binding's original type equal to NaNs).
func checkLegalizedNarrow(t *testing.T, d *codegen.Dispatch, target *gpu.Target, r *rand.Rand) {
	t.Helper()
	k := d.Kernel
	elems := make([]kir.Scalar, len(k.Bindings))
	in := make([][]byte, len(k.Bindings))
	for i, b := range k.Bindings {
		elems[i] = b.Elem
		in[i] = randomBinding(b.Elem, elements(t, d.Bindings[i]), r)
	}
	before, after := targettest.Clone(in), targettest.Clone(in)
	if err := kir.Run(k, grid(k), nil, before); err != nil {
		t.Fatalf("tile kernel: %v\n%s", err, k)
	}
	text := k.String()
	if err := gpu.Legalize(k, target); err != nil {
		t.Fatalf("legalize: %v\n%s", err, text)
	}
	if err := kir.Run(k, grid(k), nil, after); err != nil {
		t.Fatalf("legalized kernel: %v\n%s", err, k)
	}
	for i := range before {
		if diff := firstDiff(elems[i], before[i], after[i]); diff != "" {
			t.Fatalf("binding %d (%s): %s\nbefore:\n%s\nafter:\n%s", i, elems[i], diff, text, k)
		}
	}
}
