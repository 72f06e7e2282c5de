// Attributes JAX puts on modules, functions, arguments and results
// (older releases and jax.export add layout modes, GSPMD shardings,
// donation and aliasing markers, frontend attributes).
module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32, mhlo.frontend_attributes = {xla.sdy.meshes = "{}"}} {
  func.func public @main(%arg0: tensor<4xf32> {mhlo.layout_mode = "default", mhlo.sharding = "{replicated}", jax.buffer_donor = true}, %arg1: tensor<4xf32> {mhlo.layout_mode = "{0}", tf.aliasing_output = 0 : i32}) -> (tensor<4xf32> {jax.result_info = "result", mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{replicated}"} : (tensor<4xf32>) -> tensor<4xf32>
    %1 = func.call @_where(%0, %arg1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %1 : tensor<4xf32>
  }
  func.func private @_where(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> attributes {llvm.emit_c_interface} {
    %0 = stablehlo.compare  GT, %arg0, %arg1,  FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %1 = stablehlo.select %0, %arg0, %arg1 : tensor<4xi1>, tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}
