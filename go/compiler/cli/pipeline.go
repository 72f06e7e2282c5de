package cli

import (
	"fmt"
	"sort"
	"strings"
)

// tuningPasses are IREE's preprocessing passes that only choose how IREE
// lowers a program (layouts, padding, algorithms, dispatch grouping): the
// results are the same without them, up to float rounding. gree has its
// own lowering for each, so --iree-preprocessing-pass-pipeline with only
// these passes is accepted with a note.
var tuningPasses = map[string]string{
	"iree-linalg-ext-convert-conv2d-to-winograd":                    "winograd convolutions",
	"iree-preprocessing-convert-conv2d-to-img2col":                  "im2col convolutions",
	"iree-preprocessing-convert-1x1-filter-conv2d-to-matmul":        "1x1 convolutions as matmuls",
	"iree-preprocessing-convert-conv-filter-to-channels-last":       "filter layouts",
	"iree-preprocessing-convert-conv-to-channels-last":              "convolution layouts",
	"iree-preprocessing-convert-strided-insert-slice-to-generic":    "strided insert_slice lowering",
	"iree-preprocessing-fold-attention-with-transpose":              "attention layouts",
	"iree-preprocessing-make-single-dispatch-for-function":          "dispatch grouping",
	"iree-preprocessing-pad-to-intrinsics":                          "padding for GPU matrix intrinsics",
	"iree-preprocessing-pad-linalg-ops":                             "padding of linalg ops",
	"iree-preprocessing-swap-strided-insert-slice-with-contraction": "slice placement",
	"iree-preprocessing-transpose-matmul-pass":                      "matmul layouts",
	"iree-preprocessing-generalize-linalg-matmul-experimental":      "matmul generalization",
	"iree-preprocessing-promote-linalg-outputs":                     "output promotion",
	"canonicalize": "canonicalization",
	"cse":          "common subexpressions",
}

// preprocessingPasses parses an MLIR pass pipeline
// ("builtin.module(func.func(pass{opt=v},pass2))") and returns its pass
// names in order: an op anchor is a name followed by "(", an option block
// is "{...}".
func preprocessingPasses(pipeline string) ([]string, error) {
	var passes []string
	depth := 0
	s := pipeline
	for len(s) > 0 {
		switch c := s[0]; {
		case c == ' ' || c == ',':
			s = s[1:]
		case c == ')':
			if depth--; depth < 0 {
				return nil, fmt.Errorf("unbalanced ')' in %q", pipeline)
			}
			s = s[1:]
		default:
			n := strings.IndexAny(s, "(){}, ")
			if n < 0 {
				n = len(s)
			}
			if n == 0 {
				return nil, fmt.Errorf("unexpected %q in %q", s[0], pipeline)
			}
			name := s[:n]
			s = s[n:]
			if strings.HasPrefix(s, "(") {
				depth++ // an op anchor: builtin.module(, func.func(, util.func(
				s = s[1:]
				continue
			}
			if strings.HasPrefix(s, "{") {
				end := strings.IndexByte(s, '}')
				if end < 0 {
					return nil, fmt.Errorf("unterminated options of %s in %q", name, pipeline)
				}
				s = s[end+1:]
			}
			passes = append(passes, name)
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("unbalanced '(' in %q", pipeline)
	}
	return passes, nil
}

// checkPreprocessing validates --iree-preprocessing-pass-pipeline: every
// pass must be one that only tunes IREE's lowering (a note says gree
// ignores it); others (transform-dialect scripts, PDL patterns, passes
// gree does not know) are errors.
func checkPreprocessing(pipeline string) (note string, err error) {
	passes, err := preprocessingPasses(pipeline)
	if err != nil {
		return "", fmt.Errorf("--iree-preprocessing-pass-pipeline: %v", err)
	}
	var what []string
	for _, p := range passes {
		w, ok := tuningPasses[p]
		if !ok {
			known := make([]string, 0, len(tuningPasses))
			for k := range tuningPasses {
				known = append(known, k)
			}
			sort.Strings(known)
			return "", fmt.Errorf("--iree-preprocessing-pass-pipeline: gree cannot run pass '%s' (it accepts, and ignores, the passes that only tune IREE's lowering: %s)", p, strings.Join(known, ", "))
		}
		what = append(what, p+" ("+w+")")
	}
	if len(what) == 0 {
		return "", nil
	}
	return "iree-compile: note: --iree-preprocessing-pass-pipeline: " + strings.Join(what, ", ") + " only tune IREE's lowering; gree lowers these its own way and ignores them", nil
}
