// Package intfold evaluates ONNX's element-wise operators on integers
// (booleans as 0 and 1): the arithmetic that both the ONNX importer's
// shape folding and the input conversion's constant folding apply to
// small integer tensors.
package intfold
