package local

import (
	"slices"
	"strings"
	"sync/atomic"

	"github.com/gree-ml/gree/go/runtime/flags"
	llvmcpuschema "github.com/gree-ml/gree/go/schemas/llvmcpu"
	"github.com/gree-ml/gree/go/status"
)

// loader is one of the local devices' executable loaders.
type loader struct {
	name    string   // the --executable_loaders name
	aliases []string // IREE's names for the loader of the same role
	format  string   // the executable format it loads
}

// loaders are the local devices' executable loaders in IREE's order of
// registration (native code first, the bytecode reference path last).
// IREE names its loaders embedded-elf, system-library and vmvx-module;
// gree's llvm-cpu loader maps a shared object (system-library's role) and
// accepts both native names.
var loaders = []loader{
	{name: "llvm-cpu", aliases: []string{"system-library", "embedded-elf"}, format: llvmcpuschema.Format},
	{name: "vmvx", aliases: []string{"vmvx-module"}, format: VMVXFormat},
}

// enabledLoaders is the --executable_loaders selection (nil: all).
var enabledLoaders atomic.Pointer[[]string]

func init() {
	flags.Callback("executable_loaders", "gree: the executable loaders the local-sync and local-task devices use, comma-separated:\n"+
		"llvm-cpu (also IREE's names system-library, embedded-elf) and vmvx (vmvx-module);\n"+
		"empty or 'all' (the default) enables both. A module compiled for several targets\n"+
		"runs the first executable variant whose loader is enabled, so\n"+
		"--executable_loaders=vmvx runs the vmvx kernels of an llvm-cpu,vmvx module.\n"+
		"Applies to executables prepared after it is set.", SetExecutableLoaders)
}

// SetExecutableLoaders sets the loaders the local devices use from a
// comma-separated list of loader names ("" or "all": every loader), as
// --executable_loaders does.
func SetExecutableLoaders(list string) error {
	list = strings.TrimSpace(list)
	if list == "" || list == "all" {
		enabledLoaders.Store(nil)
		return nil
	}
	var names []string
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		l := findLoader(n)
		if l == nil {
			return status.Errorf(status.InvalidArgument, "--executable_loaders: unknown loader %q; the local devices' loaders are llvm-cpu (system-library, embedded-elf) and vmvx (vmvx-module)", n)
		}
		if !slices.Contains(names, l.name) {
			names = append(names, l.name)
		}
	}
	enabledLoaders.Store(&names)
	return nil
}

func findLoader(name string) *loader {
	for i := range loaders {
		if loaders[i].name == name || slices.Contains(loaders[i].aliases, name) {
			return &loaders[i]
		}
	}
	return nil
}

// loaderEnabled reports whether the loader of format is enabled; an
// error names the format's loader and the enabled ones.
func loaderEnabled(driver, format string) error {
	sel := enabledLoaders.Load()
	if sel == nil {
		return nil
	}
	for _, l := range loaders {
		if l.format == format && !slices.Contains(*sel, l.name) {
			return status.Errorf(status.Unimplemented, "the %s device's %s loader is disabled (--executable_loaders=%s); it cannot run %q executables", driver, l.name, strings.Join(*sel, ","), format)
		}
	}
	return nil
}

// enabledFormats returns the executable formats of the enabled loaders.
func enabledFormats() []string {
	sel := enabledLoaders.Load()
	var out []string
	for _, l := range loaders {
		if sel == nil || slices.Contains(*sel, l.name) {
			out = append(out, l.format)
		}
	}
	return out
}
