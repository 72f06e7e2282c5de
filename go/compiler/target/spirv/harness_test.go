package spirv_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/spirv"
	schema "github.com/gree-ml/gree/go/schemas/spirv"
)

// allCaps is every capability the emitter may declare.
var allCaps = map[string]bool{"Int8": true, "Int16": true, "Int64": true, "Float16": true, "Float64": true,
	"StorageBuffer8BitAccess": true, "StorageBuffer16BitAccess": true,
	"GroupNonUniform": true, "GroupNonUniformShuffle": true}

// versions are the SPIR-V versions the tests emit, with the Vulkan
// environment spirv-val checks each against.
var versions = []struct {
	word uint32
	env  string
}{{0x00010300, "vulkan1.1"}, {0x00010500, "vulkan1.2"}, {0x00010600, "vulkan1.3"}}

var (
	valOnce sync.Once
	valPath string
)

// spirvVal returns the path of spirv-val, skipping t when it is missing.
func spirvVal(t testing.TB) string {
	valOnce.Do(func() { valPath, _ = exec.LookPath("spirv-val") })
	if valPath == "" {
		t.Skip("spirv-val is not installed (apt-get install spirv-tools): SPIR-V modules are not validated")
	}
	return valPath
}

// validate runs spirv-val on the module for Vulkan environment env,
// failing t with its output (and the disassembly when spirv-dis exists).
func validate(t testing.TB, name string, mod []byte, env string) {
	t.Helper()
	val := spirvVal(t)
	path := filepath.Join(t.TempDir(), strings.ReplaceAll(name, "/", "_")+".spv")
	if err := os.WriteFile(path, mod, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(val, "--target-env", env, path).CombinedOutput()
	if err != nil {
		dis := ""
		if os.Getenv("SPIRV_DIS") != "" {
			d, _ := exec.Command("spirv-dis", path).CombinedOutput()
			dis = string(d)
		}
		t.Fatalf("%s: spirv-val --target-env %s: %v\n%s%s", name, env, err, out, dis)
	}
}

// emit emits k for every version with all capabilities and validates
// each module; it returns the 1.3 entry.
func emit(t testing.TB, k *kir.Kernel) schema.Entry {
	t.Helper()
	var first schema.Entry
	for i, v := range versions {
		e, err := spirv.Emit(k, spirv.Options{Version: v.word, Capabilities: allCaps, SubgroupSize: 32})
		if err != nil {
			t.Fatalf("%s: %v\n%s", k.Name, err, k)
		}
		validate(t, k.Name, e.SPIRV, v.env)
		if i == 0 {
			first = e
		}
	}
	return first
}
