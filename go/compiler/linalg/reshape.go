package linalg

import "github.com/gree-ml/gree/go/compiler/ir"

// IsReshape reports whether op reshapes a tensor, its elements kept in
// row-major order: tensor.reshape, tensor.expand_shape or
// tensor.collapse_shape.
func IsReshape(op *ir.Operation) bool {
	switch op.Name {
	case "tensor.reshape", "tensor.expand_shape", "tensor.collapse_shape":
		return true
	}
	return false
}
