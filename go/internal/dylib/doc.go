// Package dylib loads native libraries (libcuda, libamdhip64, libvulkan,
// libLLVM) at run time through purego, never at link time.
//
// Open tries a list of candidate file names and returns an UNAVAILABLE error
// that names the library and how to install it when none loads. Bind resolves
// every symbol of a table (a struct of func fields tagged `sym:"name"`) with
// checked look-ups before registering any of them, so a missing symbol is an
// error, never a purego panic.
package dylib
