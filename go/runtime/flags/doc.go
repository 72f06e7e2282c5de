// Package flags is the runtime tools' flag registry, with IREE's syntax
// (runtime/src/iree/base/tooling/flags.c): only --name=value or a bare
// --name, exact names (underscores), list flags that accumulate one value per
// occurrence, --flagfile=path, and --help printing every flag as a reusable
// flagfile. Drivers define their flags here (--hip_dylib_path,
// --cuda_default_index); the tools and Python's iree.runtime.flags parse them.
package flags
