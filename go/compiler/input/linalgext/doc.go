// Package linalgext converts IREE's iree_linalg_ext ops (Lower): scatter,
// sort, topk_v2 and scan are core ops already and are only checked;
// gather, arg_compare, map_load, attention and the winograd transforms
// become linalg.generic ops, topk a sort, and map_store a scatter.
package linalgext
