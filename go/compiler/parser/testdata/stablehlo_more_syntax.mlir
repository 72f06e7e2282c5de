// StableHLO/CHLO pretty forms: while, composite, tuples, complex and FFT,
// random numbers, the CHLO binary special functions, dynamic_pad and
// real_dynamic_slice; each prints in generic form with the attributes the
// generic form carries.
func.func private @twice(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func @f(%x: tensor<2xf32>, %n: tensor<i32>, %s: tensor<4xi32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i32>, tensor<2xf32>
    cond {
    %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %i1 = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %i1, %v : tensor<i32>, tensor<2xf32>
  }
  %1 = stablehlo.composite "gree.twice" %0#1 {composite_attributes = {k = 2 : i64}, decomposition = @twice} : (tensor<2xf32>) -> tensor<2xf32>
  %t = stablehlo.tuple %1, %x : tuple<tensor<2xf32>, tensor<2xf32>>
  %2 = stablehlo.get_tuple_element %t[0] : (tuple<tensor<2xf32>, tensor<2xf32>>) -> tensor<2xf32>
  %z = stablehlo.complex %2, %x : tensor<2xcomplex<f32>>
  %f = stablehlo.fft %z, type = IFFT, length = [2] : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  %re = stablehlo.real %f : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  %im = stablehlo.imag %f : tensor<2xcomplex<f32>>
  %sh = stablehlo.constant dense<[2]> : tensor<1xi64>
  %u = stablehlo.rng %re, %im, %sh, distribution = UNIFORM : (tensor<2xf32>, tensor<2xf32>, tensor<1xi64>) -> tensor<2xf32>
  %ns, %bits = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<4xi32>) -> (tensor<4xi32>, tensor<2xi32>)
  %na = chlo.next_after %u, %x : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  %pg = chlo.polygamma %na, %x : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  %ze = chlo.zeta %pg, %x : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  %lo = stablehlo.constant dense<[1]> : tensor<1xi32>
  %in = stablehlo.constant dense<[0]> : tensor<1xi32>
  %pv = stablehlo.constant dense<0.0> : tensor<f32>
  %pd = stablehlo.dynamic_pad %ze, %pv, %lo, %lo, %in : (tensor<2xf32>, tensor<f32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<4xf32>
  %st = stablehlo.constant dense<[1]> : tensor<1xi32>
  %li = stablehlo.constant dense<[3]> : tensor<1xi32>
  %sl = stablehlo.real_dynamic_slice %pd, %st, %li, %st : (tensor<4xf32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<2xf32>
  return %sl, %1 : tensor<2xf32>, tensor<2xf32>
}
