package archtest

import (
	"os/exec"
	"strings"
	"testing"
)

const mod = "github.com/gree-ml/gree/"

// graph returns each package of the module with its module-internal imports.
func graph(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "github.com/gree-ml/gree/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	g := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], mod)
		g[pkg] = nil
		for _, imp := range f[1:] {
			if strings.HasPrefix(imp, mod) {
				g[pkg] = append(g[pkg], strings.TrimPrefix(imp, mod))
			}
		}
	}
	return g
}

func under(pkg, dir string) bool { return pkg == dir || strings.HasPrefix(pkg, dir+"/") }

// driverOf returns the driver directory a package belongs to, or "".
func driverOf(pkg string) string {
	const d = "go/runtime/hal/drivers/"
	if !strings.HasPrefix(pkg, d) {
		return ""
	}
	name, _, _ := strings.Cut(strings.TrimPrefix(pkg, d), "/")
	return d + name
}

func TestDependencyRules(t *testing.T) {
	g := graph(t)
	if len(g) < 5 {
		t.Fatalf("import graph too small to be real: %v", g)
	}
	capiAllowed := []string{"go/runtime", "go/runtime/hal", "go/runtime/flags", "go/runtime/tooling", "go/runtime/vm", "go/runtime/tooling/vio", "go/compiler", "go/compiler/cli", "go/compiler/embed", "go/status"}
	for pkg, imps := range g {
		for _, imp := range imps {
			switch {
			case under(pkg, "go/compiler") && under(imp, "go/runtime"):
				t.Errorf("%s imports %s: the compiler must not import the runtime", pkg, imp)
			case under(pkg, "go/runtime") && under(imp, "go/compiler"):
				t.Errorf("%s imports %s: the runtime must not import the compiler", pkg, imp)
			case under(pkg, "go/runtime/vm") && under(imp, "go/runtime/hal"),
				under(pkg, "go/runtime/hal") && under(imp, "go/runtime/vm"):
				t.Errorf("%s imports %s: runtime/vm and runtime/hal meet only in runtime/modules", pkg, imp)
			case driverOf(pkg) != "" && driverOf(imp) != "" && driverOf(pkg) != driverOf(imp):
				t.Errorf("%s imports %s: a driver never imports another driver", pkg, imp)
			case pkg == "capi" && !contains(capiAllowed, imp):
				t.Errorf("capi imports %s: capi uses facades and public types only (%v)", imp, capiAllowed)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
