// Package cts is the conformance suite every HAL driver runs: a driver's
// test file is one call to Run with its factory. A driver whose native
// library is missing skips with the reason printed (for GPU drivers on
// machines without the GPU), never passes silently.
package cts
