// Package codegen lowers each dispatch region (one linalg.generic after
// fusion) to a kernel in gree's kernel IR (package kir): it assigns
// bindings and push constants, distributes the iteration space over
// workgroups, orders loops (parallel outside, reductions inside),
// vectorizes the innermost parallel loop with a scalar remainder, and maps
// contractions to the Contract tile op. The choices are driven by a
// per-target Strategy; emitters only translate the result.
package codegen
