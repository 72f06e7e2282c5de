// Package ir is gree's in-memory compiler IR, modelled on MLIR's generic
// structure: an Operation has a dotted name ("arith.addf"), operands and
// results (Values), a dictionary of attributes kept sorted by name, nested
// Regions of Blocks, successor blocks and a Location. A Module wraps the
// top-level builtin.module operation together with the resource blobs that
// dense_resource attributes refer to.
//
// Types (integers, index, floats, complex, tensors, vectors, memrefs, tuples,
// functions, none and opaque dialect types) and attributes (integers, floats,
// strings, arrays, dictionaries, symbol references, dense elements with their
// values decoded into flat typed slices, dense arrays, affine maps with
// evaluation, locations and opaque dialect attributes) print back in MLIR
// syntax through their String methods.
//
// The printer writes every operation in MLIR's generic form, which the parser
// package reads back: parse → print → parse is the identity, so printed IR is
// the oracle tests compare against. Verify checks structural invariants
// (parent links, dominance of operands, terminators where the op's registered
// OpInfo asks for them). Builder and the constructors in builder.go create
// operations programmatically.
package ir
