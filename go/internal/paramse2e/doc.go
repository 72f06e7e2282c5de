// Package paramse2e tests parameters end to end: a program whose weights
// are parameter globals is compiled (the module holds no weights) and run
// through iree-run-module's code with --parameters naming .irpa,
// .safetensors and .gguf files, against the same program with the weights
// inlined. It has only tests.
package paramse2e
