package cli

import (
	"fmt"
	"slices"
	"strings"
)

// commaList returns a list option's values with each comma-separated
// value split, as LLVM's comma-separated lists
// (--iree-hal-target-backends=llvm-cpu,vmvx is the same as the flag given
// twice); empty items are dropped.
func commaList(p *parsed, name string) []string {
	var out []string
	for _, v := range p.list(name) {
		for _, item := range strings.Split(v, ",") {
			if item = strings.TrimSpace(item); item != "" {
				out = append(out, item)
			}
		}
	}
	return out
}

// oneDevice rejects what would be IREE's multi-device module: several
// --iree-hal-target-device flags naming different devices, each used at
// once. One flag with a comma-separated list (IREE's device select: the
// runtime uses the first it has) and several targets of one device
// (--iree-hal-local-target-device-backends=llvm-cpu,vmvx) are one device:
// gree builds those as one module with an executable variant per target.
func oneDevice(specs []string) error {
	var distinct []string
	for _, s := range specs {
		if s = strings.TrimSpace(s); !slices.Contains(distinct, s) {
			distinct = append(distinct, s)
		}
	}
	if len(distinct) <= 1 {
		return nil
	}
	return fmt.Errorf("--iree-hal-target-device was given %d devices (%s): a module using several devices at once (IREE's multi-device) is not supported by gree yet; to let the runtime use whichever of them it has, give them as one comma-separated flag (--iree-hal-target-device=%s), or compile one module per device",
		len(distinct), strings.Join(distinct, ", "), strings.Join(distinct, ","))
}
