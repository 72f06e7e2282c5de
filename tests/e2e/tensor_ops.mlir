// Data movement: slices, padding, concatenation, reshapes, single elements.
func.func @extract_slice_static_and_strided() {
  %a = util.unfoldable_constant dense<[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]> : tensor<3x4xi32>
  %s = tensor.extract_slice %a[1, 1] [2, 2] [1, 1] : tensor<3x4xi32> to tensor<2x2xi32>
  check.expect_eq_const(%s, dense<[[5, 6], [9, 10]]> : tensor<2x2xi32>) : tensor<2x2xi32>
  %t = tensor.extract_slice %a[0, 0] [2, 2] [2, 3] : tensor<3x4xi32> to tensor<2x2xi32>
  check.expect_eq_const(%t, dense<[[0, 3], [8, 11]]> : tensor<2x2xi32>) : tensor<2x2xi32>
  %r = tensor.extract_slice %a[2, 0] [1, 4] [1, 1] : tensor<3x4xi32> to tensor<4xi32>
  check.expect_eq_const(%r, dense<[8, 9, 10, 11]> : tensor<4xi32>) : tensor<4xi32>
  return
}

func.func @extract_slice_dynamic_offset() {
  %a = util.unfoldable_constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<6xf32>
  %c2 = arith.constant 2 : index
  %o = util.optimization_barrier %c2 : index
  %s = tensor.extract_slice %a[%o] [3] [1] : tensor<6xf32> to tensor<3xf32>
  check.expect_eq_const(%s, dense<[2.0, 3.0, 4.0]> : tensor<3xf32>) : tensor<3xf32>
  return
}

func.func @insert_slice_pad_concat() {
  %d = util.unfoldable_constant dense<0> : tensor<3x4xi32>
  %s = util.unfoldable_constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %i = tensor.insert_slice %s into %d[1, 2] [2, 2] [1, 1] : tensor<2x2xi32> into tensor<3x4xi32>
  check.expect_eq_const(%i, dense<[[0, 0, 0, 0], [0, 0, 1, 2], [0, 0, 3, 4]]> : tensor<3x4xi32>) : tensor<3x4xi32>
  %c9 = arith.constant 9 : i32
  %p = tensor.pad %s low[1, 0] high[0, 1] {
  ^bb0(%x: index, %y: index):
    tensor.yield %c9 : i32
  } : tensor<2x2xi32> to tensor<3x3xi32>
  check.expect_eq_const(%p, dense<[[9, 9, 9], [1, 2, 9], [3, 4, 9]]> : tensor<3x3xi32>) : tensor<3x3xi32>
  %c = tensor.concat dim(1) %s, %s : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x4xi32>
  check.expect_eq_const(%c, dense<[[1, 2, 1, 2], [3, 4, 3, 4]]> : tensor<2x4xi32>) : tensor<2x4xi32>
  return
}

// An empty piece contributes nothing (and is never read).
func.func @concat_with_empty_piece() {
  %a = util.unfoldable_constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %e = util.unfoldable_constant dense<> : tensor<2x0xi32>
  %c = tensor.concat dim(1) %e, %a, %e : (tensor<2x0xi32>, tensor<2x2xi32>, tensor<2x0xi32>) -> tensor<2x2xi32>
  check.expect_eq_const(%c, dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>) : tensor<2x2xi32>
  return
}

// Pieces that are contiguous ranges of the result (every dimension before
// the concatenated one is 1) are copied into place by the host program:
// computed pieces, a constant, f16 and i8 elements, and a consumer after.
func.func @concat_contiguous_copies() {
  %a = util.unfoldable_constant dense<[[[1.0, 2.0], [3.0, 4.0]]]> : tensor<1x2x2xf32>
  %b = util.unfoldable_constant dense<[[[5.0, 6.0]]]> : tensor<1x1x2xf32>
  %a2 = arith.addf %a, %a : tensor<1x2x2xf32>
  %k = arith.constant dense<[[[-1.0, -2.0], [-3.0, -4.0]]]> : tensor<1x2x2xf32>
  %c = tensor.concat dim(1) %a2, %b, %k : (tensor<1x2x2xf32>, tensor<1x1x2xf32>, tensor<1x2x2xf32>) -> tensor<1x5x2xf32>
  %d = arith.mulf %c, %c : tensor<1x5x2xf32>
  check.expect_almost_eq_const(%c, dense<[[[2.0, 4.0], [6.0, 8.0], [5.0, 6.0], [-1.0, -2.0], [-3.0, -4.0]]]> : tensor<1x5x2xf32>) : tensor<1x5x2xf32>
  check.expect_almost_eq_const(%d, dense<[[[4.0, 16.0], [36.0, 64.0], [25.0, 36.0], [1.0, 4.0], [9.0, 16.0]]]> : tensor<1x5x2xf32>) : tensor<1x5x2xf32>
  %h = util.unfoldable_constant dense<[1.5, -2.0, 3.0]> : tensor<3xf16>
  %hc = tensor.concat dim(0) %h, %h : (tensor<3xf16>, tensor<3xf16>) -> tensor<6xf16>
  check.expect_almost_eq_const(%hc, dense<[1.5, -2.0, 3.0, 1.5, -2.0, 3.0]> : tensor<6xf16>) : tensor<6xf16>
  %i = util.unfoldable_constant dense<[[7, 8, 9]]> : tensor<1x3xi8>
  %j = util.unfoldable_constant dense<[[1]]> : tensor<1x1xi8>
  %ic = tensor.concat dim(1) %j, %i, %j : (tensor<1x1xi8>, tensor<1x3xi8>, tensor<1x1xi8>) -> tensor<1x5xi8>
  check.expect_eq_const(%ic, dense<[[1, 7, 8, 9, 1]]> : tensor<1x5xi8>) : tensor<1x5xi8>
  return
}

