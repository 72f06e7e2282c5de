// Package status defines gree's error values: IREE's status codes (the same
// numbers, from OK to UNAUTHENTICATED) carried by Go errors from the compiler
// and the runtime through the C ABI (gree_status_t) to Python exceptions.
//
// An error made here keeps its code through fmt.Errorf("context: %w", err)
// wrapping; CodeOf finds it again. Errors that never passed through this
// package report UNKNOWN.
package status
