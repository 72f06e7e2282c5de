package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/gree-ml/gree/go/compiler"
)

// Version is printed by --version.
const Version = "0.1.0"

// Main runs iree-compile with args (without the program name) and returns
// its exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	p, err := parseArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "iree-compile: %v\n", err)
		return 1
	}
	if p.bool("help") {
		fmt.Fprint(stdout, usage())
		return 0
	}
	if p.bool("version") {
		fmt.Fprintf(stdout, "gree iree-compile version %s\n", Version)
		return 0
	}
	if p.bool("iree-hal-list-target-backends") {
		fmt.Fprint(stdout, "Registered target backends:\n")
		for _, name := range compiler.TargetNames() {
			fmt.Fprintf(stdout, "  %s\n", name)
		}
		return 0
	}
	for _, b := range p.list("iree-hal-target-backends") {
		if !registered(b) {
			fmt.Fprintf(stderr, "error: target backend '%s' not registered; registered backends: [%s]\n", b, strings.Join(compiler.TargetNames(), ", "))
			return 1
		}
	}
	if len(p.positional) == 0 {
		fmt.Fprint(stderr, "iree-compile: Not enough positional command line arguments specified!\nMust specify at least 1 positional argument: See: iree-compile --help\n")
		return 1
	}
	if len(p.positional) > 1 {
		fmt.Fprintf(stderr, "iree-compile: Too many positional arguments specified! (%s)\nCan specify at most 1 positional argument: See: iree-compile --help\n", strings.Join(p.positional, " "))
		return 1
	}
	fmt.Fprintf(stderr, "error: gree cannot compile programs yet: the compiler pipeline (parse → … → module) is not built in this version; only --iree-hal-list-target-backends and --help work\n")
	return 1
}

func registered(name string) bool {
	for _, n := range compiler.TargetNames() {
		if n == name {
			return true
		}
	}
	return false
}
