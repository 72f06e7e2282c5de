// Package linalg gives typed access to linalg.generic operations — the
// core tensor op every input dialect is lowered to — and builds new ones:
// inputs and outputs (the operandSegmentSizes split), indexing maps,
// iterator types, and the scalar body.
package linalg
