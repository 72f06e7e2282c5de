// Attributes of every kind, on one generic op each.
#map = affine_map<(d0, d1)[s0] -> (d0, s0 + d1, d0 - d1 * 2, (d0 + 1) floordiv 2, d1 ceildiv 4, d0 mod 3)>
#id = affine_map<(i, j) -> (i, j)>
#target = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "generic", native_vector_size = 16 : i64}>
!bv = !hal.buffer_view
"test.scalars"() {b = true, c = false, i = 42, j = -7 : i8, k = 255 : ui8, h = 0x10 : i32, x = 0 : index,
                  f = 1.5, g = -2.5e-3 : f32, half = 0.1 : f16, bf = 3.0 : bf16, nan = 0x7FC00000 : f32,
                  inf = 0x7C00 : f16, s = "a\"b\\c\n\09", ts = "typed" : i32, u, v = unit} : () -> ()
"test.aggregates"() {arr = [1, "two", [3.0 : f32], {k = @sym}], empty = [], d = {z = 1 : i64, "quoted key" = 2 : i64},
                     ref = @outer::@inner::@"quoted name", t = tensor<2x?xf32>, fn = (i32) -> (i32, f32), bv = !bv,
                     arrays = [array<i64: 1, 2, -3>, array<i1: true, false>, array<f32: 1.0, 2.5>, array<i32>]} : () -> ()
"test.dense"() {splat = dense<1.0> : tensor<2x3xf32>, nested = dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>,
                bools = dense<[true, false, true]> : tensor<3xi1>, hex = dense<"0x0000803F00000040"> : tensor<2xf32>,
                hexsplat = dense<"0x02000000"> : tensor<4xi32>, cplx = dense<[(1.0, 2.0), (3.0, -4.0)]> : tensor<2xcomplex<f32>>,
                vec = dense<[1, 2, 3, 4]> : vector<4xi64>, scalar = dense<7> : tensor<i8>, zero = dense<> : tensor<0xf32>,
                f16s = dense<[0.1, 65504.0, -0.0]> : tensor<3xf16>, idx = dense<[0, 1]> : tensor<2xindex>,
                u8 = dense<[0, 255]> : tensor<2xui8>} : () -> ()
"test.maps"() {map = #map, id = #id, constant = affine_map<() -> (0)>, sym = affine_map<()[s0, s1] -> (s0 * s1 - 1)>,
               target = #target, fast = #arith.fastmath<nnan, ninf>, strided = strided<[4, 1], offset: ?>,
               nested_alias = #hal.device.target<"local", [#target]>, dialect_type = !torch.vtensor<[1,3],f32>,
               arrow = !foo.fn<(i32) -> i32>} : () -> ()
