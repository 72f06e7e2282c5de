// Package gpuinfo holds what the cuda and hip HAL drivers share (drivers
// never import each other): the --dump_devices text builder with IREE's
// layout, an integer-attribute reader that keeps the first failure, and the
// two C-memory helpers the purego bindings need (reading a C string the
// library owns, and asking the dynamic loader which file a loaded symbol
// came from, as IREE's iree_dynamic_library_get_symbol_path does).
package gpuinfo
