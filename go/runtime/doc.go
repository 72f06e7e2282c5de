// Package runtime is the facade the C ABI, Python and the tools use to reach
// the runtime: the driver registry with every built-in driver registered, and
// (as the runtime grows) instances, sessions and calls.
package runtime
