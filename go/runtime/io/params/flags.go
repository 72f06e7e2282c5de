package params

import (
	"strconv"
	"strings"
	"sync"

	"github.com/gree-ml/gree/go/runtime/flags"
	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/tooling/vio"
	"github.com/gree-ml/gree/go/status"
)

var (
	flagParameters = flags.List("parameters",
		"Specifies a parameter file to make available to programs with either an\n"+
			"anonymous global scope (`some_file.gguf`) or a named scope like\n"+
			"`my_scope=some_file.gguf`. Files may be .irpa, .safetensors or .gguf;\n"+
			"may be repeated (several files may serve one scope). An empty value\n"+
			"(--parameters=) drops the files given before it.")
	flagParameterMode = flags.String("parameter_mode", "file",
		"How parameter files are loaded: `file` (memory-mapped; parameters are\n"+
			"used in place where their alignment allows) or `preload` (each\n"+
			"parameter is copied into memory when a program loads it).")
)

var flagState struct {
	sync.Mutex
	key      string
	provider *Provider
}

// FlagProvider returns the provider of the --parameters flags, or nil when
// none are given. It is opened once per set of flag values and kept open
// for the life of the process (results that alias parameter storage may
// outlive the contexts that loaded them); when the flags change, a new
// provider is opened and the old one's files stay mapped.
func FlagProvider() (*Provider, error) {
	mode := *flagParameterMode
	if mode != "file" && mode != "preload" && mode != "mmap" {
		return nil, status.Errorf(status.InvalidArgument, "unrecognized --parameter_mode=%s (expected file or preload)", mode)
	}
	var vals []string
	for _, v := range *flagParameters {
		if v == "" { // an empty value drops the files given before it
			vals = nil
			continue
		}
		vals = append(vals, v)
	}
	key := mode + "\x00" + strings.Join(vals, "\x00")
	flagState.Lock()
	defer flagState.Unlock()
	if flagState.provider != nil && flagState.key == key {
		return flagState.provider, nil
	}
	if len(vals) == 0 {
		return nil, nil
	}
	p := &Provider{Preload: mode == "preload"}
	for _, v := range vals {
		if err := p.AddFlag(v); err != nil {
			p.Close()
			return nil, status.Errorf(status.CodeOf(err), "--parameters=%s: %s", v, message(err))
		}
	}
	flagState.key, flagState.provider = key, p
	return p, nil
}

// ParseShapeType parses IREE's "SHAPExTYPE" spelling ("4096xf32",
// "2x4096xi16", "f32") and returns the dense byte length and the element
// type.
func ParseShapeType(s string) (uint64, hal.ElementType, error) {
	parts := strings.Split(s, "x")
	et, err := hal.ParseElementType(parts[len(parts)-1])
	if err != nil {
		return 0, 0, status.Errorf(status.InvalidArgument, "'%s': %s", s, message(err))
	}
	if et.Bits() == 0 || et.Bits()%8 != 0 {
		return 0, 0, status.Errorf(status.InvalidArgument, "'%s': opaque and sub-byte element types cannot be used here; use a bitcast type (2xi4=1xi8, etc)", s)
	}
	n := uint64(et.ByteSize())
	for _, d := range parts[:len(parts)-1] {
		v, err := strconv.ParseUint(d, 10, 63)
		if err != nil || (v > 0 && n > (1<<62)/v) {
			return 0, 0, status.Errorf(status.InvalidArgument, "'%s': bad dimension '%s'", s, d)
		}
		n *= v
	}
	return n, et, nil
}

// ParseElementPattern returns the little-endian bytes of one element of
// type et written as value (as --input writes elements: "4.2", "0x1F").
func ParseElementPattern(et hal.ElementType, value string) ([]byte, error) {
	if et.ByteSize() > 16 {
		return nil, status.Errorf(status.OutOfRange, "element type %s is too large for a splat pattern", et)
	}
	bv, err := vio.ParseBufferView(et.String() + "=" + value)
	if err != nil {
		return nil, err
	}
	return append([]byte(nil), bv.Bytes()...), nil
}
