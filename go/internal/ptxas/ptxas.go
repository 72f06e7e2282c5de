package ptxas

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"testing"
)

// Find returns the path of ptxas: $GREE_PTXAS, then ptxas on PATH, then
// the one the nvidia-cuda-nvcc-cu12 wheel installs in the repository's
// .venv. When none is found it returns "" and the reason.
func Find() (path, reason string) {
	if p := os.Getenv("GREE_PTXAS"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Sprintf("GREE_PTXAS=%s: %v", p, err)
		}
		return p, ""
	}
	if p, err := exec.LookPath("ptxas"); err == nil {
		return p, ""
	}
	if root := repoRoot(); root != "" {
		m, _ := filepath.Glob(filepath.Join(root, ".venv", "lib", "python3*", "site-packages", "nvidia", "cuda_nvcc", "bin", "ptxas"))
		if len(m) > 0 {
			return m[0], ""
		}
	}
	return "", "ptxas not found (set GREE_PTXAS, or `make venv` installs it from the nvidia-cuda-nvcc-cu12 wheel into .venv)"
}

// repoRoot is the directory holding go.mod above this source file.
func repoRoot() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	for d := filepath.Dir(file); d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
	}
	return ""
}

// Need returns ptxas's path, or skips t with the reason it is missing.
func Need(t testing.TB) string {
	t.Helper()
	p, reason := Find()
	if p == "" {
		t.Skip(reason)
	}
	return p
}

// Info is what ptxas reports about one entry.
type Info struct {
	Registers  int
	SpillStore int // bytes of spill stores
	SpillLoad  int // bytes of spill loads
}

var (
	funcRE  = regexp.MustCompile(`Compiling entry function '([^']+)'`)
	regsRE  = regexp.MustCompile(`Used (\d+) registers`)
	spillRE = regexp.MustCompile(`(\d+) bytes spill stores, (\d+) bytes spill loads`)
)

// Assemble assembles ptx for arch ("sm_80") with --verbose and returns
// each entry's registers and spills; an error carries ptxas's messages.
func Assemble(path string, ptx []byte, arch string) (map[string]Info, error) {
	dir, err := os.MkdirTemp("", "ptxas")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "k.ptx")
	if err := os.WriteFile(src, ptx, 0o644); err != nil {
		return nil, err
	}
	cmd := exec.Command(path, "-arch="+arch, "--verbose", "-o", filepath.Join(dir, "k.cubin"), src)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("ptxas -arch=%s: %v\n%s", arch, err, out.String())
	}
	infos := map[string]Info{}
	cur := ""
	for _, line := range bytes.Split(out.Bytes(), []byte("\n")) {
		if m := funcRE.FindSubmatch(line); m != nil {
			cur = string(m[1])
			infos[cur] = Info{}
			continue
		}
		if cur == "" {
			continue
		}
		in := infos[cur]
		if m := regsRE.FindSubmatch(line); m != nil {
			in.Registers, _ = strconv.Atoi(string(m[1]))
		}
		if m := spillRE.FindSubmatch(line); m != nil {
			in.SpillStore, _ = strconv.Atoi(string(m[1]))
			in.SpillLoad, _ = strconv.Atoi(string(m[2]))
		}
		infos[cur] = in
	}
	return infos, nil
}
