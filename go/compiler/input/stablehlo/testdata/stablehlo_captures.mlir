// Region bodies that use values defined above them, as JAX 0.10 emits
// them: a sort comparator reading the function's NaN and zero constants
// (with name-only locations), a reduce body and a map body reading a
// function argument, while and case regions reading outer values, a
// scatter update computation reading an outer constant.
#loc = loc(unknown)
#loc4 = loc("sort")
module @captures {
  func.func @sort_nan(%arg0: tensor<3x5xf32> loc("x")) -> tensor<3x5xf32> {
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32> loc(#loc)
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32> loc(#loc)
    %0 = "stablehlo.sort"(%arg0) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<f32> loc("sort:"(#loc4)), %arg2: tensor<f32> loc("sort:"(#loc4))):
      %1 = stablehlo.compare EQ, %arg1, %cst_0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1> loc(#loc5)
      %2 = stablehlo.select %1, %cst_0, %arg1 : tensor<i1>, tensor<f32> loc(#loc6)
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1> loc(#loc7)
      %4 = stablehlo.select %3, %cst, %2 : tensor<i1>, tensor<f32> loc(#loc6)
      %5 = stablehlo.compare EQ, %arg2, %cst_0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1> loc(#loc5)
      %6 = stablehlo.select %5, %cst_0, %arg2 : tensor<i1>, tensor<f32> loc(#loc6)
      %7 = stablehlo.compare NE, %arg2, %arg2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1> loc(#loc7)
      %8 = stablehlo.select %7, %cst, %6 : tensor<i1>, tensor<f32> loc(#loc6)
      %9 = stablehlo.compare LT, %4, %8, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1> loc(#loc8)
      stablehlo.return %9 : tensor<i1> loc(#loc4)
    }) : (tensor<3x5xf32>) -> tensor<3x5xf32> loc(#loc4)
    return %0 : tensor<3x5xf32> loc(#loc)
  }
  func.func @reduce_scaled(%x: tensor<2x3xf32>, %s: tensor<f32>) -> tensor<2xf32> {
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %0 = stablehlo.reduce(%x init: %z) across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
     reducer(%acc: tensor<f32>, %v: tensor<f32>) {
      %p = stablehlo.multiply %v, %s : tensor<f32>
      %r = stablehlo.add %acc, %p : tensor<f32>
      stablehlo.return %r : tensor<f32>
    }
    return %0 : tensor<2xf32>
  }
  func.func @map_offset(%x: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xf32> {
    %two = stablehlo.constant dense<2.0> : tensor<f32>
    %0 = "stablehlo.map"(%x) ({
    ^bb0(%v: tensor<f32>):
      %m = stablehlo.multiply %v, %two : tensor<f32>
      %r = stablehlo.add %m, %s : tensor<f32>
      stablehlo.return %r : tensor<f32>
    }) {dimensions = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func @while_steps(%x: tensor<3xf32>, %limit: tensor<i32>) -> (tensor<i32>, tensor<3xf32>) {
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %step = stablehlo.constant dense<[0.5, 1.0, 2.0]> : tensor<3xf32>
    %0:2 = stablehlo.while(%i = %zero, %acc = %x) : tensor<i32>, tensor<3xf32>
     cond {
      %c = stablehlo.compare LT, %i, %limit, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %n = stablehlo.add %i, %one : tensor<i32>
      %a = stablehlo.add %acc, %step : tensor<3xf32>
      stablehlo.return %n, %a : tensor<i32>, tensor<3xf32>
    }
    return %0#0, %0#1 : tensor<i32>, tensor<3xf32>
  }
  func.func @case_pick(%k: tensor<i32>, %x: tensor<2xf32>) -> tensor<2xf32> {
    %c = stablehlo.constant dense<[10.0, 20.0]> : tensor<2xf32>
    %0 = "stablehlo.case"(%k) ({
      stablehlo.return %x : tensor<2xf32>
    }, {
      %s = stablehlo.add %x, %c : tensor<2xf32>
      stablehlo.return %s : tensor<2xf32>
    }, {
      stablehlo.return %c : tensor<2xf32>
    }) : (tensor<i32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
  func.func @scatter_scaled(%x: tensor<5xf32>, %u: tensor<2xf32>) -> tensor<5xf32> {
    %idx = stablehlo.constant dense<[[1], [3]]> : tensor<2x1xi32>
    %w = stablehlo.constant dense<3.0> : tensor<f32>
    %0 = "stablehlo.scatter"(%x, %idx, %u) ({
    ^bb0(%old: tensor<f32>, %new: tensor<f32>):
      %m = stablehlo.multiply %new, %w : tensor<f32>
      %r = stablehlo.add %old, %m : tensor<f32>
      stablehlo.return %r : tensor<f32>
    }) {indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = true} : (tensor<5xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<5xf32>
    return %0 : tensor<5xf32>
  }
}
#loc5 = loc("eq")
#loc6 = loc("select_n")
#loc7 = loc("ne")
#loc8 = loc("lt_to")
