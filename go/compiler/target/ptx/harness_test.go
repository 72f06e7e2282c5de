package ptx_test

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/gpu"
	"github.com/gree-ml/gree/go/compiler/target/ptx"
	"github.com/gree-ml/gree/go/internal/ptxas"
	"github.com/gree-ml/gree/go/schemas/cuda"
)

// archs are the architectures every emitted module is assembled for.
var archs = []string{"sm_60", "sm_80", "sm_90"}

// ptxasPath returns the path of ptxas (go/internal/ptxas.Find: $GREE_PTXAS,
// PATH, the repository's .venv), or "".
func ptxasPath() string {
	p, _ := ptxas.Find()
	return p
}

// options returns the emitter options of gree's cuda target for arch.
func options(t testing.TB, arch string) ptx.Options {
	tg, err := gpu.CUDATarget(arch, "")
	if err != nil {
		t.Fatal(err)
	}
	return ptx.Options{Arch: tg.Arch, PTXVersion: tg.PTXVersion, Target: arch}
}

// emitArch emits ks for arch, failing t on an error.
func emitArch(t testing.TB, arch string, ks ...*kir.Kernel) cuda.Variant {
	t.Helper()
	v, err := ptx.Emit(ks, options(t, arch))
	if err != nil {
		t.Fatalf("%s: %v", ks[0].Name, err)
	}
	return v
}

var (
	usageMu sync.Mutex
	usages  = map[string]ptxas.Info{}
)

// assemble runs ptxas on v's PTX for its architecture, failing t with
// ptxas's output; it records register use and spills per entry. Without
// ptxas it does nothing (TestPtxas says why).
func assemble(t testing.TB, name string, v cuda.Variant) {
	t.Helper()
	p := ptxasPath()
	if p == "" {
		return
	}
	infos, err := ptxas.Assemble(p, v.PTX, v.Arch)
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, numbered(v.PTX))
	}
	usageMu.Lock()
	defer usageMu.Unlock()
	for entry, in := range infos {
		usages[entry+"/"+v.Arch] = in
	}
}

// numbered returns the text with line numbers, for failure messages.
func numbered(b []byte) string {
	var s strings.Builder
	for i, l := range strings.Split(string(b), "\n") {
		fmt.Fprintf(&s, "%5d  %s\n", i+1, l)
	}
	return s.String()
}

// emit emits ks for every architecture and assembles each module.
func emit(t testing.TB, ks ...*kir.Kernel) map[string]cuda.Variant {
	t.Helper()
	return emitFor(t, archs, ks...)
}

// emitFor emits ks for the architectures as and assembles each module.
func emitFor(t testing.TB, as []string, ks ...*kir.Kernel) map[string]cuda.Variant {
	t.Helper()
	out := map[string]cuda.Variant{}
	for _, arch := range as {
		v := emitArch(t, arch, ks...)
		assemble(t, ks[0].Name, v)
		out[arch] = v
	}
	return out
}

func TestMain(m *testing.M) {
	code := m.Run()
	if p, reason := ptxas.Find(); p == "" {
		fmt.Printf("ptx: modules were emitted but not assembled: %s\n", reason)
	} else if len(usages) > 0 {
		maxRegs, spills, name := 0, 0, ""
		for k, u := range usages {
			if u.Registers > maxRegs {
				maxRegs, name = u.Registers, k
			}
			spills += u.SpillStore
			if u.SpillStore > 0 && testing.Verbose() {
				fmt.Printf("ptx: %s spills %d bytes (%d registers)\n", k, u.SpillStore, u.Registers)
			}
		}
		if testing.Verbose() {
			fmt.Printf("ptx: ptxas assembled %d entries; most registers %d (%s); spill stores %d bytes in all\n", len(usages), maxRegs, name, spills)
		}
	}
	os.Exit(code)
}

// TestPtxas reports (by skipping) when ptxas is missing: the other tests
// then emit modules without assembling them.
func TestPtxas(t *testing.T) {
	ptxas.Need(t)
}