// A contiguous block inserted at run-time offsets is written in place of
// a copy of the destination (the host copies the destination, then the
// block's bytes): each step of a loop stores its row; the destination
// before the insert keeps its values.
func.func @insert_slice_contiguous_in_loop() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %z = util.unfoldable_constant dense<0.0> : tensor<3x1x2xf32>
  %row = util.unfoldable_constant dense<[[[1.0, 2.0]]]> : tensor<1x1x2xf32>
  %r:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %z, %v = %row) -> (tensor<3x1x2xf32>, tensor<1x1x2xf32>) {
    %a = tensor.insert_slice %v into %acc[%i, 0, 0] [1, 1, 2] [1, 1, 1] : tensor<1x1x2xf32> into tensor<3x1x2xf32>
    %v2 = arith.addf %v, %v : tensor<1x1x2xf32>
    scf.yield %a, %v2 : tensor<3x1x2xf32>, tensor<1x1x2xf32>
  }
  check.expect_almost_eq_const(%r#0, dense<[[[1.0, 2.0]], [[2.0, 4.0]], [[4.0, 8.0]]]> : tensor<3x1x2xf32>) : tensor<3x1x2xf32>
  check.expect_almost_eq_const(%z, dense<0.0> : tensor<3x1x2xf32>) : tensor<3x1x2xf32>
  %m = util.unfoldable_constant dense<[[1, 2, 3, 4], [5, 6, 7, 8]]> : tensor<2x4xi16>
  %p = util.unfoldable_constant dense<[[-1, -2]]> : tensor<1x2xi16>
  %q = tensor.insert_slice %p into %m[%c1, 1] [1, 2] [1, 1] : tensor<1x2xi16> into tensor<2x4xi16>
  check.expect_eq_const(%q, dense<[[1, 2, 3, 4], [5, -1, -2, 8]]> : tensor<2x4xi16>) : tensor<2x4xi16>
  return
}

func.func @reshapes() {
  %a = util.unfoldable_constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %c = tensor.collapse_shape %a [[0, 1]] : tensor<2x3xi32> into tensor<6xi32>
  check.expect_eq_const(%c, dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi32>) : tensor<6xi32>
  %e = tensor.expand_shape %c [[0, 1, 2]] output_shape [3, 1, 2] : tensor<6xi32> into tensor<3x1x2xi32>
  check.expect_eq_const(%e, dense<[[[1, 2]], [[3, 4]], [[5, 6]]]> : tensor<3x1x2xi32>) : tensor<3x1x2xi32>
  return
}

