// IREE's iree_linalg_ext ops that become generics (gather, arg_compare,
// map_load), a sort (topk) or a scatter (map_store); scatter, sort,
// topk_v2 and scan stay as they are.
func.func @gather(%src: tensor<5x3xf32>, %idx: tensor<4x1xi32>, %out: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = iree_linalg_ext.gather dimension_map = [0] ins(%src, %idx : tensor<5x3xf32>, tensor<4x1xi32>) outs(%out : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

func.func @argmax(%x: tensor<2x7xf32>, %v: tensor<2xf32>, %i: tensor<2xi32>) -> (tensor<2xf32>, tensor<2xi32>) {
  %0:2 = iree_linalg_ext.arg_compare dimension(1) ins(%x : tensor<2x7xf32>) outs(%v, %i : tensor<2xf32>, tensor<2xi32>) {
  ^bb0(%a: f32, %b: f32):
    %gt = arith.cmpf ogt, %a, %b : f32
    iree_linalg_ext.yield %gt : i1
  } -> tensor<2xf32>, tensor<2xi32>
  return %0#0, %0#1 : tensor<2xf32>, tensor<2xi32>
}

func.func @map_load(%src: tensor<4x4xi32>, %out: tensor<16xi32>) -> tensor<16xi32> {
  %pad = arith.constant 0 : i32
  %0 = iree_linalg_ext.map_load %src into %out {
  ^bb0(%i: index):
    %2:2 = affine.delinearize_index %i into (4, 4) : index, index
    iree_linalg_ext.yield %2#0, %2#1, %pad : index, index, i32
  } : tensor<4x4xi32> into tensor<16xi32> -> tensor<16xi32>
  return %0 : tensor<16xi32>
}

func.func @map_store(%in: tensor<4x4xf32>, %out: tensor<16xf32>) -> tensor<16xf32> {
  %c9 = arith.constant 9 : index
  %0 = iree_linalg_ext.map_store %in into %out {
  ^bb0(%i: index, %j: index):
    %l = affine.linearize_index disjoint [%i, %j] by (4, 4) : index
    %m = arith.cmpi ult, %l, %c9 : index
    iree_linalg_ext.yield %l, %m : index, i1
  } : tensor<4x4xf32> into tensor<16xf32> -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

func.func @scan(%x: tensor<6xf32>, %o: tensor<6xf32>, %a: tensor<f32>) -> (tensor<6xf32>, tensor<f32>) {
  %0:2 = iree_linalg_ext.scan dimension(0) inclusive(true) ins(%x : tensor<6xf32>) outs(%o, %a : tensor<6xf32>, tensor<f32>) {
  ^bb0(%p: f32, %q: f32):
    %s = arith.addf %p, %q : f32
    iree_linalg_ext.yield %s : f32
  } -> tensor<6xf32>, tensor<f32>
  return %0#0, %0#1 : tensor<6xf32>, tensor<f32>
}

func.func @attention(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>, %v: tensor<2x5x6xf32>, %m: tensor<2x3x5xi1>, %o: tensor<2x3x6xf32>) -> tensor<2x3x6xf32> {
  %scale = arith.constant 0.5 : f32
  %0 = iree_linalg_ext.attention {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4)>]} ins(%q, %k, %v, %scale, %m : tensor<2x3x4xf32>, tensor<2x5x4xf32>, tensor<2x5x6xf32>, f32, tensor<2x3x5xi1>) outs(%o : tensor<2x3x6xf32>) {
  ^bb0(%s: f32):
    iree_linalg_ext.yield %s : f32
  } -> tensor<2x3x6xf32>
  return %0 : tensor<2x3x6xf32>
}
