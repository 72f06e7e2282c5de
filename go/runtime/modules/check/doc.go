// Package check is the native "check" module that check-test programs
// import (check.expect_true, expect_eq, expect_almost_eq, …, REFERENCE
// §6.2). Failures are recorded, not fatal: every check of a test runs,
// and iree-check-module reports them afterwards with IREE's messages.
package check
