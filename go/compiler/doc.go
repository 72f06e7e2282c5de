// Package compiler is the facade of gree's compiler: the registry of target
// backends and, as the pipeline lands, Options, Phase and Compile. A target
// is registered only once it compiles end to end, so Targets never names a
// backend that cannot produce a working module.
package compiler