func.func @extract_insert_from_elements() {
  %a = util.unfoldable_constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = tensor.extract %a[%c1, %c0] : tensor<2x2xf32>
  %b = tensor.insert %x into %a[%c0, %c1] : tensor<2x2xf32>
  check.expect_eq_const(%b, dense<[[1.0, 3.0], [3.0, 4.0]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  check.expect_eq_const(%a, dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  %f = tensor.from_elements %x, %x, %x : tensor<3xf32>
  check.expect_eq_const(%f, dense<3.0> : tensor<3xf32>) : tensor<3xf32>
  %sp = tensor.splat %x : tensor<2x2xf32>
  check.expect_eq_const(%sp, dense<3.0> : tensor<2x2xf32>) : tensor<2x2xf32>
  return
}

func.func @generate() {
  %g = tensor.generate {
  ^bb0(%i: index, %j: index):
    %s = arith.addi %i, %j : index
    %v = arith.index_cast %s : index to i32
    tensor.yield %v : i32
  } : tensor<2x3xi32>
  check.expect_eq_const(%g, dense<[[0, 1, 2], [1, 2, 3]]> : tensor<2x3xi32>) : tensor<2x3xi32>
  return
}

func.func @dynamic_shapes() {
  %a = flow.tensor.dynamic_constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32> -> tensor<?x2xf32>
  %b = arith.addf %a, %a : tensor<?x2xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %b, %c0 : tensor<?x2xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.reduce ins(%b : tensor<?x2xf32>) outs(%f : tensor<?xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  %r = tensor.cast %s : tensor<?xf32> to tensor<3xf32>
  check.expect_almost_eq_const(%r, dense<[6.0, 14.0, 22.0]> : tensor<3xf32>) : tensor<3xf32>
  return
}

// Concatenations in place: pieces that dispatches compute are written
// into the concatenation's buffer (256-byte pieces, aligned for every
// target), a concatenation of a prefix of a larger one's pieces is a view
// of it (DenseNet's layers read the concatenation of all the features
// before them), and a piece concatenated twice, one at an unaligned offset
// and a constant one are copied; every value stays right.
func.func @concat_in_place() {
  %x = util.unfoldable_constant dense<1.0> : tensor<1x16x4xf32>
  %x0 = arith.addf %x, %x : tensor<1x16x4xf32>
  %x1 = arith.mulf %x0, %x0 : tensor<1x16x4xf32>
  %p1 = tensor.concat dim(1) %x0, %x1 : (tensor<1x16x4xf32>, tensor<1x16x4xf32>) -> tensor<1x32x4xf32>
  %y1 = arith.addf %p1, %p1 : tensor<1x32x4xf32>
  %x2 = arith.subf %y1, %p1 : tensor<1x32x4xf32>
  %x3 = tensor.extract_slice %x2[0, 16, 0] [1, 16, 4] [1, 1, 1] : tensor<1x32x4xf32> to tensor<1x16x4xf32>
  %x4 = arith.negf %x3 : tensor<1x16x4xf32>
  %p2 = tensor.concat dim(1) %x0, %x1, %x4 : (tensor<1x16x4xf32>, tensor<1x16x4xf32>, tensor<1x16x4xf32>) -> tensor<1x48x4xf32>
  %z = arith.mulf %p2, %p2 : tensor<1x48x4xf32>
  %t = tensor.concat dim(1) %x4, %x4 : (tensor<1x16x4xf32>, tensor<1x16x4xf32>) -> tensor<1x32x4xf32>
  %w = util.unfoldable_constant dense<3.0> : tensor<1x1x4xf32>
  %w2 = arith.mulf %w, %w : tensor<1x1x4xf32>
  %v = arith.subf %x1, %x0 : tensor<1x16x4xf32>
  %m = tensor.concat dim(1) %w2, %v, %w : (tensor<1x1x4xf32>, tensor<1x16x4xf32>, tensor<1x1x4xf32>) -> tensor<1x18x4xf32>
  %x0c = arith.constant dense<2.0> : tensor<1x16x4xf32>
  %x1c = arith.constant dense<4.0> : tensor<1x16x4xf32>
  %x4c = arith.constant dense<-4.0> : tensor<1x16x4xf32>
  %p1c = tensor.concat dim(1) %x0c, %x1c : (tensor<1x16x4xf32>, tensor<1x16x4xf32>) -> tensor<1x32x4xf32>
  %p2c = tensor.concat dim(1) %x0c, %x1c, %x4c : (tensor<1x16x4xf32>, tensor<1x16x4xf32>, tensor<1x16x4xf32>) -> tensor<1x48x4xf32>
  %zc = arith.mulf %p2c, %p2c : tensor<1x48x4xf32>
  %tc = tensor.concat dim(1) %x4c, %x4c : (tensor<1x16x4xf32>, tensor<1x16x4xf32>) -> tensor<1x32x4xf32>
  %w2c = arith.constant dense<9.0> : tensor<1x1x4xf32>
  %vc = arith.constant dense<2.0> : tensor<1x16x4xf32>
  %wc = arith.constant dense<3.0> : tensor<1x1x4xf32>
  %mc = tensor.concat dim(1) %w2c, %vc, %wc : (tensor<1x1x4xf32>, tensor<1x16x4xf32>, tensor<1x1x4xf32>) -> tensor<1x18x4xf32>
  check.expect_almost_eq(%p1, %p1c) : tensor<1x32x4xf32>
  check.expect_almost_eq(%x2, %p1c) : tensor<1x32x4xf32>
  check.expect_almost_eq(%p2, %p2c) : tensor<1x48x4xf32>
  check.expect_almost_eq(%z, %zc) : tensor<1x48x4xf32>
  check.expect_almost_eq(%t, %tc) : tensor<1x32x4xf32>
  check.expect_almost_eq(%m, %mc) : tensor<1x18x4xf32>
  return
}
