package llvmcpu

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
)

// liteLibName is libllvmlite's file name on this OS.
func liteLibName() string {
	if runtime.GOOS == "darwin" {
		return "libllvmlite.dylib"
	}
	return "libllvmlite.so"
}

// liteCandidates lists the libllvmlite.so files gree may use, best first:
// GREE_LIBLLVMLITE alone when set (the iree_go Python package sets it from
// importlib before it loads libgree.so or runs a tool); else llvmlite in
// the site-packages directories at or above the running program and
// libgree.so (a pip install puts iree_go/_bin/iree-compile and
// iree_go/_lib/libgree.so beside llvmlite), then in $VIRTUAL_ENV,
// $CONDA_PREFIX, $PYTHONPATH, the user's site-packages and the system's
// Python prefixes. Python is never run.
func liteCandidates() []string {
	if p := os.Getenv("GREE_LIBLLVMLITE"); p != "" {
		return []string{p}
	}
	var roots []string
	if exe, err := os.Executable(); err == nil {
		if r, err := filepath.EvalSymlinks(exe); err == nil {
			exe = r
		}
		roots = append(roots, ancestors(filepath.Dir(exe), 5)...)
	}
	if lib := libgreeDir(); lib != "" {
		roots = append(roots, ancestors(lib, 5)...)
	}
	for _, env := range []string{"VIRTUAL_ENV", "CONDA_PREFIX"} {
		if p := os.Getenv(env); p != "" {
			roots = append(roots, p)
		}
	}
	roots = append(roots, filepath.SplitList(os.Getenv("PYTHONPATH"))...)
	if home, err := os.UserHomeDir(); err == nil {
		roots = append(roots, filepath.Join(home, ".local"))
	}
	roots = append(roots, "/usr/local", "/usr", "/opt/homebrew", "/opt/conda")
	seen := map[string]bool{}
	var out []string
	for _, r := range roots {
		for _, c := range siteLibs(r) {
			if seen[c] {
				continue
			}
			seen[c] = true
			if st, err := os.Stat(c); err == nil && st.Mode().IsRegular() {
				out = append(out, c)
			}
		}
	}
	return out
}

// ancestors returns dir and up to n of its parents.
func ancestors(dir string, n int) []string {
	out := []string{dir}
	for i := 0; i < n; i++ {
		p := filepath.Dir(dir)
		if p == dir {
			break
		}
		dir = p
		out = append(out, dir)
	}
	return out
}

// siteLibs lists where libllvmlite would be under root: root itself as a
// site-packages directory, and root as a Python prefix (lib/python3.X/
// site-packages, Debian's dist-packages, lib64).
func siteLibs(root string) []string {
	rel := filepath.Join("llvmlite", "binding", liteLibName())
	out := []string{filepath.Join(root, rel)}
	for _, pat := range []string{"lib/python3*/site-packages", "lib64/python3*/site-packages", "lib/python3*/dist-packages", "lib/python3/dist-packages", "local/lib/python3*/dist-packages"} {
		dirs, _ := filepath.Glob(filepath.Join(root, pat))
		sort.Sort(sort.Reverse(sort.StringSlice(dirs))) // newest Python first
		for _, d := range dirs {
			out = append(out, filepath.Join(d, rel))
		}
	}
	return out
}

// libgreeDir returns the directory of the loaded libgree shared library
// (when gree runs inside Python), read from /proc/self/maps, or "".
func libgreeDir() string {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		i := strings.Index(line, "/")
		if i < 0 {
			continue
		}
		p := line[i:]
		if base := filepath.Base(p); strings.HasPrefix(base, "libgree.") {
			return filepath.Dir(p)
		}
	}
	return ""
}

var versionRe = regexp.MustCompile(`version_version\s*=\s*'([^']+)'`)

// liteVersion returns the version of the llvmlite package holding the
// library at path (from its dist-info directory or _version.py), or "".
func liteVersion(path string) string {
	pkg := filepath.Dir(filepath.Dir(path)) // …/llvmlite
	if infos, _ := filepath.Glob(filepath.Join(filepath.Dir(pkg), "llvmlite-*.dist-info")); len(infos) == 1 {
		name := strings.TrimSuffix(filepath.Base(infos[0]), ".dist-info")
		return strings.TrimPrefix(name, "llvmlite-")
	}
	if b, err := os.ReadFile(filepath.Join(pkg, "_version.py")); err == nil {
		if m := versionRe.FindSubmatch(b); m != nil {
			return string(m[1])
		}
	}
	return ""
}
