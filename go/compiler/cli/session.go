package cli

import "fmt"

// sessionDefaults are the values session flags report when not set (the
// defaults iree-compile applies); booleans default to false and other
// strings to empty.
var sessionDefaults = map[string]string{
	"iree-input-type":                       "auto",
	"iree-opt-level":                        "O2",
	"iree-vm-bytecode-module-output-format": "flatbuffer-binary",
	"iree-execution-model":                  "async-internal",
	"iree-llvmcpu-target-cpu":               "host",
	"iree-cuda-target":                      "sm_60",
	"iree-vulkan-target":                    "vp_android_baseline_2022",
	"mlir-timing-display":                   "list",
}

// actionFlags make iree-compile do something other than compile (print
// and exit, choose its output file); a compiler session does not take
// them.
var actionFlags = map[string]bool{
	"o": true, "help": true, "version": true, "iree-hal-list-target-backends": true,
	"iree-llvmcpu-list-targets": true, "gree-generate-signing-key": true, "split-input-file": true,
}

// CheckSessionFlags checks args as the flags of a compiler session (the
// embedding API's ireeCompilerSessionSetFlags): each must be an option of
// iree-compile that configures a compilation, with a valid spelling. It
// returns the error iree-compile would print.
func CheckSessionFlags(args []string) error {
	p, err := parseArgs(args)
	if err != nil {
		return err
	}
	if len(p.positional) > 0 {
		return fmt.Errorf("session flags are options only; got the argument '%s'", p.positional[0])
	}
	for name := range p.values {
		if actionFlags[name] {
			return fmt.Errorf("--%s is an action of the iree-compile tool, not an option of a compiler session", name)
		}
	}
	return nil
}

// SessionFlagList returns a session's options as "--name=value", one per
// option (list options once per value), in the order of iree-compile's
// table: every option, or only those args set when nonDefaultOnly. args
// must have passed CheckSessionFlags.
func SessionFlagList(args []string, nonDefaultOnly bool) []string {
	p, err := parseArgs(args)
	if err != nil {
		return nil
	}
	var out []string
	for _, o := range options {
		if actionFlags[o.name] {
			continue
		}
		vals, set := p.values[o.name]
		if nonDefaultOnly && !set {
			continue
		}
		switch {
		case o.kind == optList:
			for _, v := range vals {
				out = append(out, "--"+o.name+"="+v)
			}
		case o.kind == optBool:
			out = append(out, fmt.Sprintf("--%s=%v", o.name, p.bool(o.name)))
		default:
			out = append(out, "--"+o.name+"="+p.str(o.name, sessionDefaults[o.name]))
		}
	}
	return out
}
