package runtime

import (
	"github.com/gree-ml/gree/go/runtime/io/params"
	"github.com/gree-ml/gree/go/runtime/vm"
)

// Contexts created without a parameter source of their own load the
// parameters of their modules from the files of the --parameters flags
// (iree-run-module --parameters=[scope=]file, parse_flags in Python,
// gree_flags_parse in C).
func init() {
	vm.DefaultParameters = func() (vm.ParameterSource, error) {
		p, err := params.FlagProvider()
		if p == nil || err != nil {
			return nil, err
		}
		return p, nil
	}
}
