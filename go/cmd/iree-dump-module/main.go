// Command iree-dump-module prints the metadata and the host-program
// disassembly of a module file; see `iree-dump-module --help`.
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/gree-ml/gree/go/runtime/flags"
	"github.com/gree-ml/gree/go/runtime/tooling"
	"github.com/gree-ml/gree/go/schemas/module"
)

const usage = `Dumps a module's metadata and host-program disassembly.

Usage: iree-dump-module [--output=all|metadata|disassembly] module.vmfb`

var output = flags.String("output", "all", "What to print: all, metadata or disassembly.")

func main() {
	rest := tooling.ParseFlags("iree-dump-module", usage, os.Args[1:], flags.UnknownIsError)
	if len(rest) != 1 {
		fmt.Fprintln(os.Stderr, "Syntax: iree-dump-module [--output=...] module.vmfb")
		os.Exit(1)
	}
	data, err := tooling.ReadModuleFile(rest[0], os.Stdin)
	if err == nil {
		var m *module.Module
		if m, err = module.Decode(data); err == nil {
			err = dump(m, len(data), *output)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func dump(m *module.Module, size int, what string) error {
	switch what {
	case "all", "metadata", "disassembly":
	default:
		return fmt.Errorf("INVALID_ARGUMENT; unknown --output=%s (expected all, metadata or disassembly)", what)
	}
	if what != "disassembly" {
		bar := "//===" + strings.Repeat("-", 70) + "===//"
		fmt.Printf("%s\n// @%s : version %d\n%s\n\n", bar, m.Name, m.Version, bar)
		if m.Signature != nil {
			fmt.Printf("Signed by key %s (not verified here; runtimes verify it with --module_trust)\n\n", module.KeyID(m.Signature.Signer))
		}
		fmt.Println("Attributes:")
		for _, a := range m.Attrs {
			fmt.Printf("  %s: %s\n", a.Key, a.Value)
		}
		fmt.Println("\nImported Functions:")
		for i, im := range m.Imports {
			opt := ""
			if im.Optional {
				opt = " (optional)"
			}
			fmt.Printf("  [%3d] %s.%s%s\n", i, im.Module, im.Name, opt)
		}
		fmt.Println("\nExported Functions:")
		for i, e := range m.Exports {
			f := &m.Functions[e.Function]
			fmt.Printf("  [%3d] %s(%s)\n", i, e.Name, f.CConv())
			for _, r := range f.Reflection {
				fmt.Printf("          %s: %s\n", r.Key, r.Value)
			}
		}
		fmt.Println("\nModule State:")
		for i, g := range m.Globals {
			fmt.Printf("  [%3d] global @%s\n", i, g.Name)
		}
		rodata := 0
		for _, c := range m.Constants {
			rodata += len(c.Data)
		}
		fmt.Printf("\nExecutables:\n")
		for _, g := range m.Groups() {
			for v := range g.Size {
				e := &m.Executables[g.First+v]
				variant := ""
				if g.Size > 1 {
					// Several targets: the device runs the first variant
					// it can load.
					variant = fmt.Sprintf(" (variant %d of %d)", v, g.Size)
				}
				fmt.Printf("  [%3d] %s: %d entry points, %d bytes%s\n", g.First+v, e.Format, len(e.Entries), len(e.Data), variant)
			}
		}
		if m.HasParameters() {
			fmt.Println("\nParameters (loaded with --parameters=[scope=]file):")
			for i, c := range m.Constants {
				if c.Parameter != nil {
					fmt.Printf("  [%3d] %s: %d bytes\n", i, c.Parameter, c.ByteLength())
				}
			}
		}
		fmt.Printf("\nExternal .rodata: ~%d bytes\nModule file: %d bytes\n\n", rodata, size)
	}
	if what != "metadata" {
		fmt.Print(module.Disassemble(m))
	}
	return nil
}
