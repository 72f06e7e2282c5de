package gpu

// NarrowIndexArithmetic lets tests make LowerInt64 (and so Legalize)
// narrow index arithmetic, where kir accepts i32 indices.
var NarrowIndexArithmetic = &narrowIndexArithmetic
