// Package multitarget tests modules compiled for several targets at once
// (iree-compile --iree-hal-target-backends=llvm-cpu,vmvx): one module
// whose executables have a variant per target, run on the local-sync and
// local-task devices with each variant chosen through the loaders the
// devices enable (--executable_loaders), against modules compiled for one
// target.
//
// The package has only tests; they need LLVM for llvm-cpu and skip,
// saying so, without it.
package multitarget
