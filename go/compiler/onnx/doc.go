// Package onnx imports ONNX models (.onnx protobuf files) into MLIR text in
// the torch-onnx dialect, as IREE's importer (iree-import-onnx, torch-mlir's
// onnx_importer.py) does: one func.func named after the graph, with
// !torch.vtensor arguments and results and torch.onnx_meta.* attributes;
// initializers and Constant nodes become torch.operator "onnx.Constant" ops
// holding dense<...> or dense_resource<...> literals (raw tensor bytes go to
// the module's dialect_resources blobs); every other node becomes a
// torch.operator "onnx.<OpType>" with its attributes as torch.onnx.<name>;
// omitted optional inputs are a torch.constant.none value; subgraphs (If,
// Loop, Scan bodies) are regions ending in torch.operator_terminator.
//
// Like IREE, which runs ONNX shape inference before importing, the importer
// infers the types of intermediate values (shape inference with data
// propagation, shape_infer*.go, env.go) so that every result has a vtensor
// type. By default it follows ONNX's rules, including where ONNX gives up
// (values propagate only through the op versions ONNX propagates through;
// an unknown shape leaves a result unranked, printed "[]" as IREE prints
// it), so that the text matches IREE's. With Options.FoldShapes (on when
// iree-compile imports a model) it propagates through every op it can
// compute, keeps ranks wherever they are known, and replaces the shape
// computations whose values are known statically (Shape → Gather →
// Unsqueeze → Concat feeding a Reshape, the ConstantOfShape → Mul → Equal →
// Where chain of torch's expand(n, -1, -1), and the like) by constants,
// dropping the ops that only fed them.
//
// The printed text follows MLIR's printer byte for byte where practical
// (value numbering, float formatting, hex elements over 100 elements,
// resource blob naming), so its output can be diffed against IREE's.
//
// Files: load.go (protobuf decoding, external data, validation), types.go
// (element types and vtensor types), tensor.go (TensorProto data),
// mlirfloat.go (MLIR's float printing), attrs.go (attribute printing),
// emit.go (functions, regions, value names, resources), import.go (the entry
// points), env.go (what is known about values; folding), shape_fold.go
// (FoldShapes' propagation through comparisons, Where and logic),
// shape_infer*.go (type inference per op; _rnn: RNN/GRU/LSTM), opset.go (--opset-version), cli.go (the
// iree-import-onnx command line).
package onnx
