// Types of every kind as results of one generic op.
!alias = tensor<4x4xf32>
"test.types"() : () -> (i1, i4, si8, ui16, i64, index, f16, bf16, f32, f64, tf32, f8E4M3FN, f8E5M2, f8E4M3FNUZ, f4E2M1FN, none)
"test.shaped"() : () -> (tensor<f32>, tensor<2x?x3xi8>, tensor<*xf32>, tensor<0xf32>, tensor<4xf32, #foo.encoding<1>>,
                          vector<4xf32>, vector<[4]x2xf32>, vector<f32>, memref<4x?xf32>, memref<4xf32, 1>,
                          memref<4xf32, strided<[1], offset: ?>>, memref<2x2xf32, affine_map<(d0, d1) -> (d1, d0)>, 3>, memref<*xf32>)
"test.other"() : () -> (complex<f32>, complex<i32>, tuple<i32, tuple<>, f32>, () -> (), (i32, f32) -> f32, (i32) -> ((i32) -> i32),
                        !alias, !hal.buffer_view, !util.buffer, !torch.vtensor<[1,3],f32>, tensor<2x!quant.uniform<i8:f32, 0.5>>)
