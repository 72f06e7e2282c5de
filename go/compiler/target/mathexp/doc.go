// Package mathexp expands the transcendental and library float functions
// of kernel IR (exp, log, tanh, erf, the trigonometric functions, pow,
// fmod, …) into plain kir arithmetic: what the GPU emitters (PTX) need, as
// they have no math library, and what the llvm-cpu target uses for the f32
// functions models spend their time in (exp, tanh, erf, log), which then
// vectorize instead of calling libm once per element. Accuracy and the
// ops used are described in expand.go; the tests check every function
// against Go's math package and a high-precision reference.
package mathexp
