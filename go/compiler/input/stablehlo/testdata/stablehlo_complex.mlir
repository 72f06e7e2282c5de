// Complex values become pair tensors (a trailing dimension of 2): a
// complex product is one generic over the pair with a component loop, and
// a 4-point FFT a DFT accumulated in f64 then rounded.
func.func public @mul_fft(%re: tensor<4xf32>, %im: tensor<4xf32>) -> tensor<4xf32> {
  %z = stablehlo.complex %re, %im : tensor<4xcomplex<f32>>
  %p = stablehlo.multiply %z, %z : tensor<4xcomplex<f32>>
  %f = stablehlo.fft %p, type = FFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  %r = stablehlo.imag %f : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
