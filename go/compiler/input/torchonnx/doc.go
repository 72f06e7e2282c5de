// Package torchonnx converts functions in the torch-onnx dialect —
// torch.operator "onnx.X" ops on !torch.vtensor values, which IREE's ONNX
// importer writes and so does gree's (package
// github.com/gree-ml/gree/go/compiler/onnx, which reads .onnx files) — to
// the core tensor program (package core). Such a function is converted as
// a whole (ConvertFunc): its signature and block arguments become builtin
// ranked tensors and each operator becomes core tensor ops built from the
// static result types the importer recorded.
package torchonnx
