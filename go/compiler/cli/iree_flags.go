package cli

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"
)

// IREE's own iree-compile options that gree's table lacks. A script written
// for IREE passes them; those that only tune IREE's compiler internals
// (its passes, LLVM's backends, MLIR's printing) are accepted with a note,
// those whose effect a user relies on and gree does not have are errors
// saying so, and a name neither knows is an error suggesting the nearest.

//go:embed iree_flags.txt
var ireeFlagsText string

// ireeFlags maps each of IREE's option names to whether it takes a value.
var ireeFlags = func() map[string]bool {
	m := map[string]bool{}
	for _, line := range strings.Split(ireeFlagsText, "\n") {
		name, kind, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok || strings.HasPrefix(name, "#") {
			continue
		}
		m[name] = kind == "v"
	}
	return m
}()

// unsupportedIREEFlags are IREE options whose effect a user relies on and
// gree's compiler does not have: ignoring them would give another result
// than the one asked for.
var unsupportedIREEFlags = map[string]string{
	"output-format":                                      "gree writes VM bytecode modules only (--output-format=vm-bytecode)",
	"compile-mode":                                       "gree compiles whole programs only (--compile-mode=std)",
	"emit-mlir-bytecode":                                 "gree writes MLIR as text only",
	"emit-mlir-bytecode-version":                         "gree writes MLIR as text only",
	"iree-vm-c-module-output-format":                     "gree does not emit VM modules as C",
	"iree-hal-substitute-executable-source":              "gree does not substitute executables",
	"iree-hal-substitute-executable-sources-from":        "gree does not substitute executables",
	"iree-hal-substitute-executable-object":              "gree does not substitute executables",
	"iree-hal-substitute-executable-objects-from":        "gree does not substitute executables",
	"iree-hal-substitute-executable-configuration":       "gree does not substitute executables",
	"iree-hal-substitute-executable-configurations-from": "gree does not substitute executables",
	"iree-hal-preprocess-executables-with":               "gree does not run executable preprocessing tools",
	"iree-hal-executable-object-search-path":             "gree does not link external executable objects",
	"iree-parameter-import":                              "gree does not inline parameter files yet",
	"iree-parameter-encoder-output-file":                 "gree has no parameter encoder",
}

// allowedValues are IREE options accepted with only the value that matches
// what gree does.
var allowedValues = map[string]string{"output-format": "vm-bytecode", "compile-mode": "std"}

// ireeOption returns an option for one of IREE's flags gree's table lacks,
// and the note (or error) its use gives, or nil when IREE has no such flag.
func ireeOption(name, value string, hasValue bool) (*option, string, error) {
	takesValue, ok := ireeFlags[name]
	if !ok {
		return nil, "", nil
	}
	kind := optBool
	if takesValue {
		kind = optString
	}
	if want, ok := allowedValues[name]; ok && hasValue && value == want {
		return &option{name: name, kind: kind}, "", nil
	}
	if why, ok := unsupportedIREEFlags[name]; ok {
		return nil, "", fmt.Errorf("--%s is an IREE option gree does not support: %s", name, why)
	}
	return &option{name: name, kind: kind}, fmt.Sprintf("iree-compile: note: --%s tunes IREE's compiler internals; gree's compiler has no such setting and ignores it", name), nil
}

// nearestFlag returns the known option (gree's or IREE's) closest to name,
// or "" when none is close.
func nearestFlag(name string) string {
	var names []string
	for _, o := range options {
		names = append(names, o.name)
		names = append(names, o.aliases...)
	}
	for n := range ireeFlags {
		names = append(names, n)
	}
	sort.Strings(names) // ties go to the first in order
	best, bestD := "", len(name)/3+2
	for _, n := range names {
		if d := editDistance(name, n, bestD); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, or limit when it is
// at least limit.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d >= limit || -d >= limit {
		return limit
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin >= limit {
			return limit
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], limit)
}
